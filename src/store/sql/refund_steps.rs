//! A refund's hold on its collection. A collection's `refunded` is the sum of its refunds that
//! are not `FAILED`: creating a refund raises it with one conditional update, in the refund's
//! own transaction, which finds no row when the collection is not a `SUCCESSFUL` collection of
//! the refund's tenant or has less left than the refund asks (so concurrent refunds are
//! settled by the database: each update waits for the previous one's row lock); a refund that
//! fails lowers it again in the transaction that settles it. Refunds are rare, so one
//! statement per collection rather than a set.

use std::collections::BTreeMap;

use sqlx::Transaction;

use super::insert_set::Creation;
use super::{Args, RowsAffected, SqlDb};
use crate::domain::Status;
use crate::store::{Settlement, StoreError};

/// Raises each refunded collection's `refunded` by its refunds among `creations`, or fails
/// with [`StoreError::NotRefundable`] having raised none that matters (the caller rolls back).
pub(super) async fn hold<DB: SqlDb>(
    tx: &mut Transaction<'_, DB>,
    creations: &[Creation<'_>],
) -> Result<(), StoreError> {
    // Summed per collection, in key order: two refunds of one collection in one batch are one
    // update, and two batches take their collections' row locks in the same order.
    let mut held: BTreeMap<&str, (i64, &crate::domain::Tenant)> = BTreeMap::new();
    for c in creations {
        let t = c.transaction;
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
pub(super) async fn release<DB: SqlDb>(tx: &mut Transaction<'_, DB>, done: &[&Settlement]) -> Result<(), StoreError> {
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
