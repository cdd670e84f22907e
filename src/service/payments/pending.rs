//! What the settlement workers and the administrator need: pending transactions in batches,
//! the operator's view of one, when to ask again, and the whole-ledger check.

use super::deliver::Fallback;
use super::send::RefundTarget;
use super::Payments;
use crate::domain::{Cause, Cursor, Outcome, Reference, Status, Timestamp, TransactionKey, TransactionRecord};
use crate::operator::{OperatorAnswer, OperatorError};
use crate::service::ServiceError;
use crate::store::{DueChecks, LedgerCheck, Missing, PendingPage, SendMark};

/// What came of [`Payments::first_send`].
#[derive(Debug)]
pub enum FirstSend {
    /// Sent now: the operator's answer.
    Made(Result<OperatorAnswer, OperatorError>),
    /// Sent by someone else, from this time on.
    SentAt(Timestamp),
    /// Final: nothing to send.
    Final,
}

/// The final outcome an operator's answer gives, with `cause`; `None` while it is not final.
/// `NotReceived` is final only where the caller decides so (the reconciler), never here.
pub fn outcome_of(answer: OperatorAnswer, cause: Cause) -> Option<Outcome> {
    match answer {
        OperatorAnswer::Succeeded => Some(Outcome {
            status: Status::Successful,
            cause,
            code: None,
            reason: None,
        }),
        OperatorAnswer::Failed { code, reason } => Some(Outcome {
            status: Status::Failed,
            cause,
            code: Some(code),
            reason: Some(reason),
        }),
        OperatorAnswer::Pending | OperatorAnswer::AwaitingPayer { .. } | OperatorAnswer::NotReceived => None,
    }
}

impl Payments {
    /// `PENDING` transactions of every tenant, a page at a time, oldest first.
    pub async fn pending_transactions(&self, page: PendingPage<'_>) -> Result<Vec<TransactionRecord>, ServiceError> {
        Ok(self.store.pending_transactions(page).await?)
    }

    /// Payments that need a person (`PaymentStore::needing_review`).
    pub async fn needing_review(
        &self,
        sent_before: Timestamp,
        after: Option<&Cursor>,
        limit: u32,
    ) -> Result<Vec<TransactionRecord>, ServiceError> {
        Ok(self.store.needing_review(sent_before, after, limit).await?)
    }

    /// Claims pending transactions whose next status check is due, oldest first, until the
    /// claim's lease (see `PaymentStore::claim_due_checks`).
    pub async fn claim_due_checks(&self, claim: DueChecks) -> Result<Vec<TransactionRecord>, ServiceError> {
        Ok(self.store.claim_due_checks(claim).await?)
    }

    /// Sets when the reconciler may next ask about a pending transaction.
    pub(in crate::service) async fn schedule_check(
        &self,
        transaction_id: &TransactionKey,
        at: Timestamp,
    ) -> Result<(), ServiceError> {
        Ok(self.store.schedule_check(transaction_id, at).await?)
    }

    /// Asks the transaction's operator where it stands.
    pub(in crate::service) async fn operator_status(
        &self,
        record: &TransactionRecord,
        now: Timestamp,
    ) -> Result<OperatorAnswer, OperatorError> {
        let t = &record.transaction;
        let answer = self.operators.carrier(t).status(t, now).await;
        // The payer's page, learnt late when the initiation's answer was lost.
        if let Ok(OperatorAnswer::AwaitingPayer { launch_url }) = &answer {
            if t.purpose.launch_url() != Some(launch_url.as_str()) {
                if let Err(e) = self.store.set_launch_url(&t.id, launch_url).await {
                    tracing::warn!(reference = %t.reference, error = %e, "cannot keep the payer's page; the next status check will try again");
                }
            }
        }
        answer
    }

    /// Sends a pending payment to its operator again, with the same operator-side reference
    /// (the operator's idempotency key), once, if it is still carried as `record` was read
    /// (`PaymentStore::claim_resend`): [`Missing::Spent`] when it was resent before,
    /// [`Missing::Moved`] when another sender moved it since. For a payment the operator says
    /// it never received.
    pub(in crate::service) async fn resend(
        &self,
        record: &TransactionRecord,
        now: Timestamp,
    ) -> Result<Missing<Result<OperatorAnswer, OperatorError>>, ServiceError> {
        let t = &record.transaction;
        match self.store.claim_resend(&t.id, &t.carrier, now).await? {
            Missing::Marked(()) => {}
            Missing::Spent => return Ok(Missing::Spent),
            Missing::Moved => return Ok(Missing::Moved),
        }
        tracing::warn!(reference = %t.reference, "the operator never received this payment: sending it again, once, with the same key");
        self.call_operator(record, Fallback::Never).await.map(Missing::Marked)
    }

    /// Sends a payout batch's transfer its sender claimed but did not send (it died between
    /// the two, or is slow), if no one has yet: its mark is taken here as the sender takes it
    /// (`send_queued`), so only one of them makes the call. [`FirstSend::SentAt`] when it was
    /// sent (or is being sent) already.
    pub(in crate::service) async fn first_send(
        &self,
        record: &TransactionRecord,
        now: Timestamp,
    ) -> Result<FirstSend, ServiceError> {
        Ok(match self.store.mark_sent(&record.transaction.id, now).await? {
            SendMark::Taken => FirstSend::Made(self.call_operator(record, Fallback::Allowed).await?),
            SendMark::SentAt(at) => FirstSend::SentAt(at),
            SendMark::Final => FirstSend::Final,
        })
    }

    /// Asks the operator for the recorded, pending `record`, as it was asked at its creation
    /// but without the payer's one-time code (never stored: it is the payer's, for one attempt).
    async fn call_operator(
        &self,
        record: &TransactionRecord,
        fallback: Fallback,
    ) -> Result<Result<OperatorAnswer, OperatorError>, ServiceError> {
        let t = &record.transaction;
        let amount = super::send::stored_amount(t)?;
        // A refund names its collection at the operator by the collection's own key.
        let collection = match t.purpose.refund_of() {
            Some(link) => Some(self.store.transaction_by_ref(&link.collection).await?.ok_or_else(|| {
                ServiceError::Internal(format!(
                    "refund {} of a missing collection {}",
                    t.reference, link.collection
                ))
            })?),
            None => None,
        };
        let refund = collection.as_ref().map(|c| RefundTarget {
            reference: &c.transaction.reference,
            key: &c.transaction.id,
            connector: c.transaction.carrier.connector.as_deref(),
        });
        let request = super::send::operator_request(t, amount, None, refund)?;
        let answer = self.deliver(t, &request, self.refund_pin(t, refund), fallback).await;
        // The payer pays on the page the resend opened (a Wave checkout session): kept, as at
        // creation, so that status lookups show the merchant where to send them.
        if let Ok(OperatorAnswer::AwaitingPayer { launch_url }) = &answer {
            self.store.set_launch_url(&t.id, launch_url).await?;
        }
        Ok(answer)
    }

    /// When the pending `record` was first found missing at its operator (or sent again for
    /// that reason), noting `now` if it never was, if it is still carried as `record` was read.
    pub(in crate::service) async fn missing_since(
        &self,
        record: &TransactionRecord,
        now: Timestamp,
    ) -> Result<Missing<Timestamp>, ServiceError> {
        let t = &record.transaction;
        Ok(self.store.missing_since(&t.id, &t.carrier, now).await?)
    }

    /// Cancels a payment still pending at its operator, where the protocol allows it.
    pub(in crate::service) async fn cancel_at_operator(&self, record: &TransactionRecord) -> Result<(), OperatorError> {
        let t = &record.transaction;
        self.operators.carrier(t).cancel(t).await
    }

    /// The callback the transaction's operator has made by `now`, if any.
    pub fn operator_callback(&self, record: &TransactionRecord, now: Timestamp) -> Option<OperatorAnswer> {
        let t = &record.transaction;
        self.operators.carrier(t).callback(t, now)
    }

    /// A transaction by its service reference alone, whatever its tenant.
    pub async fn transaction_by_ref(&self, reference: &Reference) -> Result<TransactionRecord, ServiceError> {
        self.store
            .transaction_by_ref(reference)
            .await?
            .ok_or(ServiceError::NotFound("transaction"))
    }

    /// The whole-ledger invariants, for checks after tests and benchmarks.
    pub async fn check_ledger(&self) -> Result<LedgerCheck, ServiceError> {
        Ok(self.store.check_ledger().await?)
    }
}
