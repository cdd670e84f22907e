//! A payment's hold on the link it was paid through. A link's `held` counts its payments that
//! are not `FAILED`, and its `max_payments` limits that count: recording a payment raises it
//! with one conditional update in the payment's own transaction, which finds no row when the
//! link is not the payment's tenant's, is deactivated, has expired at the payment's creation or
//! is full, so payers who pay at once are settled by the database (each update waits for the
//! previous one's row lock). Settling the payment lowers `held` again when it failed, and
//! counts it in `paid` and `collected` when it succeeded.

use std::collections::BTreeMap;

use sqlx::Transaction;

use super::insert_set::Creation;
use super::{Args, RowsAffected, SqlDb};
use crate::domain::{Status, Tenant, Timestamp};
use crate::store::{Settlement, StoreError};

/// Raises each link's `held` by its payments among `creations`, or fails with
/// [`StoreError::LinkClosed`] (the caller rolls back).
pub(super) async fn hold<DB: SqlDb>(
    tx: &mut Transaction<'_, DB>,
    creations: &[Creation<'_>],
) -> Result<(), StoreError> {
    // Summed per link, in key order: two batches take their links' row locks in one order.
    let mut held: BTreeMap<&str, (i64, &Tenant, Timestamp)> = BTreeMap::new();
    for c in creations {
        let t = c.transaction;
        if let Some(link) = t.purpose.link() {
            held.entry(link.as_str()).or_insert((0, &t.tenant, t.created_at)).0 += 1;
        }
    }
    for (link, (payments, tenant, at)) in held {
        let raised = sqlx::query(
            "UPDATE payment_links SET held = held + $1 \
             WHERE id = $2 AND merchant_id = $3 AND environment = $4 AND deactivated_at IS NULL \
               AND (expires_at IS NULL OR expires_at > $5) \
               AND (max_payments IS NULL OR held + $1 <= max_payments)",
        )
        .arg(payments)
        .arg(link)
        .arg(tenant.merchant_id.as_str())
        .arg(tenant.environment.as_str())
        .arg(at.millis())
        .execute(DB::on(&mut **tx))
        .await?;
        if raised.rows_affected() != 1 {
            return Err(StoreError::LinkClosed);
        }
    }
    Ok(())
}

/// Counts each payment of `done` paid through a link on its link.
pub(super) async fn settle<DB: SqlDb>(tx: &mut Transaction<'_, DB>, done: &[&Settlement]) -> Result<(), StoreError> {
    for s in done {
        let t = &s.transaction;
        let Some(link) = t.purpose.link() else {
            continue;
        };
        let counted = match s.outcome.status {
            Status::Failed => sqlx::query("UPDATE payment_links SET held = held - 1 WHERE id = $1").arg(link.as_str()),
            Status::Successful => {
                sqlx::query("UPDATE payment_links SET paid = paid + 1, collected = collected + $2 WHERE id = $1")
                    .arg(link.as_str())
                    .arg(t.amounts.amount)
            }
            Status::Pending => continue,
        };
        counted.execute(DB::on(&mut **tx)).await?;
    }
    Ok(())
}
