//! The reconciler: asks the operator about transactions pending longer than
//! `MOMO_RECONCILE_AFTER_MS`, for the payments whose callback never came (or a crash lost).

use super::{for_each_pending, Report};
use crate::domain::{Cause, Outcome, Status, Timestamp};
use crate::operator::OperatorAnswer;
use crate::service::{Gateway, ServiceError};

pub async fn run_once(gateway: &Gateway, now: Timestamp) -> Result<Report, ServiceError> {
    let created_before = Timestamp(now.millis() - gateway.config.reconcile_after_ms as i64);
    for_each_pending(gateway, created_before, None, |record| async move {
        let outcome = match gateway.operator.status(&record.transaction, now).await {
            Ok(OperatorAnswer::Succeeded) => Outcome { status: Status::Successful, cause: Cause::Reconciled, code: None, reason: None },
            Ok(OperatorAnswer::Failed { code, reason }) => {
                Outcome { status: Status::Failed, cause: Cause::Reconciled, code: Some(code), reason: Some(reason) }
            }
            Ok(OperatorAnswer::Pending) => return Ok(false),
            Err(e) => {
                tracing::warn!(reference = %record.transaction.reference, error = %e, "status check failed; will ask again");
                return Ok(false);
            }
        };
        Ok(gateway.settle_later(&record, outcome, now, None).await?.is_some())
    })
    .await
}
