//! A transfer's place in its payout batch. Recording a batch's transfer raises the batch's
//! `accepted`, `accepted_amount` and `open` in the transfer's own transaction; settling it
//! lowers `open` and counts it as `successful` or `failed`. The write that leaves a sealed
//! batch with nothing open completes it and writes its webhook event, in the same transaction:
//! each update of a batch waits for the previous one's row lock, so exactly one write sees the
//! last item go (on SQLite the single writer serializes them all).

use std::collections::BTreeMap;

use sqlx::Transaction;

use super::insert_set::Creation;
use super::{Args, Get, RowsAffected, SqlDb};
use crate::domain::{PayoutBatch, Status, Timestamp};
use crate::store::payouts::BatchEventBody;
use crate::store::{names, Settlement, StoreError};

/// The columns of a batch, as [`batch_of`] reads them.
pub(super) const BATCH_COLUMNS: &str = "id, merchant_id, environment, label, all_or_nothing, submitted, refused, \
    duplicates, accepted, accepted_amount, open, successful, successful_amount, failed, failed_amount, created_at, \
    sealed_at, completed_at";

/// The batch a row of `payout_batches` describes.
pub(super) fn batch_of<DB: SqlDb>(row: &DB::Row) -> Result<PayoutBatch, StoreError> {
    use crate::domain::{BatchId, Tally, Tenant};
    let environment: String = row.col("environment")?;
    Ok(PayoutBatch {
        id: BatchId::from_stored(row.col("id")?),
        tenant: Tenant {
            merchant_id: row.col("merchant_id")?,
            environment: crate::store::rows::environment(&environment)?,
        },
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

/// Counts each batch's transfers among `creations` as accepted and open.
pub(super) async fn hold<DB: SqlDb>(
    tx: &mut Transaction<'_, DB>,
    creations: &[Creation<'_>],
) -> Result<(), StoreError> {
    // Summed per batch, in key order: two writers take their batches' row locks in one order.
    let mut held: BTreeMap<&str, (i64, i64)> = BTreeMap::new();
    for c in creations {
        if let Some(batch) = c.transaction.purpose.batch() {
            let counts = held.entry(batch.as_str()).or_default();
            counts.0 += 1;
            counts.1 += c.transaction.amounts.amount.get();
        }
    }
    for (batch, (items, amount)) in held {
        let raised = sqlx::query(
            "UPDATE payout_batches SET accepted = accepted + $1, accepted_amount = accepted_amount + $2, \
             open = open + $1 WHERE id = $3 AND sealed_at IS NULL",
        )
        .arg(items)
        .arg(amount)
        .arg(batch)
        .execute(DB::on(&mut **tx))
        .await?;
        if raised.rows_affected() != 1 {
            return Err(StoreError::Corrupt(format!(
                "a transfer joins batch {batch}, which is sealed or gone"
            )));
        }
    }
    Ok(())
}

/// Counts each transfer of `done` in its batch, and completes the batches it leaves with
/// nothing open.
pub(super) async fn settle<DB: SqlDb>(tx: &mut Transaction<'_, DB>, done: &[&Settlement]) -> Result<(), StoreError> {
    // Per batch: successful, their amount, failed, their amount, and the last of its settlements.
    type Counts<'a> = (i64, i64, i64, i64, &'a Settlement);
    let mut moved: BTreeMap<&str, Counts> = BTreeMap::new();
    for s in done {
        let t = &s.transaction;
        let Some(batch) = t.purpose.batch() else { continue };
        let counts = moved.entry(batch.as_str()).or_insert((0, 0, 0, 0, s));
        match s.outcome.status {
            Status::Successful => {
                counts.0 += 1;
                counts.1 += t.amounts.amount.get();
            }
            Status::Failed => {
                counts.2 += 1;
                counts.3 += t.amounts.amount.get();
            }
            Status::Pending => continue,
        }
        counts.4 = s;
    }
    for (batch, (successful, successful_amount, failed, failed_amount, last)) in moved {
        let row = sqlx::query(
            "UPDATE payout_batches SET open = open - $1, successful = successful + $2, \
             successful_amount = successful_amount + $3, failed = failed + $4, failed_amount = failed_amount + $5 \
             WHERE id = $6 RETURNING open, sealed_at, completed_at",
        )
        .arg(successful + failed)
        .arg(successful)
        .arg(successful_amount)
        .arg(failed)
        .arg(failed_amount)
        .arg(batch)
        .fetch_optional(DB::on(&mut **tx))
        .await?
        .ok_or_else(|| StoreError::Corrupt(format!("a transfer of batch {batch}, which is gone, settled")))?;
        let open: i64 = row.col("open")?;
        let sealed = row.col::<Option<i64>>("sealed_at")?.is_some();
        let completed = row.col::<Option<i64>>("completed_at")?.is_some();
        if open == 0 && sealed && !completed {
            let body = last
                .batch_event
                .ok_or_else(|| StoreError::Corrupt(format!("the last transfer of batch {batch} has no event body")))?;
            complete(tx, batch, last.transaction.id.as_str(), last.at, body).await?;
        }
    }
    Ok(())
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
