//! A transfer: the payout batch it belongs to, if any, and its place in that batch. Recording a
//! batch's transfer raises the batch's `accepted`, `accepted_amount` and `open` in the
//! transfer's own transaction; settling it lowers `open` and counts it as `successful` or
//! `failed`. The write that leaves a sealed batch with nothing open completes it and writes its
//! webhook event, in the same transaction: each update of a batch waits for the previous one's
//! row lock, so exactly one write sees the last item go (on SQLite the single writer
//! serializes them all).

use std::collections::BTreeMap;

use sqlx::{Row, Transaction};

use super::super::batch_rows;
use super::super::row_values::ColumnType::{Int, Text};
use super::super::row_values::{Columns, RowValues};
use super::super::{Args, Get, RowsAffected, SqlDb};
use super::KindSteps;
use crate::domain::purpose;
use crate::domain::{BatchId, Purpose, Status, Transaction as Payment};
use crate::store::{Settlement, StoreError};

pub(super) struct Transfer;

impl KindSteps for Transfer {
    const STORED: &'static str = "transfer";
    const INSERTED: &'static Columns = &[("batch_id", Text), ("queued_at", Int)];
    const SELECTED: &'static str = "t.batch_id";

    fn insert_row(values: &mut RowValues, t: &Payment) {
        values
            .text(t.purpose.batch().map(BatchId::as_str))
            // A batch's transfer waits for the payout sender (`payouts`); any other is sent at once.
            .int(t.purpose.batch().map(|_| t.created_at.millis()));
    }

    fn purpose<R: Row<Database: SqlDb>>(row: &R) -> Result<Purpose, StoreError> {
        Ok(Purpose::Transfer(purpose::Transfer {
            batch: row.col::<Option<String>>("batch_id")?.map(BatchId::from_stored),
        }))
    }

    /// Counts each batch's transfers among `created` as accepted and open.
    async fn hold<DB: SqlDb>(tx: &mut Transaction<'_, DB>, created: &[&Payment]) -> Result<(), StoreError> {
        // Summed per batch, in key order: two writers take their batches' row locks in one order.
        let mut held: BTreeMap<&str, (i64, i64)> = BTreeMap::new();
        for t in created {
            if let Some(batch) = t.purpose.batch() {
                let counts = held.entry(batch.as_str()).or_default();
                counts.0 += 1;
                counts.1 += t.amounts.amount.get();
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
    async fn settle<DB: SqlDb>(tx: &mut Transaction<'_, DB>, done: &[&Settlement]) -> Result<(), StoreError> {
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
                let body = last.batch_event.ok_or_else(|| {
                    StoreError::Corrupt(format!("the last transfer of batch {batch} has no event body"))
                })?;
                batch_rows::complete(tx, batch, last.transaction.id.as_str(), last.at, body).await?;
            }
        }
        Ok(())
    }
}
