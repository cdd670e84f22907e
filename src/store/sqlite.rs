//! The SQLite store: the embedded default. Durable (WAL, `synchronous = FULL`), foreign keys
//! on, and one writer connection so concurrent writers queue in the pool instead of failing
//! with `SQLITE_BUSY`; readers use their own pool and never block the writer.

use std::path::Path;
use std::str::FromStr;
use std::time::Duration;

use sqlx::sqlite::{
    SqliteConnectOptions, SqliteConnection, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous,
};
use sqlx::{Connection, Sqlite};

use super::lookup_batch::LookupBatcher;
use super::sql::balance_locks::BalanceLocking;
use super::sql::writer::{BatchSettings, Batcher};
use super::sql::writer_home::WriterHome;
use super::sql::Backend;
use super::{migrations, StoreError};

pub struct SqliteStore {
    reader: SqlitePool,
    writer: SqlitePool,
    batcher: Batcher,
    lookups: LookupBatcher,
    checkpoints: tokio::task::JoinHandle<()>,
}

/// How often the checkpointer copies what the WAL holds into the database file.
const CHECKPOINT_EVERY: Duration = Duration::from_millis(100);
/// The WAL's size (in pages of 4 KiB) past which it is started over: SQLite's own default
/// for its automatic checkpoints, so the WAL stays the size it had with them.
const WAL_RESTART_FRAMES: i64 = 1000;
/// The WAL file's size that a restart leaves it (`journal_size_limit`). Under load the WAL holds
/// several times `WAL_RESTART_FRAMES` by the time a restart comes. Cut back at each restart, the
/// file then had to grow again, and each commit that grew it paid for the allocation in its
/// `fsync`; kept at the size it reaches, the writer spends less time in `COMMIT`
/// (docs/performance.md, Where the time goes). A file grown past this by a burst (a long reader holding restarts off)
/// is still cut back.
const WAL_KEPT_BYTES: i64 = 64 * 1024 * 1024;
/// How long a restart waits for the readers still in the WAL before it gives up.
const RESTART_WAIT: Duration = Duration::from_millis(250);
/// How long a connection waits for a lock (only the checkpoints ever meet one).
const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

impl Drop for SqliteStore {
    fn drop(&mut self) {
        self.checkpoints.abort();
    }
}

impl SqliteStore {
    /// Opens (creating if needed) the database file of `url` and migrates it.
    pub async fn connect(url: &str, batching: BatchSettings) -> Result<SqliteStore, StoreError> {
        let options = SqliteConnectOptions::from_str(url)
            .map_err(|e| StoreError::Unavailable(format!("invalid SQLite URL {url:?}: {e}")))?
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Full)
            .foreign_keys(true)
            .busy_timeout(BUSY_TIMEOUT);
        if let Some(dir) = Path::new(options.get_filename()).parent() {
            if !dir.as_os_str().is_empty() {
                std::fs::create_dir_all(dir)
                    .map_err(|e| StoreError::Unavailable(format!("cannot create {}: {e}", dir.display())))?;
            }
        }
        // Migrations run on a connection of their own, before the writer's opens: the writer
        // keeps its temporary files in memory (below), and a migration that builds an index
        // over a large table sorts more than memory should hold.
        let mut migrating = SqliteConnection::connect_with(&options).await?;
        migrations::sqlite()
            .run(&mut migrating)
            .await
            .map_err(|e| StoreError::Unavailable(format!("migration failed: {e}")))?;
        migrating.close().await?;
        // The writer never checkpoints: by default the commit that fills the WAL past 1,000
        // pages copies them into the database file and syncs it, on the one writer thread that
        // every write queues for. A connection of its own does it (`checkpoint_loop`), on
        // another thread, while the writer goes on. Commits stay as durable (the WAL is synced
        // at each); only where the pages live meanwhile changes. A WAL file grown by a burst is
        // cut back to `WAL_KEPT_BYTES` when it starts over.
        //
        // Its temporary files stay in memory (`temp_store`): a multi-row statement of a batch
        // keeps the pages it changes in a statement journal, in case it must be rolled back
        // alone, and past 64 KiB SQLite moved that journal to a file it created and deleted in
        // /var/tmp, many times a second under load, on the writer's path.
        let writer = SqlitePoolOptions::new()
            .max_connections(1)
            .acquire_timeout(Duration::from_secs(30))
            .after_release(|conn, _| Box::pin(async move { Ok(out_of_transactions(conn).await) }))
            .connect_with(
                options
                    .clone()
                    .pragma("wal_autocheckpoint", "0")
                    .pragma("journal_size_limit", WAL_KEPT_BYTES.to_string())
                    .pragma("temp_store", "memory"),
            )
            .await?;
        // Eight readers: each SQLite connection works on a thread of its own; with fewer the
        // status lookups queue for a connection, and more only add threads competing for the
        // cores.
        let reader = SqlitePoolOptions::new()
            .max_connections(8)
            .connect_with(options.clone().read_only(true))
            .await?;
        let checkpointer = SqlitePoolOptions::new()
            .max_connections(1)
            .connect_with(options.clone())
            .await?;
        let checkpoints = tokio::spawn(checkpoint_loop(checkpointer, writer.clone()));
        // One writer connection: one batch writer.
        let batcher = Batcher::start(
            writer.clone(),
            WriterHome::Shared,
            BatchSettings { writers: 1, ..batching },
            BalanceLocking::Serial,
        )?;
        let lookups = LookupBatcher::sqlite(reader.clone());
        Ok(SqliteStore {
            reader,
            writer,
            batcher,
            lookups,
            checkpoints,
        })
    }
}

/// Copies the WAL into the database file every `CHECKPOINT_EVERY`, on a connection and a
/// thread of its own, without waiting for the writer or the readers (`PASSIVE`).
///
/// A passive checkpoint never starts the WAL over: SQLite rewinds it only when a write
/// transaction begins while every frame has been copied and no reader reads from it, and the
/// writer, busy with one batch after another, never begins at such a moment. Left at that, the
/// WAL grows without end under sustained load, until the disk is full.
/// So once it holds `WAL_RESTART_FRAMES`, the writer connection itself is taken from its pool
/// (no write runs meanwhile, and no second writer ever waits on a lock) for a `RESTART`
/// checkpoint: it copies the few frames left and waits for the readers still in the WAL, so the
/// writer's next transaction starts it over. A reader that keeps it longer (a long export)
/// makes the restart give up after `RESTART_WAIT` rather than hold every write; the next pass
/// tries again.
async fn checkpoint_loop(checkpointer: SqlitePool, writer: SqlitePool) {
    let mut every = tokio::time::interval(CHECKPOINT_EVERY);
    every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        every.tick().await;
        match checkpoint(&checkpointer, "PASSIVE").await {
            Ok(frames) if frames >= WAL_RESTART_FRAMES => {
                if let Err(e) = restart_wal(&writer).await {
                    tracing::warn!(error = %e, frames, "WAL restart failed; trying again shortly");
                }
            }
            Ok(_) => {}
            Err(e) => tracing::warn!(error = %e, "WAL checkpoint failed; trying again shortly"),
        }
    }
}

/// Runs a checkpoint of `mode` and returns how many frames the WAL holds.
async fn checkpoint<'c>(conn: impl sqlx::SqliteExecutor<'c>, mode: &str) -> Result<i64, sqlx::Error> {
    // (busy, frames in the WAL, frames copied): a busy or partial pass is tried again later.
    let (_, frames, _): (i64, i64, i64) = sqlx::query_as(&format!("PRAGMA wal_checkpoint({mode})"))
        .fetch_one(conn)
        .await?;
    Ok(frames)
}

/// A `RESTART` checkpoint on the writer connection, waiting at most `RESTART_WAIT` for readers.
async fn restart_wal(writer: &SqlitePool) -> Result<(), sqlx::Error> {
    let mut conn = writer.acquire().await?;
    sqlx::query(&format!("PRAGMA busy_timeout = {}", RESTART_WAIT.as_millis()))
        .execute(&mut *conn)
        .await?;
    let restarted = checkpoint(&mut *conn, "RESTART").await;
    sqlx::query(&format!("PRAGMA busy_timeout = {}", BUSY_TIMEOUT.as_millis()))
        .execute(&mut *conn)
        .await?;
    restarted.map(|_| ())
}

/// Whether a writer connection given back to the pool is out of every transaction, as sqlx
/// counts them. On `SQLITE_FULL` or an I/O error SQLite may roll the whole transaction back on its
/// own; sqlx's `ROLLBACK` (or `ROLLBACK TO SAVEPOINT`) then fails and its count stays above
/// zero, so the connection's next `begin` would be a `SAVEPOINT` and its `commit` a `RELEASE`:
/// once a `ROLLBACK TO` has left a savepoint open, nothing would ever commit again, while every
/// write still answered "done". Such a connection is closed, and the pool opens a fresh one.
async fn out_of_transactions(conn: &mut sqlx::SqliteConnection) -> bool {
    use sqlx::{Database, TransactionManager};
    // A transaction dropped on an error path queued its rollback: let it run first.
    if conn.ping().await.is_err() {
        return false;
    }
    <Sqlite as Database>::TransactionManager::get_transaction_depth(conn) == 0
}

impl Backend for SqliteStore {
    type Db = Sqlite;

    /// SQLite's single writer connection serializes claims.
    const CLAIM_DUE_EVENTS: &'static str = "UPDATE outbox_events SET lease_until = $1, lease_token = $2 WHERE id IN (\
        SELECT id FROM outbox_events WHERE state = 'pending' AND next_attempt_at <= $3 \
        AND (lease_until IS NULL OR lease_until <= $3) ORDER BY next_attempt_at LIMIT $4) \
        RETURNING id, merchant_id, environment, payload, attempts, lease_token, next_attempt_at";

    /// SQLite's single writer connection serializes claims.
    const CLAIM_QUEUED: &'static str =
        "UPDATE transactions SET queued_at = NULL, next_check_at = $1, check_token = $2 \
        WHERE id IN (SELECT id FROM transactions WHERE queued_at IS NOT NULL AND operator = $3 \
        AND merchant_id = $5 AND environment = $6 ORDER BY queued_at LIMIT $4)";

    /// The one writer connection serializes every write transaction.
    const LOCK_TENANT: &'static str =
        "SELECT 1 AS locked FROM merchant_environments WHERE merchant_id = $1 AND environment = $2";

    const LOCKING: BalanceLocking = BalanceLocking::Serial;

    const CLAIM_DUE_CHECKS: &'static str = "UPDATE transactions SET next_check_at = $1, check_token = $2 WHERE id IN (\
        SELECT id FROM transactions WHERE status = 'PENDING' AND next_check_at <= $4 \
        AND created_at <= $3 AND ($6 = '' OR kind = $6) ORDER BY next_check_at LIMIT $5)";

    /// SQLite's single writer connection serializes purges. An expired key whose request is
    /// still running (no answer, lease not lapsed) stays: see `Backend::PURGE_IDEMPOTENCY_KEYS`.
    const PURGE_IDEMPOTENCY_KEYS: &'static str = "DELETE FROM idempotency_keys WHERE rowid IN (\
        SELECT rowid FROM idempotency_keys WHERE expires_at <= $1 \
        AND (response_status IS NOT NULL OR locked_until <= $1) LIMIT $2)";

    fn reader(&self) -> &SqlitePool {
        &self.reader
    }

    fn writer(&self) -> &SqlitePool {
        &self.writer
    }

    fn batch_writer(&self) -> &SqlitePool {
        &self.writer
    }

    fn batcher(&self) -> &Batcher {
        &self.batcher
    }

    fn lookups(&self) -> &LookupBatcher {
        &self.lookups
    }

    /// Open and idle connections of both pools.
    fn pool_stats(&self) -> (u32, u32) {
        (
            self.reader.size() + self.writer.size(),
            (self.reader.num_idle() + self.writer.num_idle()) as u32,
        )
    }
}
