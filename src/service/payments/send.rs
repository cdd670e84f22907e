//! Asking the operator for a recorded `PENDING` payment, and recording its answer: at its
//! creation (`create.rs`), or later for a payout batch's transfer the sender claimed
//! (`service::payouts`). Either way the outcome is written with its ledger entry and webhook
//! event in one database transaction, and an answer that settles nothing leaves the payment
//! `PENDING` for the reconciler.

use super::deliver::Fallback;
use super::{PaymentError, Payments};
use crate::domain::{
    Amount, Cause, FailureCode, Outcome, Purpose, Reference, Status, Timestamp, Transaction, TransactionKey,
    TransactionRecord,
};
use crate::operator::{Instruction, OperatorAnswer, OperatorError, OperatorRequest, RefundOf};
use crate::service::ServiceError;
use crate::store::{SendMark, StoreError};

/// When a payment is sent: within its creation request, whose answer is the settlement (so
/// `date_update` stays null), or later.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sent {
    AtCreation,
    Later,
}

/// A creation the operator refused or could not take: `failed` with the transaction, now
/// `FAILED`; or the transaction as it is, when that could not be recorded and it is still `PENDING`.
fn failed_unless_pending(
    settled: TransactionRecord,
    failed: fn(Box<TransactionRecord>) -> PaymentError,
) -> Result<TransactionRecord, PaymentError> {
    match settled.transaction.status {
        Status::Pending => Ok(settled),
        Status::Successful | Status::Failed => Err(failed(Box::new(settled))),
    }
}

/// A recorded payment's amount: stored only after it was parsed as one, so one out of range
/// is a fault of ours.
pub(super) fn stored_amount(t: &Transaction) -> Result<Amount, ServiceError> {
    Amount::from_francs(t.amounts.amount.get())
        .map_err(|e| ServiceError::Internal(format!("stored amount {} {e}", t.amounts.amount)))
}

/// The collection a refund gives back, as sending the refund needs it.
#[derive(Debug, Clone, Copy)]
pub(super) struct RefundTarget<'a> {
    pub reference: &'a Reference,
    /// Its key at the operator, which the refund names there.
    pub key: &'a TransactionKey,
    /// The connector that carried it (`None`: its route's first): the only one the refund
    /// may go through.
    pub connector: Option<&'a str>,
}

/// What the operator is asked for the recorded `t`, at its creation or sent again. `refund` is
/// a refund's collection; a refund without it is a fault of ours (its collection is read
/// before it is sent).
pub(super) fn operator_request<'a>(
    t: &'a Transaction,
    amount: Amount,
    otp_code: Option<&'a str>,
    refund: Option<RefundTarget<'a>>,
) -> Result<OperatorRequest<'a>, ServiceError> {
    let refund_of = refund.map(|target| RefundOf {
        reference: target.reference,
        operator_reference: target.key,
    });
    let purpose = Instruction::of(&t.purpose, otp_code, refund_of)
        .ok_or_else(|| ServiceError::Internal(format!("refund {} sent without its collection", t.reference)))?;
    Ok(OperatorRequest::of(t, amount, purpose))
}

impl Payments {
    /// The only connector a refund may go through: its collection's.
    pub(super) fn refund_pin<'a>(&'a self, t: &Transaction, refund: Option<RefundTarget<'a>>) -> Option<&'a str> {
        let target = refund?;
        Some(
            target
                .connector
                .unwrap_or_else(|| self.operators.first(t.operator, t.tenant.environment).name),
        )
    }

    /// Asks the operator for the recorded `record` and records the answer. `refund` is a
    /// refund's collection.
    pub(super) async fn send(
        &self,
        record: TransactionRecord,
        otp_code: Option<&str>,
        refund: Option<RefundTarget<'_>>,
        now: Timestamp,
        sent: Sent,
    ) -> Result<TransactionRecord, PaymentError> {
        let t = &record.transaction;
        let request = operator_request(t, stored_amount(t)?, otp_code, refund)?;
        // Sent here for the first time: at its creation, or a batch's transfer by its sender.
        let answer = self
            .deliver(t, &request, self.refund_pin(t, refund), Fallback::Allowed)
            .await;
        let outcome = |status, code: Option<FailureCode>, reason: Option<String>, cause| Outcome {
            status,
            cause,
            code,
            reason,
        };
        match answer {
            Ok(OperatorAnswer::Pending) => Ok(record),
            Ok(OperatorAnswer::AwaitingPayer { launch_url }) => {
                // The merchant sends the payer there: it is kept with the transaction so
                // every later status lookup shows it too. Not kept (the database is away), it
                // is still answered: the payment exists, and a status check learns the page again.
                match self.store.set_launch_url(&record.transaction.id, &launch_url).await {
                    Ok(()) => {}
                    Err(StoreError::Unavailable(why)) => {
                        tracing::warn!(reference = %record.transaction.reference, error = %why,
                            "the payer's page could not be recorded: a status check will learn it again");
                    }
                    Err(e) => return Err(e.into()),
                }
                let mut record = record;
                if let Purpose::Collection(collection) = &mut record.transaction.purpose {
                    collection.launch_url = Some(launch_url);
                }
                Ok(record)
            }
            // An initiation cannot be "not received" by the one receiving it: a connector's
            // bug, so leave it to the reconciler's status check rather than guess.
            Ok(OperatorAnswer::NotReceived) => {
                tracing::warn!(reference = %record.transaction.reference, "operator answered an initiation with not-received: left PENDING for the reconciler");
                Ok(record)
            }
            Err(e @ (OperatorError::Ambiguous(_) | OperatorError::BadAnswer { .. })) => {
                tracing::warn!(reference = %record.transaction.reference, error = %e, "operator outcome unknown: left PENDING for the reconciler");
                Ok(record)
            }
            Ok(OperatorAnswer::Succeeded) => {
                let done = outcome(Status::Successful, None, None, Cause::OperatorAnswer);
                self.settle_answer(record, done, now, sent).await
            }
            Ok(OperatorAnswer::Failed { code, reason }) | Err(OperatorError::Rejected { code, reason }) => {
                let done = outcome(Status::Failed, Some(code), Some(reason), Cause::OperatorAnswer);
                failed_unless_pending(
                    self.settle_answer(record, done, now, sent).await?,
                    PaymentError::Refused,
                )
            }
            Err(OperatorError::Transient(why)) => {
                let done = outcome(
                    Status::Failed,
                    Some(FailureCode::OperatorUnavailable),
                    Some(format!("the operator could not be reached: {why}")),
                    Cause::OperatorUnavailable,
                );
                failed_unless_pending(
                    self.settle_answer(record, done, now, sent).await?,
                    PaymentError::OperatorUnavailable,
                )
            }
        }
    }

    /// Sends a payout batch's transfer the sender claimed: `true` when the operator's answer
    /// settled it. A refusal or an unreachable operator fails it, as it fails a single
    /// transfer; an answer that settles nothing leaves it to the reconciler.
    /// Sent only under its mark (`PaymentStore::mark_sent`), taken just before the call: not
    /// once final, and not when the reconciler sent it first.
    pub async fn send_queued(&self, record: TransactionRecord, now: Timestamp) -> Result<bool, ServiceError> {
        match self.store.mark_sent(&record.transaction.id, now).await? {
            SendMark::Taken => {}
            SendMark::SentAt(_) | SendMark::Final => return Ok(false),
        }
        match self.send(record, None, None, now, Sent::Later).await {
            Ok(record) => Ok(record.transaction.status.is_final()),
            Err(PaymentError::Refused(_) | PaymentError::OperatorUnavailable(_)) => Ok(true),
            Err(PaymentError::Service(e)) => Err(e),
            Err(e) => Err(ServiceError::Internal(format!("sending a batch's transfer: {e}"))),
        }
    }

    /// Settles a transaction with the operator's answer to its initiation.
    ///
    /// When the database is away the operator has been called all the same, so the payment is
    /// answered as it is stored, `PENDING`, never 503 (which a merchant may read as "nothing
    /// happened" and pay again): the reconciler asks the operator and records the outcome, as
    /// after a crash at this point.
    async fn settle_answer(
        &self,
        record: TransactionRecord,
        outcome: Outcome,
        now: Timestamp,
        sent: Sent,
    ) -> Result<TransactionRecord, PaymentError> {
        let updated_at = match sent {
            Sent::AtCreation => None,
            Sent::Later => Some(now),
        };
        let settled = match self.balances.settle(&record, outcome, now, updated_at, None).await {
            Ok(settled) => settled,
            Err(ServiceError::Unavailable(why)) => {
                tracing::warn!(reference = %record.transaction.reference, error = %why,
                    "the operator's answer could not be recorded: left PENDING for the reconciler");
                return Ok(record);
            }
            Err(e) => return Err(e.into()),
        };
        Ok(self.settled_or_stored(record, settled).await?)
    }
}
