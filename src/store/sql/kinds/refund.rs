//! A refund: the collection it refunds and its reason, and its hold on that collection. A collection's `refunded` is the sum of its refunds that
//! are not `FAILED`: creating a refund raises it with one conditional update, in the refund's
//! own transaction, which finds no row when the collection is not a `SUCCESSFUL` collection of
//! the refund's tenant or has less left than the refund asks (so concurrent refunds are
//! settled by the database: each update waits for the previous one's row lock); a refund that
//! fails lowers it again in the transaction that settles it. Refunds are rare, so one
//! statement per collection rather than a set.

use std::collections::BTreeMap;

use sqlx::{Row, Transaction};

use super::super::row_values::{ColumnType::Text, Columns, RowValues};
use super::super::{Args, Get, RowsAffected, SqlDb};
use super::KindSteps;
use crate::domain::{Purpose, Reference, RefundLink, RefundReason, Status, Tenant, TextId, Transaction as Payment};
use crate::store::{Settlement, StoreError};

pub(super) struct Refund;

impl KindSteps for Refund {
    const STORED: &'static str = "refund";
    const INSERTED: &'static Columns = &[("refund_of", Text), ("refund_reason", Text)];
    const SELECTED: &'static str = "t.refund_of, t.refund_reason";

    fn insert_row(values: &mut RowValues, t: &Payment) {
        values
            .text(t.purpose.refund_of().map(|r| r.collection.as_str()))
            .text(t.purpose.refund_reason());
    }

    /// A refund row without its collection is corrupt, not a refund of nothing.
    fn purpose<R: Row<Database: SqlDb>>(row: &R) -> Result<Purpose, StoreError> {
        let collection: Option<String> = row.col("refund_of")?;
        let collection = collection.ok_or_else(|| StoreError::Corrupt("a refund without its collection".into()))?;
        let reason: Option<String> = row.col("refund_reason")?;
        Ok(Purpose::Refund(RefundLink {
            collection: Reference::from_text(collection),
            reason: reason.map(RefundReason::from_stored),
        }))
    }

    /// Raises each refunded collection's `refunded` by its refunds among `created`, or fails
    /// with [`StoreError::NotRefundable`] having raised none that matters (the caller rolls back).
    async fn hold<DB: SqlDb>(tx: &mut Transaction<'_, DB>, created: &[&Payment]) -> Result<(), StoreError> {
        // Summed per collection, in key order: two refunds of one collection in one batch are one
        // update, and two batches take their collections' row locks in the same order.
        let mut held: BTreeMap<&str, (i64, &Tenant)> = BTreeMap::new();
        for t in created {
            if let Some(link) = t.purpose.refund_of() {
                held.entry(link.collection.as_str()).or_insert((0, &t.tenant)).0 += t.amounts.amount.get();
            }
        }
        for (collection, (amount, tenant)) in held {
            let raised = sqlx::query(
                "UPDATE transactions SET refunded = refunded + $1 \
                 WHERE ref = $2 AND merchant_id = $3 AND environment = $4 \
                   AND kind = 'collecte' AND status = 'SUCCESSFUL' AND refunded + $1 <= amount",
            )
            .arg(amount)
            .arg(collection)
            .arg(tenant.merchant_id.as_str())
            .arg(tenant.environment.as_str())
            .execute(DB::on(&mut **tx))
            .await?;
            if raised.rows_affected() != 1 {
                return Err(StoreError::NotRefundable);
            }
        }
        Ok(())
    }

    /// Lowers the collection's `refunded` by each refund of `done` that failed.
    async fn settle<DB: SqlDb>(tx: &mut Transaction<'_, DB>, done: &[&Settlement]) -> Result<(), StoreError> {
        for s in done {
            let t = &s.transaction;
            let (Status::Failed, Some(link)) = (s.outcome.status, t.purpose.refund_of()) else {
                continue;
            };
            sqlx::query("UPDATE transactions SET refunded = refunded - $1 WHERE ref = $2")
                .arg(t.amounts.amount)
                .arg(link.collection.as_str())
                .execute(DB::on(&mut **tx))
                .await?;
        }
        Ok(())
    }
}
