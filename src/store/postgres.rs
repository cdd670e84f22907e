//! The PostgreSQL store, for production and for several gateway processes on one database.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use sqlx::postgres::{PgPool, PgPoolOptions};
use sqlx::Postgres;

use super::lookup_batch::LookupBatcher;
use super::sql::balance_locks::BalanceLocking;
use super::sql::writer::{BatchSettings, Batcher};
use super::sql::writer_home::WriterHome;
use super::sql::Backend;
use super::{migrations, StoreError};

pub struct PostgresStore {
    pool: PgPool,
    /// The batch writers' own connections, one each, opened on their thread when first used.
    batch_pool: PgPool,
    batcher: Batcher,
    lookups: LookupBatcher,
    /// An `ANALYZE` after a bulk insert is running: another bulk insert meanwhile needs none.
    analyzing: Arc<AtomicBool>,
}

impl PostgresStore {
    /// Connects to `url` and migrates the database.
    pub async fn connect(url: &str, batching: BatchSettings) -> Result<PostgresStore, StoreError> {
        let pool = PgPoolOptions::new()
            .max_connections(16)
            .acquire_timeout(Duration::from_secs(10))
            .connect(url)
            .await?;
        migrations::postgres()
            .run(&pool)
            .await
            .map_err(|e| StoreError::Unavailable(format!("migration failed: {e}")))?;
        // No idle timeout or lifetime: sqlx would reap them from a task on the runtime that
        // builds the pool (this one), not the writers', whose reactor their sockets belong to.
        // A broken connection is still replaced: the pool pings one before handing it out.
        let batch_pool = PgPoolOptions::new()
            .max_connections(Batcher::writer_count(&batching, BalanceLocking::CreditSlots) as u32)
            .acquire_timeout(Duration::from_secs(10))
            .idle_timeout(None)
            .max_lifetime(None)
            .connect_lazy_with(url.parse()?);
        let batcher = Batcher::start(
            batch_pool.clone(),
            WriterHome::OwnThread,
            batching,
            BalanceLocking::CreditSlots,
        )?;
        let lookups = LookupBatcher::postgres(url)?;
        Ok(PostgresStore {
            pool,
            batch_pool,
            batcher,
            lookups,
            analyzing: Arc::default(),
        })
    }
}

impl Backend for PostgresStore {
    type Db = Postgres;

    /// Rows another dispatcher is claiming are skipped, not waited for.
    const CLAIM_DUE_EVENTS: &'static str = "UPDATE outbox_events SET lease_until = $1, lease_token = $2 WHERE id IN (\
        SELECT id FROM outbox_events WHERE state = 'pending' AND next_attempt_at <= $3 \
        AND (lease_until IS NULL OR lease_until <= $3) ORDER BY next_attempt_at LIMIT $4 FOR UPDATE SKIP LOCKED) \
        RETURNING id, merchant_id, environment, payload, attempts, lease_token, next_attempt_at";

    /// Rows another reconciler is claiming are skipped, not waited for.
    const CLAIM_QUEUED: &'static str =
        "UPDATE transactions SET queued_at = NULL, next_check_at = $1, check_token = $2 \
        WHERE id IN (SELECT id FROM transactions WHERE queued_at IS NOT NULL AND operator = $3 \
        AND merchant_id = $5 AND environment = $6 ORDER BY queued_at LIMIT $4 FOR UPDATE SKIP LOCKED)";

    /// `NO KEY UPDATE`, not `UPDATE`: it does not conflict with the `KEY SHARE` locks that the
    /// inserts of the merchant's other payments take on the row (their foreign keys), so it
    /// neither holds them up nor deadlocks with a write batch that holds the balance row.
    const LOCK_TENANT: &'static str =
        "SELECT 1 AS locked FROM merchant_environments WHERE merchant_id = $1 AND environment = $2 FOR NO KEY UPDATE";

    const LOCKING: BalanceLocking = BalanceLocking::CreditSlots;

    const CLAIM_DUE_CHECKS: &'static str = "UPDATE transactions SET next_check_at = $1, check_token = $2 WHERE id IN (\
        SELECT id FROM transactions WHERE status = 'PENDING' AND next_check_at <= $4 \
        AND created_at <= $3 AND ($6 = '' OR kind = $6) ORDER BY next_check_at LIMIT $5 FOR UPDATE SKIP LOCKED)";

    /// Rows another purger is deleting are skipped, not waited for. An expired key whose
    /// request is still running (no answer, lease not lapsed) stays: see
    /// `Backend::PURGE_IDEMPOTENCY_KEYS`.
    const PURGE_IDEMPOTENCY_KEYS: &'static str = "DELETE FROM idempotency_keys WHERE ctid IN (\
        SELECT ctid FROM idempotency_keys WHERE expires_at <= $1 \
        AND (response_status IS NOT NULL OR locked_until <= $1) LIMIT $2 FOR UPDATE SKIP LOCKED)";

    fn reader(&self) -> &PgPool {
        &self.pool
    }

    fn writer(&self) -> &PgPool {
        &self.pool
    }

    fn batch_writer(&self) -> &PgPool {
        &self.batch_pool
    }

    fn batcher(&self) -> &Batcher {
        &self.batcher
    }

    fn lookups(&self) -> &LookupBatcher {
        &self.lookups
    }

    fn after_bulk_insert(&self) {
        if self.analyzing.swap(true, Ordering::AcqRel) {
            return;
        }
        let (pool, analyzing) = (self.pool.clone(), self.analyzing.clone());
        tokio::spawn(async move {
            // A sample of each table (`default_statistics_target`), not a scan: tens of
            // milliseconds, on a connection of the shared pool.
            if let Err(e) = sqlx::query("ANALYZE transactions, customers").execute(&pool).await {
                tracing::warn!(error = %e, "cannot refresh the statistics after a bulk insert; autovacuum will");
            }
            analyzing.store(false, Ordering::Release);
        });
    }

    fn pool_stats(&self) -> (u32, u32) {
        // The shared pool only: the writers' connections, idle between batches, would hide its
        // saturation; theirs shows in the writers' busy time.
        (self.pool.size(), self.pool.num_idle() as u32)
    }
}
