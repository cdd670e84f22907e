//! Payments that need a person: transfers and refunds (money may have left) pending longer
//! than the collection time to live since they were sent, which the operator never settled.
//! `momo-gateway transactions stuck` lists them and `momo-gateway transactions resolve` settles
//! one, keeping an audit record. A batch's transfer still queued is not one of them: nothing
//! was sent.

use crate::domain::{Cause, Cursor, FailureCode, Outcome, Paged, Reference, Status, Timestamp, TransactionRecord};
use crate::service::{Payments, ServiceError};

/// Pending transfers and refunds sent longer than the collection TTL ago, oldest first.
pub async fn stuck_transfers(payments: &Payments, now: Timestamp) -> Result<Vec<TransactionRecord>, ServiceError> {
    let sent_before = now.minus(payments.config().reconcile.collection_ttl);
    let mut all = Vec::new();
    let mut after: Option<Cursor> = None;
    loop {
        let batch = payments.needing_review(sent_before, after.as_ref(), 500).await?;
        let full = batch.len() == 500;
        after = batch.last().map(Paged::cursor);
        all.extend(batch);
        if !full {
            return Ok(all);
        }
    }
}

/// Settles a pending transaction by hand, by its service reference, with an audit record.
pub async fn resolve(
    payments: &Payments,
    reference: &Reference,
    status: Status,
    reason: &str,
    now: Timestamp,
) -> Result<TransactionRecord, ServiceError> {
    if !status.is_final() {
        return Err(ServiceError::Invalid("the status must be SUCCESSFUL or FAILED".into()));
    }
    let reason =
        crate::domain::text::checked_text(reason, 500).map_err(|e| ServiceError::Invalid(format!("the reason {e}")))?;
    let record = payments.transaction_by_ref(reference).await?;
    let outcome = Outcome {
        status,
        cause: Cause::Admin,
        code: (status == Status::Failed).then_some(FailureCode::ResolvedByAdmin),
        reason: Some(reason.clone()),
    };
    let audit = format!(
        "{} -> {}: {reason}",
        record.transaction.status.as_str(),
        status.as_str()
    );
    match payments
        .balances()
        .settle_later(&record, outcome, now, Some(audit))
        .await?
    {
        Some(settled) => Ok(settled),
        None => Err(ServiceError::Invalid(format!(
            "transaction {reference} is already {}; final states never change",
            record.transaction.status.as_str()
        ))),
    }
}
