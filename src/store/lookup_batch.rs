//! Status lookups on PostgreSQL, read in batches: the lookups of concurrent requests answered by
//! one query.
//!
//! A lookup ([`Lookup`]: the tenant, the transaction id or reference, and the credential that
//! asks) goes to a reader task over a channel. A reader takes what is queued (up to [`MAX`]),
//! runs one query for all of it, and routes each row back to its request by its position. It
//! never waits for more: with a reader free, a lone lookup runs at once, and lookups batch only
//! when every reader is busy, that is when the database is the bottleneck. On two cores shared
//! by the gateway and PostgreSQL, most of a one-row lookup's cost in PostgreSQL is per statement
//! (protocol round trip, executor start-up, wake-ups), not per row.
//!
//! The query is one fixed text whatever the batch size (arrays in `UNNEST`), so it stays
//! prepared on each connection. Each row is read with its own request's tenant and its own
//! credential's revocation, exactly as the single-row lookup (`CHECKED_LOOKUP`) reads them: a
//! merchant never sees another's transaction, and a rotation refuses the next lookup at once.

use std::str::FromStr;
use std::sync::{Arc, LazyLock};
use std::time::Duration;

use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};
use sqlx::Row;
use tokio::sync::{mpsc, oneshot, Mutex};

use super::queued::take_queued;
use super::sql::transactions::{TRANSACTION_COLUMNS, TRANSACTION_FROM};
use super::{rows, CheckedLookup, StoreError};
use crate::domain::Tenant;

/// The most lookups one query reads.
const MAX: usize = 128;

/// Reader tasks, each running one query at a time: lookups batch once all of them are busy.
const READERS: usize = 4;

/// One status lookup, as its request asked it.
#[derive(Debug)]
pub(super) struct Lookup {
    pub tenant: Tenant,
    pub credential_id: String,
    pub id_or_ref: String,
}

type Reply = oneshot::Sender<Result<CheckedLookup, StoreError>>;

/// The sending side of the readers.
pub(super) struct LookupBatcher {
    queue: mpsc::Sender<(Lookup, Reply)>,
    pool: PgPool,
}

/// One row per lookup, `n` its position in the arrays (from 1). `credential_active` is `NULL`
/// when the credential does not exist; the transaction's columns are `NULL` when the tenant
/// has no such transaction. Per lookup: the credential by its key, then the transaction by the
/// tenant's transaction id or else by reference (two unique indexes, as `CHECKED_LOOKUP`), with
/// its customer by key, all inside the `LATERAL` so each is an index probe whatever the planner
/// thinks of the batch's size.
static BATCH_LOOKUP: LazyLock<String> = LazyLock::new(|| {
    let (columns, from) = (TRANSACTION_COLUMNS, TRANSACTION_FROM);
    format!(
        "SELECT q.n, \
           (SELECT cr.revoked_at IS NULL FROM credentials cr WHERE cr.id = q.credential_id) AS credential_active, \
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

impl LookupBatcher {
    /// Starts the reader tasks on connections of their own to `url` (opened when first
    /// needed); they stop when the batcher is dropped.
    pub fn start(url: &str) -> Result<LookupBatcher, StoreError> {
        // One connection per reader, apart from the pool of the writes: lookups never wait
        // for a connection behind a burst of writes, nor writes behind lookups. The plan is
        // generic: PostgreSQL would otherwise plan the query again for each batch, since a
        // custom plan looks cheaper for the few lookups of a typical batch, and planning this
        // query costs more than running it for a handful of lookups.
        let options = PgConnectOptions::from_str(url)
            .map_err(|e| StoreError::Unavailable(format!("invalid PostgreSQL URL: {e}")))?
            .options([("plan_cache_mode", "force_generic_plan")]);
        let pool = PgPoolOptions::new()
            .max_connections(READERS as u32)
            .acquire_timeout(Duration::from_secs(10))
            .connect_lazy_with(options);
        let (queue, receiver) = mpsc::channel(MAX * READERS * 4);
        let receiver = Arc::new(Mutex::new(receiver));
        for _ in 0..READERS {
            tokio::spawn(read_loop(pool.clone(), receiver.clone()));
        }
        Ok(LookupBatcher { queue, pool })
    }

    /// Closes the readers' connections, waiting for a query in flight (graceful shutdown).
    pub async fn close(&self) {
        self.pool.close().await;
    }

    /// Runs `lookup` in the next batch.
    pub async fn lookup(&self, lookup: Lookup) -> Result<CheckedLookup, StoreError> {
        let (reply, answer) = oneshot::channel();
        self.queue
            .send((lookup, reply))
            .await
            .map_err(|_| StoreError::Unavailable("the lookup readers have stopped".into()))?;
        answer
            .await
            .map_err(|_| StoreError::Unavailable("the lookup readers stopped during the lookup".into()))?
    }
}

async fn read_loop(pool: PgPool, receiver: Arc<Mutex<mpsc::Receiver<(Lookup, Reply)>>>) {
    loop {
        let batch = {
            let mut receiver = receiver.lock().await;
            let Some(batch) = take_queued(&mut receiver, MAX).await else {
                return;
            };
            batch
        };
        let (lookups, replies): (Vec<Lookup>, Vec<Reply>) = batch.into_iter().unzip();
        match read_batch(&pool, &lookups).await {
            Ok(results) => {
                for (reply, result) in replies.into_iter().zip(results) {
                    let _ = reply.send(result);
                }
            }
            Err(e) => {
                for reply in replies {
                    let _ = reply.send(Err(e.clone()));
                }
            }
        }
    }
}

/// Reads `lookups` in one query: each lookup's own result, in order, or the query's error.
async fn read_batch(pool: &PgPool, lookups: &[Lookup]) -> Result<Vec<Result<CheckedLookup, StoreError>>, StoreError> {
    let column = |f: fn(&Lookup) -> &str| lookups.iter().map(f).collect::<Vec<&str>>();
    let found = sqlx::query(&BATCH_LOOKUP)
        .bind(column(|l| l.tenant.merchant_id.0.as_str()))
        .bind(column(|l| l.tenant.environment.as_str()))
        .bind(column(|l| l.id_or_ref.as_str()))
        .bind(column(|l| l.credential_id.as_str()))
        .fetch_all(pool)
        .await?;
    let mut results: Vec<Option<Result<CheckedLookup, StoreError>>> = lookups.iter().map(|_| None).collect();
    for row in &found {
        let n: i64 = row.try_get("n")?;
        let slot = usize::try_from(n - 1)
            .ok()
            .and_then(|i| results.get_mut(i))
            .ok_or_else(|| StoreError::Corrupt(format!("a lookup batch answered position {n}")))?;
        *slot = Some(checked(row));
    }
    results
        .into_iter()
        .map(|r| r.ok_or_else(|| StoreError::Corrupt("a lookup batch left a lookup unanswered".into())))
        .collect()
}

/// One row of [`BATCH_LOOKUP`] as the lookup's result.
fn checked(row: &sqlx::postgres::PgRow) -> Result<CheckedLookup, StoreError> {
    let active: Option<bool> = row.try_get("credential_active")?;
    let found: Option<String> = row.try_get("id")?;
    Ok(CheckedLookup {
        credential_active: active == Some(true),
        record: found.map(|_| rows::transaction_record(row)).transpose()?,
    })
}
