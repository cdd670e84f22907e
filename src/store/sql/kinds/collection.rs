//! A collection: where its payer returns, its checkout (Wave's session), the link it was paid
//! through and how much of it is refunded; and its hold on its link. A link's `held` counts its payments that
//! are not `FAILED`, and its `max_payments` limits that count: recording a payment raises it
//! with one conditional update in the payment's own transaction, which finds no row when the
//! link is not the payment's tenant's, is deactivated, has expired at the payment's creation or
//! is full, so payers who pay at once are settled by the database (each update waits for the
//! previous one's row lock). Settling the payment lowers `held` again when it failed, and
//! counts it in `paid` and `collected` when it succeeded.

use std::collections::BTreeMap;

use sqlx::{Row, Transaction};

use super::super::row_values::{ColumnType::Text, Columns, RowValues};
use super::super::{Args, Get, RowsAffected, SqlDb};
use super::KindSteps;
use crate::domain::purpose::{self, ReturnUrls};
use crate::domain::{LinkId, Purpose, Status, Tenant, Timestamp, Transaction as Payment};
use crate::store::{Settlement, StoreError};

pub(super) struct Collection;

impl KindSteps for Collection {
    const STORED: &'static str = "collecte";
    const INSERTED: &'static Columns = &[
        ("success_url", Text),
        ("error_url", Text),
        ("checkout_token", Text),
        ("link_id", Text),
    ];
    const SELECTED: &'static str = "t.success_url, t.error_url, t.checkout_token, t.launch_url, t.link_id, t.refunded";

    fn insert_row(values: &mut RowValues, t: &Payment) {
        values
            .text(t.purpose.return_url(true))
            .text(t.purpose.return_url(false))
            .text(t.purpose.checkout_token())
            .text(t.purpose.link().map(LinkId::as_str));
    }

    fn purpose<R: Row<Database: SqlDb>>(row: &R) -> Result<Purpose, StoreError> {
        Ok(Purpose::Collection(purpose::Collection {
            return_urls: ReturnUrls {
                success: row.col("success_url")?,
                error: row.col("error_url")?,
            },
            checkout_token: row.col("checkout_token")?,
            launch_url: row.col("launch_url")?,
            link: row.col::<Option<String>>("link_id")?.map(LinkId::from_stored),
            refunded: row.col("refunded")?,
        }))
    }

    /// Raises each link's `held` by its payments among `created`, or fails with
    /// [`StoreError::LinkClosed`] (the caller rolls back).
    async fn hold<DB: SqlDb>(tx: &mut Transaction<'_, DB>, created: &[&Payment]) -> Result<(), StoreError> {
        // Summed per link, in key order: two batches take their links' row locks in one order.
        let mut held: BTreeMap<&str, (i64, &Tenant, Timestamp)> = BTreeMap::new();
        for t in created {
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
    async fn settle<DB: SqlDb>(tx: &mut Transaction<'_, DB>, done: &[&Settlement]) -> Result<(), StoreError> {
        for s in done {
            let t = &s.transaction;
            let Some(link) = t.purpose.link() else {
                continue;
            };
            let counted = match s.outcome.status {
                Status::Failed => {
                    sqlx::query("UPDATE payment_links SET held = held - 1 WHERE id = $1").arg(link.as_str())
                }
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
}
