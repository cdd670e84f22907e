//! Collection expiry's leasing loop: expired collections are claimed like the reconciler's
//! checks (the reconciler never schedules a collection's check past its expiry), so several
//! processes share them and the operator is asked once per pass, not once per process. What
//! expiry settles is `service::settlement` (`expiry.rs` there).

use std::time::Duration;

use super::{for_each_due, Report};
use crate::domain::{Kind, Timestamp};
use crate::service::settlement;
use crate::service::{Payments, ServiceError};

pub async fn run_once(payments: &Payments, now: Timestamp) -> Result<Report, ServiceError> {
    run_within(payments, now, None).await
}

/// A pass that ends once it has worked `budget`, at the end of a claim, with work left
/// (`Report::unfinished`); with `None`, once nothing is due.
pub async fn run_within(payments: &Payments, now: Timestamp, budget: Option<Duration>) -> Result<Report, ServiceError> {
    let created_before = now.minus(payments.config().reconcile.shortest_collection_lifetime());
    // A collection old enough for a link's lifetime but not for its own is due for an ordinary
    // check: the settlement's visit does both.
    for_each_due(
        payments,
        now,
        created_before,
        Some(Kind::Collection),
        budget,
        |record| async move { settlement::visit(payments, record, now).await },
    )
    .await
}
