//! Group commit: the writes of many concurrent requests in one database transaction.
//!
//! A request's write (a `PENDING` insert with its reservation, a settlement with its postings
//! and outbox event) goes to a writer task over a channel. The writer takes what is queued (up
//! to `max`; it waits at most `wait` for more, and by default not at all, so a lone request
//! commits at once), runs each item in a savepoint of one transaction, and commits once. Each
//! request gets its own outcome: an item that fails (a duplicate, insufficient funds) is rolled
//! back to its savepoint alone, and the others commit. No answer leaves before its batch has
//! committed; when the commit fails, every request of the batch gets `Unavailable` and nothing
//! of the batch was written.
//!
//! Several writers (of one process or of several on one PostgreSQL database) could deadlock:
//! one batch's items lock a payer's row then a balance row, another's the other way round. So
//! a batch first locks the balance rows of all its tenants, in one order (`lock_tenant`, none
//! on SQLite, whose one writer connection serializes everything): two batches that share a
//! tenant queue on its balance row before they touch anything else of it.

use std::sync::Arc;
use std::time::Duration;

use sqlx::{Acquire, Encode, Executor, Pool, Transaction, Type};
use tokio::sync::{mpsc, oneshot, Mutex};

use super::payments::{insert_pending_in, settle_in};
use super::{Column, SqlDb};
pub use crate::config::BatchSettings;
use crate::domain::ledger::Posting;
use crate::domain::{Customer, Transaction as Payment};
use crate::store::{Settlement, StoreError};

/// A write the batch writer runs.
#[derive(Debug)]
pub(in crate::store) enum Write {
    InsertPending {
        payer: Box<Customer>,
        transaction: Box<Payment>,
        entry: Vec<Posting>,
    },
    Settle(Box<Settlement>),
}

impl Write {
    /// The tenant's key, the order in which a batch runs its items.
    fn tenant_key(&self) -> (&str, &str) {
        let t = match self {
            Write::InsertPending { transaction, .. } => &transaction.tenant,
            Write::Settle(s) => &s.transaction.tenant,
        };
        (t.merchant_id.0.as_str(), t.environment.as_str())
    }
}

/// What a write gave back.
#[derive(Debug)]
pub(in crate::store) enum Written {
    Inserted(Box<Customer>),
    Settled(bool),
}

type Reply = oneshot::Sender<Result<Written, StoreError>>;

/// The sending side of the writers.
pub(in crate::store) struct Batcher {
    queue: mpsc::Sender<(Write, Reply)>,
}

/// The statement that locks one tenant's balance row (`$1` merchant, `$2` environment) for the
/// rest of a batch, where the database needs it.
pub(in crate::store) type LockTenant = Option<&'static str>;

impl Batcher {
    /// Starts `settings.writers` writer tasks on `pool`; they stop when the batcher is dropped.
    pub fn start<DB>(pool: Pool<DB>, settings: BatchSettings, lock_tenant: LockTenant) -> Batcher
    where
        DB: SqlDb,
        for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
        for<'q> &'q str: Encode<'q, DB> + Type<DB>,
        for<'q> Option<&'q str>: Encode<'q, DB> + Type<DB>,
        String: Column<DB>,
        i64: Column<DB>,
        Option<i64>: Column<DB>,
        &'static str: sqlx::ColumnIndex<DB::Row>,
    {
        let max = settings.max.max(1);
        let (queue, receiver) = mpsc::channel(max * settings.writers.max(1) * 4);
        let receiver = Arc::new(Mutex::new(receiver));
        for _ in 0..settings.writers.max(1) {
            tokio::spawn(write_loop(
                pool.clone(),
                receiver.clone(),
                max,
                settings.wait,
                lock_tenant,
            ));
        }
        Batcher { queue }
    }

    /// Runs `write` in the next batch; answers once that batch has committed.
    pub async fn write(&self, write: Write) -> Result<Written, StoreError> {
        let (reply, answer) = oneshot::channel();
        self.queue
            .send((write, reply))
            .await
            .map_err(|_| StoreError::Unavailable("the database writer has stopped".into()))?;
        answer
            .await
            .map_err(|_| StoreError::Unavailable("the database writer stopped during the write".into()))?
    }
}

async fn write_loop<DB>(
    pool: Pool<DB>,
    receiver: Arc<Mutex<mpsc::Receiver<(Write, Reply)>>>,
    max: usize,
    wait: Duration,
    lock_tenant: LockTenant,
) where
    DB: SqlDb,
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    for<'q> &'q str: Encode<'q, DB> + Type<DB>,
    for<'q> Option<&'q str>: Encode<'q, DB> + Type<DB>,
    String: Column<DB>,
    i64: Column<DB>,
    Option<i64>: Column<DB>,
    &'static str: sqlx::ColumnIndex<DB::Row>,
{
    loop {
        let batch = {
            let mut receiver = receiver.lock().await;
            let Some(first) = receiver.recv().await else {
                return;
            };
            let mut batch = vec![first];
            while batch.len() < max {
                match receiver.try_recv() {
                    Ok(item) => batch.push(item),
                    Err(_) => break,
                }
            }
            if !wait.is_zero() && batch.len() < max {
                let deadline = tokio::time::Instant::now() + wait;
                while batch.len() < max {
                    match tokio::time::timeout_at(deadline, receiver.recv()).await {
                        Ok(Some(item)) => batch.push(item),
                        Ok(None) | Err(_) => break,
                    }
                }
            }
            batch
        };
        run_batch(&pool, batch, lock_tenant).await;
    }
}

/// Runs one batch and answers each of its requests.
async fn run_batch<DB>(pool: &Pool<DB>, mut batch: Vec<(Write, Reply)>, lock_tenant: LockTenant)
where
    DB: SqlDb,
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    for<'q> &'q str: Encode<'q, DB> + Type<DB>,
    for<'q> Option<&'q str>: Encode<'q, DB> + Type<DB>,
    String: Column<DB>,
    i64: Column<DB>,
    Option<i64>: Column<DB>,
    &'static str: sqlx::ColumnIndex<DB::Row>,
{
    batch.sort_by(|(a, _), (b, _)| a.tenant_key().cmp(&b.tenant_key()));
    let (writes, replies): (Vec<Write>, Vec<Reply>) = batch.into_iter().unzip();
    match run_items(pool, writes, lock_tenant).await {
        Ok(results) => {
            for (reply, result) in replies.into_iter().zip(results) {
                let _ = reply.send(result);
            }
        }
        Err(e) => {
            tracing::warn!(error = %e, items = replies.len(), "a write batch failed as a whole; nothing of it was written");
            let failure = match e {
                StoreError::Unavailable(why) => why,
                other => other.to_string(),
            };
            for reply in replies {
                let _ = reply.send(Err(StoreError::Unavailable(failure.clone())));
            }
        }
    }
}

/// Runs each write in its own savepoint of one transaction and commits: each write's result,
/// or the error of the batch as a whole. A lone write needs no savepoint: the transaction is
/// its own, rolled back when it fails.
async fn run_items<DB>(
    pool: &Pool<DB>,
    writes: Vec<Write>,
    lock_tenant: LockTenant,
) -> Result<Vec<Result<Written, StoreError>>, StoreError>
where
    DB: SqlDb,
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    for<'q> &'q str: Encode<'q, DB> + Type<DB>,
    for<'q> Option<&'q str>: Encode<'q, DB> + Type<DB>,
    String: Column<DB>,
    i64: Column<DB>,
    Option<i64>: Column<DB>,
    &'static str: sqlx::ColumnIndex<DB::Row>,
{
    let mut tx = pool.begin().await?;
    if let Some(lock) = lock_tenant {
        // `writes` is in tenant order.
        let mut tenants: Vec<(&str, &str)> = writes.iter().map(Write::tenant_key).collect();
        tenants.dedup();
        for (merchant, environment) in tenants {
            sqlx::query(lock)
                .bind(merchant)
                .bind(environment)
                .execute(&mut *tx)
                .await?;
        }
    }
    let mut results = Vec::with_capacity(writes.len());
    if writes.len() == 1 {
        for write in writes {
            let result = run_write(&mut tx, write).await;
            if result.is_err() {
                tx.rollback().await?;
                return Ok(vec![result]);
            }
            results.push(result);
        }
    } else {
        for write in writes {
            let mut item = tx.begin().await?;
            let result = run_write(&mut item, write).await;
            match &result {
                Ok(_) => item.commit().await?,
                Err(_) => item.rollback().await?,
            }
            results.push(result);
        }
    }
    tx.commit().await?;
    Ok(results)
}

async fn run_write<DB>(tx: &mut Transaction<'_, DB>, write: Write) -> Result<Written, StoreError>
where
    DB: SqlDb,
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    for<'q> &'q str: Encode<'q, DB> + Type<DB>,
    for<'q> Option<&'q str>: Encode<'q, DB> + Type<DB>,
    String: Column<DB>,
    i64: Column<DB>,
    Option<i64>: Column<DB>,
    &'static str: sqlx::ColumnIndex<DB::Row>,
{
    match write {
        Write::InsertPending {
            payer,
            transaction,
            entry,
        } => insert_pending_in(tx, &payer, &transaction, &entry)
            .await
            .map(|customer| Written::Inserted(Box::new(customer))),
        Write::Settle(settlement) => settle_in(tx, &settlement).await.map(Written::Settled),
    }
}
