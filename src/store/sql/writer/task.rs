//! One writer task: takes a batch from the queue, runs it in one transaction, commits, answers.
//!
//! A failing write is rare (a duplicate, an overdraft), so a batch first runs with no savepoint,
//! each kind of write as one set (its `BatchItem::run_set`). When one fails, that transaction
//! is rolled back and the batch runs again with a savepoint per write, each write the same
//! set-based run with one item, so the failure stays its own. No write has a second
//! implementation for that pass.

use std::sync::Arc;
use std::time::{Duration, Instant};

use sqlx::{Pool, Transaction};
use tokio::sync::{mpsc, Mutex};
use tracing::Instrument;

use super::super::balance_locks::{lock_balances, lock_payers, BalanceLocking, BalancePlan, BalanceUse};
use super::super::SqlDb;
use super::item::{run_one, Answer, BatchItem};
use super::lanes::{Answers, Batch, Job};
use crate::store::handoff::{EventLease, Handoff};
use crate::store::queued::take_queued_within;
use crate::store::write_counters::{BatchEnd, WriteCounters};
use crate::store::StoreError;
use crate::telemetry::traces;

/// How many more times a write that hit a passing error (a deadlock) is tried on its own.
const RETRIES: u64 = 5;

/// One writer task's database side: where it writes and how it locks.
#[derive(Clone)]
pub(super) struct Writer<DB: sqlx::Database> {
    pub pool: Pool<DB>,
    pub locking: BalanceLocking,
    /// Its credit slot (`balance_locks`): its index among the process's writers.
    pub slot: i64,
    pub handoff: Handoff,
    pub counters: Arc<WriteCounters>,
}

impl<DB: SqlDb> Writer<DB> {
    pub async fn write_loop(self, receiver: Arc<Mutex<mpsc::Receiver<Job>>>, max: usize, wait: Duration) {
        loop {
            // The queue is held while taking, not while the batch runs: the next writer takes
            // the next batch meanwhile.
            let Some(jobs) = take_queued_within(&mut *receiver.lock().await, max, wait).await else {
                return;
            };
            self.run_batch(Batch::of(jobs)).await;
        }
    }

    /// Runs one batch and answers each of its writes.
    async fn run_batch(&self, batch: Batch) {
        let mut handed = self.handoff.reserve(batch.events());
        let began = Instant::now();
        let span = if traces::enabled() {
            tracing::info_span!("write_batch", writes = batch.len(), outcome = tracing::field::Empty)
        } else {
            tracing::Span::none()
        };
        let outcome = self
            .run_items(&batch, handed.as_ref().map(|h| &h.lease))
            .instrument(span.clone())
            .await;
        let ended = match &outcome {
            // A lone write refused (a duplicate, insufficient funds) leaves nothing to commit.
            Ok(answers) if batch.len() == 1 && answers.any_failed() => BatchEnd::Refused,
            Ok(_) => BatchEnd::Committed,
            Err(_) => BatchEnd::Failed,
        };
        span.record("outcome", ended.name());
        self.counters.batch(batch.len(), ended, began.elapsed());
        match outcome {
            Ok(answers) => batch.answer(answers, handed.as_mut()),
            Err(e) => {
                tracing::warn!(error = %e, items = batch.len(), "a write batch failed as a whole; nothing of it was written");
                let failure = match e {
                    StoreError::Unavailable(why) => why,
                    other => other.to_string(),
                };
                batch.fail(&failure);
            }
        }
    }

    /// Runs the batch in one transaction and commits: each write's answer, or the error of the
    /// batch as a whole. A lone write needs no second pass: its transaction is its own.
    async fn run_items(&self, batch: &Batch, lease: Option<&EventLease>) -> Result<Answers, StoreError> {
        let (mut tx, plan) = self.begin(batch.balance_uses()).await?;
        match batch.run_together(&mut tx, &plan, lease).await {
            Ok(answers) => {
                self.commit(tx).await?;
                Ok(answers)
            }
            Err(e) => {
                tx.rollback().await?;
                // A lone write's own failure is final; a passing one (a deadlock) is tried again.
                if batch.len() == 1 && !matches!(e, StoreError::Unavailable(_)) {
                    return Ok(batch.each_failed(&e));
                }
                self.counters.second_pass();
                self.run_each_alone(batch, lease).await
            }
        }
    }

    /// The second pass: each write in a savepoint, rolled back alone when it fails.
    async fn run_each_alone(&self, batch: &Batch, lease: Option<&EventLease>) -> Result<Answers, StoreError> {
        let (mut tx, plan) = self.begin(batch.balance_uses()).await?;
        lock_payers(&mut tx, self.locking, &batch.payers()).await?;
        let mut answers = batch.run_each_in_savepoint(&mut tx, &plan, lease).await?;
        self.commit(tx).await?;
        // A write the database chose as a deadlock's victim (or that hit another passing error)
        // was waiting on a batch that waits on this one: once this one has committed, it gets a
        // few more tries on its own. (Another process creating the same transaction id with another
        // payer locks a payer row and the id's key in the other order: no item order avoids that.)
        // The batch has committed by now, so whatever happens to a try is that write's own
        // answer: an error here must not fail the batch, whose other writes are written.
        batch.retry_passing_errors(self, &mut answers, lease).await;
        Ok(answers)
    }

    pub(super) async fn retry_alone<W: BatchItem>(
        &self,
        writes: &[W],
        answers: &mut [Answer<W::Answer>],
        lease: Option<&EventLease>,
    ) {
        for (write, answer) in writes.iter().zip(answers.iter_mut()) {
            for attempt in 1..=RETRIES {
                if !matches!(answer, Err(StoreError::Unavailable(_))) {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(10 * attempt)).await;
                *answer = self.run_alone(write, lease).await;
            }
        }
    }

    /// One write in a transaction of its own.
    async fn run_alone<W: BatchItem>(&self, write: &W, lease: Option<&EventLease>) -> Answer<W::Answer> {
        let (merchant, environment) = (write.tenant().merchant_id.as_str(), write.tenant().environment.as_str());
        let uses: Vec<(&str, &str, BalanceUse)> = write
            .balance_use()
            .map(|usage| (merchant, environment, usage))
            .into_iter()
            .collect();
        let (mut alone, plan) = self.begin(uses).await?;
        match run_one(write, &mut alone, &plan, lease).await {
            Ok(answer) => {
                self.commit(alone).await?;
                Ok(answer)
            }
            Err(e) => {
                // The write's own error is its answer; a transaction whose rollback fails is
                // rolled back when its connection goes (SQLite's writer pool closes such a one).
                if let Err(rollback) = alone.rollback().await {
                    tracing::warn!(error = %rollback, "rolling back a write tried on its own failed");
                }
                Err(e)
            }
        }
    }

    /// Commits `tx`, counting the time it takes, failed commits included.
    async fn commit(&self, tx: Transaction<'static, DB>) -> Result<(), StoreError> {
        let began = Instant::now();
        let committed = tx.commit().await;
        self.counters.commit(began.elapsed());
        committed.map_err(StoreError::from)
    }

    /// Opens a transaction with what it needs of its tenants' balances locked (`uses`, in
    /// tenant order).
    async fn begin(
        &self,
        uses: Vec<(&str, &str, BalanceUse)>,
    ) -> Result<(Transaction<'static, DB>, BalancePlan), StoreError> {
        let mut tx = self.pool.begin().await?;
        let plan = lock_balances(&mut tx, self.locking, self.slot, &uses).await?;
        Ok((tx, plan))
    }
}
