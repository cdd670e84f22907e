//! A payout batch's row: read ([`batch_of`]) and completed with its webhook event
//! ([`complete`]), by the write that leaves it with nothing open (`kinds::transfer`) or by its
//! sealing (`payouts`).

use sqlx::Transaction;

use super::{Args, Get, SqlDb};
use crate::domain::{PayoutBatch, Timestamp};
use crate::store::payouts::BatchEventBody;
use crate::store::{names, rows, StoreError};

/// The columns of a batch, as [`batch_of`] reads them.
pub(super) const BATCH_COLUMNS: &str = "id, merchant_id, environment, label, all_or_nothing, submitted, refused, \
    duplicates, accepted, accepted_amount, open, successful, successful_amount, failed, failed_amount, created_at, \
    sealed_at, completed_at";

/// The batch a row of `payout_batches` describes.
pub(super) fn batch_of<DB: SqlDb>(row: &DB::Row) -> Result<PayoutBatch, StoreError> {
    use crate::domain::{BatchId, Tally};
    Ok(PayoutBatch {
        id: BatchId::from_stored(row.col("id")?),
        tenant: rows::tenant(row)?,
        label: row.col("label")?,
        all_or_nothing: row.col::<i64>("all_or_nothing")? != 0,
        submitted: row.col("submitted")?,
        refused: row.col("refused")?,
        duplicates: row.col("duplicates")?,
        accepted: Tally {
            count: row.col("accepted")?,
            amount: row.col("accepted_amount")?,
        },
        successful: Tally {
            count: row.col("successful")?,
            amount: row.col("successful_amount")?,
        },
        failed: Tally {
            count: row.col("failed")?,
            amount: row.col("failed_amount")?,
        },
        pending: row.col("open")?,
        created_at: Timestamp::from_millis(row.col("created_at")?),
        completed_at: row.col::<Option<i64>>("completed_at")?.map(Timestamp::from_millis),
    })
}

/// Completes the batch `id` at `at` if nobody has, with its webhook event on the outbox row
/// of its transfer `item` (the event of a batch with no transfer has nowhere to go, and its
/// merchant had every outcome in the answer). The batch as it is then.
pub(super) async fn complete<DB: SqlDb>(
    tx: &mut Transaction<'_, DB>,
    id: &str,
    item: &str,
    at: Timestamp,
    body: BatchEventBody,
) -> Result<Option<PayoutBatch>, StoreError> {
    let sql = format!(
        "UPDATE payout_batches SET completed_at = $1 WHERE id = $2 AND completed_at IS NULL RETURNING {BATCH_COLUMNS}"
    );
    let Some(row) = sqlx::query(&sql)
        .arg(at.millis())
        .arg(id)
        .fetch_optional(DB::on(&mut **tx))
        .await?
    else {
        return Ok(None);
    };
    let batch = batch_of::<DB>(&row)?;
    sqlx::query(
        "INSERT INTO outbox_events (id, merchant_id, environment, transaction_id, to_status, payload, \
         next_attempt_at, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $7)",
    )
    .arg(format!("msg_{}", crate::domain::ids::new_record_id().simple()))
    .arg(batch.tenant.merchant_id.as_str())
    .arg(batch.tenant.environment.as_str())
    .arg(item)
    .arg(names::BATCH_COMPLETED_EVENT)
    .arg(body(&batch))
    .arg(at.millis())
    .execute(DB::on(&mut **tx))
    .await?;
    Ok(Some(batch))
}
