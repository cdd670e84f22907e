//! Group commit: the writes of many concurrent requests in one database transaction.
//!
//! A request's write (a `PENDING` insert with its reservation, a settlement with its postings
//! and outbox event) goes to a writer task over a channel. The writer takes what is queued (up
//! to `max`; it waits at most `wait` for more, and by default not at all, so a lone request
//! commits at once), runs the items in one transaction, and commits once. The items first run
//! set-based, a few multi-row statements for the whole batch (each kind's `BatchItem::run_set`). Each
//! request gets its own outcome: when an item fails (a duplicate, insufficient funds), the batch
//! runs again with a savepoint per item, each item the same statements with one row, so that
//! item is rolled back alone and the others commit (`task`). A write is a typed request
//! (`item::BatchItem`, one file each: `create`, `settle`, `keys`; the kinds listed once in
//! `lanes`) that carries where its own typed answer goes. No answer leaves before its batch has committed; when the commit fails, every request
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

mod create;
mod item;
mod keys;
mod lanes;
mod settle;
mod task;

pub(in crate::store) use create::{insert_all, Create, Creation};
pub(in crate::store) use keys::KeyWrite;

use super::balance_locks::BalanceLocking;
use super::writer_home::WriterHome;
use super::SqlDb;
pub use crate::config::BatchSettings;
use crate::store::handoff::Handoff;
use crate::store::write_counters::{WriteBatchStats, WriteCounters};
use crate::store::StoreError;
use lanes::{Job, Queued};
use task::Writer;

/// The sending side of the writers.
pub(in crate::store) struct Batcher {
    queue: mpsc::Sender<Job>,
    /// The payout batches' own writer's queue (the others' on SQLite).
    payout_queue: mpsc::Sender<Job>,
    handoff: Handoff,
    counters: Arc<WriteCounters>,
}

impl Batcher {
    /// Starts `settings.writers` writer tasks on `pool`, and where writers run side by side
    /// one more for payout batches' settlements ([`Batcher::write_for_payout_batch`]), run
    /// where `home` says; they stop when the batcher is dropped.
    pub fn start<DB: SqlDb>(
        pool: sqlx::Pool<DB>,
        home: WriterHome,
        settings: BatchSettings,
        locking: BalanceLocking,
    ) -> Result<Batcher, StoreError> {
        let max = settings.max.max(1);
        let count = settings.writers.max(1);
        let (queue, receiver) = mpsc::channel(max * count * 4);
        let receiver = Arc::new(Mutex::new(receiver));
        let handoff = Handoff::default();
        let counters = Arc::new(WriteCounters::default());
        let writer = |slot: usize| Writer {
            pool: pool.clone(),
            locking,
            slot: slot as i64,
            handoff: handoff.clone(),
            counters: counters.clone(),
        };
        let mut writers: Vec<_> = (0..count)
            .map(|slot| writer(slot).write_loop(receiver.clone(), max, settings.wait))
            .collect();
        let payout_queue = match locking {
            BalanceLocking::Serial => queue.clone(),
            BalanceLocking::CreditSlots => {
                let (payout_queue, payout_receiver) = mpsc::channel(max * 4);
                writers.push(writer(count).write_loop(Arc::new(Mutex::new(payout_receiver)), max, settings.wait));
                payout_queue
            }
        };
        home.run(writers)?;
        Ok(Batcher {
            queue,
            payout_queue,
            handoff,
            counters,
        })
    }

    /// Writers [`Batcher::start`] runs for `settings`: one more than asked where writers run
    /// side by side (the payout batches' own).
    pub fn writer_count(settings: &BatchSettings, locking: BalanceLocking) -> usize {
        settings.writers.max(1) + usize::from(locking == BalanceLocking::CreditSlots)
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
    pub async fn write<W: Queued>(&self, write: W) -> Result<W::Answer, StoreError> {
        Batcher::write_to(&self.queue, write).await
    }

    /// Runs the settlement of a payout batch's transfer in the next batch of the payout
    /// batches' own writer, where writers run side by side. Such a settlement locks the
    /// tenant's balance row (it takes a reservation back) and its batch's row (it moves the
    /// batch's counts); in the batches of the other writers, next to single payments, it would
    /// make every batch that holds one wait for the others, a draining batch thus slowing
    /// everyone's single payments. On SQLite's one writer it is an ordinary write.
    pub async fn write_for_payout_batch<W: Queued>(&self, write: W) -> Result<W::Answer, StoreError> {
        Batcher::write_to(&self.payout_queue, write).await
    }

    async fn write_to<W: Queued>(queue: &mpsc::Sender<Job>, write: W) -> Result<W::Answer, StoreError> {
        let (reply, answer) = oneshot::channel();
        queue
            .send(write.job(reply))
            .await
            .map_err(|_| StoreError::Unavailable("the database writer has stopped".into()))?;
        answer
            .await
            .map_err(|_| StoreError::Unavailable("the database writer stopped during the write".into()))?
    }
}
