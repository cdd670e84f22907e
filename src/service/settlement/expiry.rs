//! Collection expiry: a collection still pending after `MOMO_COLLECTION_TTL_S` (the payer never
//! approved), or `MOMO_LINK_PAYMENT_TTL_S` for one started on a payment link's page (it holds
//! the link's place while pending), fails with cause `EXPIRED`, but only after one last
//! question to the operator: a payer who approved at the last moment is paid, and the operator
//! says so. An operator that knows nothing of it is asked again until that is final
//! ([`super::missing_for_good_after`]): our initiation may still be on its way. Transfers never
//! expire: money may have left, so they wait for review instead (`reconcile::review`).

use super::{missing_for_good_at, outcome_of};
use crate::domain::{Cause, FailureCode, Outcome, Status, Timestamp, TransactionRecord};
use crate::operator::OperatorAnswer;
use crate::service::{Payments, ServiceError};
use crate::store::Missing;

/// When the pending `record` expires: a payment that waits for its payer (money in) does; one
/// that pays out never does.
pub fn expires_at(payments: &Payments, record: &TransactionRecord) -> Option<Timestamp> {
    let t = &record.transaction;
    if t.kind().pays_out() {
        return None;
    }
    let lifetime = payments
        .config()
        .reconcile
        .collection_lifetime(t.purpose.link().is_some());
    Some(t.created_at.plus(lifetime))
}

/// Whether `record` is past its lifetime at `now`.
pub fn is_expired(payments: &Payments, record: &TransactionRecord, now: Timestamp) -> bool {
    expires_at(payments, record).is_some_and(|at| at <= now)
}

/// The last check of an expired collection, claimed by this pass: settled as the operator says,
/// or expired once it is cancelled; asked again at the next pass when the operator cannot say.
pub async fn expire(payments: &Payments, record: &TransactionRecord, now: Timestamp) -> Result<bool, ServiceError> {
    let t = &record.transaction;
    let reference = &t.reference;
    let outcome = match payments.operator_status(record, now).await {
        Ok(answer @ (OperatorAnswer::Succeeded | OperatorAnswer::Failed { .. })) => {
            outcome_of(answer, Cause::Reconciled)
        }
        Ok(OperatorAnswer::NotReceived) => match missing_for_good_at(payments, record, now).await? {
            // Not yet: a send of ours may still be on its way, and a payment cancelled and
            // expired now could be executed when it arrives.
            Missing::Marked(at) if at > now => {
                payments.schedule_check(&t.id, at).await?;
                return Ok(false);
            }
            Missing::Marked(_) => cancelled_then_expired(payments, record).await,
            Missing::Spent => return Ok(false),
            // Another connector has it now (a fallback since this pass read it): the next
            // pass asks that one.
            Missing::Moved => None,
        },
        Ok(OperatorAnswer::Pending | OperatorAnswer::AwaitingPayer { .. }) => {
            cancelled_then_expired(payments, record).await
        }
        // Unknown is not "unpaid": a payer may have approved, so it stays pending until
        // the operator can be asked.
        Err(e) => {
            tracing::warn!(%reference, error = %e, "cannot ask the operator before expiry; will try again");
            None
        }
    };
    match outcome {
        Some(outcome) => Ok(payments
            .balances()
            .settle_later(record, outcome, now, None)
            .await?
            .is_some()),
        None => {
            // Due again at the next pass, not within this one.
            payments
                .schedule_check(&t.id, now.plus(payments.config().reconcile.interval))
                .await?;
            Ok(false)
        }
    }
}

/// The expiry of a collection the operator has not settled: cancelled first where the protocol
/// allows, so a payer cannot pay a collection we are about to call failed; `None` when the
/// cancellation failed (asked again at the next pass).
async fn cancelled_then_expired(payments: &Payments, record: &TransactionRecord) -> Option<Outcome> {
    match payments.cancel_at_operator(record).await {
        Ok(()) => Some(Outcome {
            status: Status::Failed,
            cause: Cause::Expired,
            code: Some(FailureCode::Expired),
            reason: Some("the payer did not approve in time".into()),
        }),
        Err(e) => {
            let reference = &record.transaction.reference;
            tracing::warn!(%reference, error = %e, "cannot cancel at the operator before expiry; will try again");
            None
        }
    }
}
