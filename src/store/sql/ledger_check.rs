//! The whole-ledger invariants, for checks after tests and benchmarks: postings sum to zero,
//! balances match their postings and credits, and each final payment has one event.

use sqlx::Pool;

use super::Get;
use super::SqlDb;
use crate::store::{LedgerCheck, StoreError};

pub(super) async fn check_ledger<DB: SqlDb>(reader: &Pool<DB>) -> Result<LedgerCheck, StoreError> {
    let sum = sqlx::query("SELECT CAST(COALESCE(SUM(amount), 0) AS BIGINT) AS total FROM ledger_postings")
        .fetch_one(DB::pool(reader))
        .await?;
    let inconsistent = sqlx::query(
        "SELECT COUNT(*) AS n FROM balances b WHERE b.available < 0 OR b.reserved < 0 \
         OR b.available + (SELECT CAST(COALESCE(SUM(c.amount), 0) AS BIGINT) FROM balance_credits c \
         WHERE c.merchant_id = b.merchant_id AND c.environment = b.environment) <> (SELECT CAST(COALESCE(SUM(p.amount), 0) AS BIGINT) FROM ledger_postings p \
         WHERE p.merchant_id = b.merchant_id AND p.environment = b.environment AND p.account = 'available') \
         OR b.reserved <> (SELECT CAST(COALESCE(SUM(p.amount), 0) AS BIGINT) FROM ledger_postings p \
         WHERE p.merchant_id = b.merchant_id AND p.environment = b.environment AND p.account = 'reserved')",
    )
    .fetch_one(DB::pool(reader))
    .await?;
    let events = sqlx::query(
        "SELECT COUNT(*) AS n FROM transactions t WHERE \
         (t.status <> 'PENDING' AND (SELECT COUNT(*) FROM outbox_events e WHERE e.transaction_id = t.id \
           AND e.to_status <> 'BATCH_COMPLETED') <> 1) \
         OR (t.status = 'PENDING' AND EXISTS (SELECT 1 FROM outbox_events e WHERE e.transaction_id = t.id))",
    )
    .fetch_one(DB::pool(reader))
    .await?;
    Ok(LedgerCheck {
        postings_sum: sum.col("total")?,
        inconsistent_balances: inconsistent.col("n")?,
        final_without_one_event: events.col("n")?,
    })
}
