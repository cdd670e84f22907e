//! Status lookups, read in batches: the lookups of concurrent requests answered by one query.
//!
//! A lookup ([`Lookup`]: the tenant, the transaction id or reference, and the credential that
//! asks) goes to a reader task over a channel. A reader takes what is queued (up to [`MAX`]),
//! runs one query for all of it, and routes each row back to its request by its position. It
//! never waits for more: with a reader free, a lone lookup runs at once, and lookups batch only
//! when every reader is busy, that is when the database is the bottleneck. On two cores, most
//! of a one-row lookup's cost is per statement, not per row: on PostgreSQL the protocol round
//! trip, executor start-up and wake-ups; on SQLite the hand-over of each statement to its
//! connection's thread and back (two context switches), most of a one-row lookup's cost.
//!
//! Each database has its own query (`postgres`, `sqlite`), one fixed text whatever the batch
//! size, so it stays prepared on each connection. Each row is read with its own request's tenant
//! and its own credential's revocation: a merchant never sees another's transaction, and a
//! rotation refuses the next lookup at once. A lookup by a transaction id or reference looks
//! for the tenant's transaction id first, then its reference: two probes of unique indexes, as
//! an `OR` of the two columns would keep PostgreSQL from using either.

mod postgres;
mod sqlite;

use std::sync::Arc;

use async_trait::async_trait;
use sqlx::Row;

use super::sql::{Get, SqlDb};
use tokio::sync::{mpsc, oneshot, Mutex};

use super::queued::take_queued;
use super::{rows, CheckedLookup, StoreError};
use crate::domain::{Tenant, TransactionRef};

/// The most lookups one query reads.
const MAX: usize = 128;

/// Reader tasks, each running one query at a time: lookups batch once all of them are busy.
/// One per core (two to eight): a query in flight per core keeps the database busy, and more
/// only split the same lookups into smaller batches: on two cores, two readers served lookups at
/// least as fast as four, with a shorter tail.
fn readers() -> usize {
    std::thread::available_parallelism().map_or(2, |n| n.get().clamp(2, 8))
}

/// One status lookup, as its request asked it.
#[derive(Debug)]
pub(super) struct Lookup {
    pub tenant: Tenant,
    pub credential_id: String,
    pub id_or_ref: TransactionRef,
}

type Reply = oneshot::Sender<Result<CheckedLookup, StoreError>>;

/// Each lookup's own result, in order, or the error of the query as a whole.
type BatchResult = Result<Vec<Result<CheckedLookup, StoreError>>, StoreError>;

/// A database's batched lookup query.
#[async_trait]
trait BatchRead: Send + Sync + 'static {
    /// Reads `lookups` (at most [`MAX`]) in one query.
    async fn read(&self, lookups: &[Lookup]) -> BatchResult;

    /// Closes what the reader opened of its own.
    async fn close(&self);
}

/// The sending side of the readers.
pub(super) struct LookupBatcher {
    queue: mpsc::Sender<(Lookup, Reply)>,
    reader: Arc<dyn BatchRead>,
}

impl LookupBatcher {
    /// Starts the reader tasks on connections of their own to PostgreSQL at `url` (opened when
    /// first needed); they stop when the batcher is dropped.
    pub fn postgres(url: &str) -> Result<LookupBatcher, StoreError> {
        Ok(LookupBatcher::start(Arc::new(postgres::PgBatchRead::connect(url)?)))
    }

    /// Starts the reader tasks on SQLite's pool of readers.
    pub fn sqlite(pool: sqlx::SqlitePool) -> LookupBatcher {
        LookupBatcher::start(Arc::new(sqlite::SqliteBatchRead { pool }))
    }

    fn start(reader: Arc<dyn BatchRead>) -> LookupBatcher {
        let (queue, receiver) = mpsc::channel(MAX * readers() * 4);
        let receiver = Arc::new(Mutex::new(receiver));
        for _ in 0..readers() {
            tokio::spawn(read_loop(reader.clone(), receiver.clone()));
        }
        LookupBatcher { queue, reader }
    }

    /// Closes the readers' own connections, waiting for a query in flight (graceful shutdown).
    pub async fn close(&self) {
        self.reader.close().await;
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

async fn read_loop(reader: Arc<dyn BatchRead>, receiver: Arc<Mutex<mpsc::Receiver<(Lookup, Reply)>>>) {
    loop {
        let batch = {
            let mut receiver = receiver.lock().await;
            let Some(batch) = take_queued(&mut receiver, MAX).await else {
                return;
            };
            batch
        };
        let (lookups, replies): (Vec<Lookup>, Vec<Reply>) = batch.into_iter().unzip();
        match reader.read(&lookups).await {
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

/// The rows of a batch, each with `n` (its lookup's position, from 1), `credential_active`
/// (`NULL` when the credential does not exist) and the transaction's columns (`NULL` when the
/// tenant has no such transaction), as each of `lookups` lookups' result, in order.
fn answers<R: Row<Database: SqlDb>>(lookups: usize, found: &[R]) -> BatchResult {
    // A row that does not decode fails its own lookup, not the batch's.
    let checked = |row: &R| -> Result<CheckedLookup, StoreError> {
        let active: Option<bool> = row.col("credential_active")?;
        let id: Option<String> = row.col("id")?;
        Ok(CheckedLookup {
            credential_active: active == Some(true),
            record: id.map(|_| rows::transaction_record(row)).transpose()?,
        })
    };
    let mut results: Vec<Option<Result<CheckedLookup, StoreError>>> = (0..lookups).map(|_| None).collect();
    for row in found {
        let n: i64 = row.col("n")?;
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
