//! Collection expiry: a collection still pending after `MOMO_COLLECTION_TTL_S` (the payer never
//! approved) fails with cause `EXPIRED`. Transfers never expire: money may have left, so they
//! wait for review instead (see `review`).

use super::{for_each_pending, Report};
use crate::domain::{Cause, Kind, Outcome, Status, Timestamp};
use crate::service::{Gateway, ServiceError};

pub async fn run_once(gateway: &Gateway, now: Timestamp) -> Result<Report, ServiceError> {
    let created_before = now.minus(gateway.config().reconcile.collection_ttl);
    for_each_pending(gateway, created_before, Some(Kind::Collection), |record| async move {
        let outcome = Outcome {
            status: Status::Failed,
            cause: Cause::Expired,
            code: Some("EXPIRED".into()),
            reason: Some("the payer did not approve in time".into()),
        };
        Ok(gateway.settle_later(&record, outcome, now, None).await?.is_some())
    })
    .await
}
