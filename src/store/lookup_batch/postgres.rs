//! The batched lookup on PostgreSQL: the lookups as arrays, one `UNNEST` row each, on
//! connections of the readers' own with a generic plan.

use std::str::FromStr;
use std::sync::LazyLock;
use std::time::Duration;

use async_trait::async_trait;
use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};

use super::{answers, readers, BatchRead, BatchResult, Lookup};
use crate::store::sql::transactions::{TRANSACTION_COLUMNS, TRANSACTION_FROM};
use crate::store::StoreError;

/// One row per lookup, `n` its position in the arrays (from 1). Per lookup: the credential by
/// its key, then the transaction by the tenant's transaction id or else by reference (two
/// unique indexes), with its customer by key, all inside the `LATERAL` so
/// each is an index probe whatever the planner thinks of the batch's size.
static BATCH_LOOKUP: LazyLock<String> = LazyLock::new(|| {
    let (columns, from) = (TRANSACTION_COLUMNS.as_str(), TRANSACTION_FROM);
    format!(
        "SELECT q.n, \
           (SELECT cr.revoked_at IS NULL AND cr.merchant_id = q.merchant_id AND cr.environment = q.environment \
              FROM credentials cr WHERE cr.id = q.credential_id) AS credential_active, \
           found.* \
         FROM UNNEST($1::text[], $2::text[], $3::text[], $4::text[]) \
           WITH ORDINALITY AS q(merchant_id, environment, id_or_ref, credential_id, n) \
         LEFT JOIN LATERAL ( \
           SELECT {columns}, 0 AS preference FROM {from} \
             WHERE t.merchant_id = q.merchant_id AND t.environment = q.environment AND t.transaction_id = q.id_or_ref \
           UNION ALL \
           SELECT {columns}, 1 AS preference FROM {from} \
             WHERE t.merchant_id = q.merchant_id AND t.environment = q.environment AND t.ref = q.id_or_ref \
           ORDER BY preference LIMIT 1 \
         ) AS found ON true"
    )
});

pub(super) struct PgBatchRead {
    pool: PgPool,
}

impl PgBatchRead {
    /// The readers' pool, opened when first needed.
    pub fn connect(url: &str) -> Result<PgBatchRead, StoreError> {
        // One connection per reader, apart from the pool of the writes: lookups never wait
        // for a connection behind a burst of writes, nor writes behind lookups. The plan is
        // generic: PostgreSQL would otherwise plan the query again for each batch, since a
        // custom plan looks cheaper for the few lookups of a typical batch, and planning this
        // query costs more than running it for a handful of lookups.
        let options = PgConnectOptions::from_str(url)
            .map_err(|e| StoreError::Unavailable(format!("invalid PostgreSQL URL: {e}")))?
            .options([("plan_cache_mode", "force_generic_plan")]);
        let pool = PgPoolOptions::new()
            .max_connections(readers() as u32)
            .acquire_timeout(Duration::from_secs(10))
            .connect_lazy_with(options);
        Ok(PgBatchRead { pool })
    }
}

#[async_trait]
impl BatchRead for PgBatchRead {
    async fn read(&self, lookups: &[Lookup]) -> BatchResult {
        let column = |f: fn(&Lookup) -> &str| lookups.iter().map(f).collect::<Vec<&str>>();
        let found = sqlx::query(&BATCH_LOOKUP)
            .bind(column(|l| l.tenant.merchant_id.as_str()))
            .bind(column(|l| l.tenant.environment.as_str()))
            .bind(column(|l| l.id_or_ref.as_str()))
            .bind(column(|l| l.credential_id.as_str()))
            .fetch_all(&self.pool)
            .await?;
        answers(lookups.len(), &found)
    }

    async fn close(&self) {
        self.pool.close().await;
    }
}
