//! Collection expiry: a collection still pending after `MOMO_COLLECTION_TTL_S` (the payer never
//! approved) fails with cause `EXPIRED`, but only after one last question to the operator: a
//! payer who approved at the last moment is paid, and the operator says so. Transfers never
//! expire: money may have left, so they wait for review instead (see `review`).

use super::{for_each_pending, outcome_of, Report};
use crate::domain::{Cause, FailureCode, Kind, Outcome, Status, Timestamp};
use crate::operator::OperatorAnswer;
use crate::service::{Gateway, ServiceError};

pub async fn run_once(gateway: &Gateway, now: Timestamp) -> Result<Report, ServiceError> {
    let created_before = now.minus(gateway.config().reconcile.collection_ttl);
    for_each_pending(gateway, created_before, Some(Kind::Collection), |record| async move {
        let reference = &record.transaction.reference;
        let outcome = match gateway.operator_status(&record, now).await {
            Ok(answer @ (OperatorAnswer::Succeeded | OperatorAnswer::Failed { .. })) => {
                outcome_of(answer, Cause::Reconciled)
            }
            Ok(OperatorAnswer::Pending | OperatorAnswer::AwaitingPayer { .. } | OperatorAnswer::NotReceived) => {
                // Cancelled first where the protocol allows, so a payer cannot pay a
                // collection we are about to call failed.
                if let Err(e) = gateway.cancel_at_operator(&record).await {
                    tracing::warn!(%reference, error = %e, "cannot cancel at the operator before expiry; will try again");
                    return Ok(false);
                }
                Some(Outcome {
                    status: Status::Failed,
                    cause: Cause::Expired,
                    code: Some(FailureCode::Expired),
                    reason: Some("the payer did not approve in time".into()),
                })
            }
            // Unknown is not "unpaid": a payer may have approved, so it stays pending until
            // the operator can be asked.
            Err(e) => {
                tracing::warn!(%reference, error = %e, "cannot ask the operator before expiry; will try again");
                None
            }
        };
        match outcome {
            Some(outcome) => Ok(gateway.settle_later(&record, outcome, now, None).await?.is_some()),
            None => Ok(false),
        }
    })
    .await
}
