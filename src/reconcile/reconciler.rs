//! The reconciler: asks the operator about transactions pending longer than
//! `MOMO_RECONCILE_AFTER_MS`, for the payments whose callback never came (or a crash lost).
//! This is the leasing loop; what a check settles is `service::settlement`.

use std::time::Duration;

use super::{for_each_due, Report};
use crate::domain::Timestamp;
use crate::service::settlement;
use crate::service::{Payments, ServiceError};

pub async fn run_once(payments: &Payments, now: Timestamp) -> Result<Report, ServiceError> {
    run_within(payments, now, None).await
}

/// A pass that ends once it has worked `budget`, at the end of a claim, with work left
/// (`Report::unfinished`); with `None`, once nothing is due.
pub async fn run_within(payments: &Payments, now: Timestamp, budget: Option<Duration>) -> Result<Report, ServiceError> {
    let created_before = now.minus(payments.config().reconcile.after);
    for_each_due(payments, now, created_before, None, budget, |record| {
        settlement::visit(payments, record, now)
    })
    .await
}
