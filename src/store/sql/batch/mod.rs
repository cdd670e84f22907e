//! Group commit: the writes of many concurrent requests in one database transaction.
//!
//! A request's write (a `PENDING` insert with its reservation, a settlement with its postings
//! and outbox event) goes to a writer task over a channel. The writer takes what is queued (up
//! to `max`; it waits at most `wait` for more, and by default not at all, so a lone request
//! commits at once), runs the items in one transaction, and commits once. The items first run
//! set-based, a few multi-row statements for the whole batch (`insert_set`, `settle_set`). Each
//! request gets its own outcome: when an item fails (a duplicate, insufficient funds), the batch
//! runs again with a savepoint per item, each item the same statements with one row, so that
//! item is rolled back alone and the others commit (`writer`). A write is a typed request
//! (`jobs::BatchWrite`) that carries where its own typed answer goes. No answer leaves before its batch has committed; when the commit fails, every request
//! of the batch gets `Unavailable` and nothing of the batch was written. Idempotency keys ride
//! in the batches too (`KeyClaim`, `KeyWrite`: the claim, and the answer or release
//! conditional on the claim's token), run after the payments' writes, so concurrent keyed
//! requests share commits. A batch that settles payments writes their webhook events leased
//! to this process's dispatcher and hands them over once it has committed (`handoff`), so no
//! claim has to rewrite their rows to lease them. The writers count their batches, writes,
//! second passes and busy and commit time (`write_counters`) for `/metrics`.
//!
//! Several writers (of one process or of several on one PostgreSQL database) could deadlock:
//! one batch's items lock a payer's row then a balance row, another's the other way round. So
//! a batch whose items move a balance first locks what it needs of each tenant's balance, in
//! one order (`balance_locks`: the balance row for a batch that can debit, the writer's own
//! credit slot for one that only credits; nothing on SQLite, whose one writer connection
//! serializes everything), and runs its items in the order of tenant and payer: two batches
//! that debit one tenant queue on its row before they touch anything else of it, and batches
//! that only credit or only create `PENDING` collections run side by side. A deadlock the order
//! does not foresee is broken by the database, and the batch's second pass (below) runs again.

use std::sync::Arc;

use tokio::sync::{mpsc, oneshot, Mutex};

mod jobs;
mod writer;

pub(in crate::store) use jobs::{BatchWrite, Create, KeyWrite};

use super::balance_locks::BalanceLocking;
use super::writer_home::WriterHome;
use super::SqlDb;
pub use crate::config::BatchSettings;
use crate::store::handoff::Handoff;
use crate::store::write_counters::{WriteBatchStats, WriteCounters};
use crate::store::StoreError;
use jobs::Job;
use writer::Writer;

/// The sending side of the writers.
pub(in crate::store) struct Batcher {
    queue: mpsc::Sender<Job>,
    handoff: Handoff,
    counters: Arc<WriteCounters>,
}

impl Batcher {
    /// Starts `settings.writers` writer tasks on `pool`, run where `home` says; they stop when
    /// the batcher is dropped.
    pub fn start<DB: SqlDb>(
        pool: sqlx::Pool<DB>,
        home: WriterHome,
        settings: BatchSettings,
        locking: BalanceLocking,
    ) -> Result<Batcher, StoreError> {
        let max = settings.max.max(1);
        let (queue, receiver) = mpsc::channel(max * settings.writers.max(1) * 4);
        let receiver = Arc::new(Mutex::new(receiver));
        let handoff = Handoff::default();
        let counters = Arc::new(WriteCounters::default());
        let writers = (0..settings.writers.max(1))
            .map(|slot| {
                let writer = Writer {
                    pool: pool.clone(),
                    locking,
                    slot: slot as i64,
                    handoff: handoff.clone(),
                    counters: counters.clone(),
                };
                writer.write_loop(receiver.clone(), max, settings.wait)
            })
            .collect();
        home.run(writers)?;
        Ok(Batcher {
            queue,
            handoff,
            counters,
        })
    }

    /// What the writers have done since they started (`/metrics`).
    pub fn stats(&self) -> WriteBatchStats {
        self.counters.read()
    }

    /// Where the writers hand settled events to this process's dispatcher (`handoff`).
    pub fn handoff(&self) -> &Handoff {
        &self.handoff
    }

    /// Runs `write` in the next batch; answers once that batch has committed.
    pub async fn write<W: BatchWrite>(&self, write: W) -> Result<W::Answer, StoreError> {
        let (reply, answer) = oneshot::channel();
        self.queue
            .send(write.job(reply))
            .await
            .map_err(|_| StoreError::Unavailable("the database writer has stopped".into()))?;
        answer
            .await
            .map_err(|_| StoreError::Unavailable("the database writer stopped during the write".into()))?
    }
}
