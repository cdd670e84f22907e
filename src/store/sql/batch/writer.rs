//! One writer task: takes a batch from the queue, runs it in one transaction, commits, answers.
//!
//! A failing write is rare (a duplicate, an overdraft), so a batch first runs with no savepoint,
//! each kind of write as one set (`insert_set`, `settle_set`). When one fails, that transaction
//! is rolled back and the batch runs again with a savepoint per write, each write the same
//! set-based statements with one row ([`RunOne`]), so the failure stays its own. No write has a
//! second implementation for that pass.

use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use sqlx::{Acquire, Pool, Transaction};
use tokio::sync::{mpsc, Mutex};

use super::super::balance_locks::{lock_balances, lock_payers, BalanceLocking, BalancePlan, BalanceUse};
use super::super::caller_check::{active_callers, check_caller};
use super::super::idempotency::{claim_in, write_key_in};
use super::super::insert_set::{insert_all, payer_key, Creation};
use super::super::settle_set::settle_all;
use super::super::SqlDb;
use super::jobs::{answer_each, Answer, Answers, Batch, BatchWrite, Create, Job, KeyWrite};
use crate::domain::Tenant;
use crate::store::handoff::{EventLease, Handoff, Reserved};
use crate::store::idempotency::{ClaimOutcome, KeyClaim};
use crate::store::queued::take_queued_within;
use crate::store::write_counters::{BatchEnd, WriteCounters};
use crate::store::{Settlement, StoreError};

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
        let mut handed = self.handoff.reserve(batch.settles.writes.len());
        let began = Instant::now();
        let outcome = self.run_items(&batch, handed.as_ref().map(|h| &h.lease)).await;
        let ended = match &outcome {
            // A lone write refused (a duplicate, insufficient funds) leaves nothing to commit.
            Ok(answers) if batch.len() == 1 && answers.any_failed() => BatchEnd::Refused,
            Ok(_) => BatchEnd::Committed,
            Err(_) => BatchEnd::Failed,
        };
        self.counters.batch(batch.len(), ended, began.elapsed());
        match outcome {
            Ok(answers) => {
                let Batch {
                    creates,
                    settles,
                    keys,
                    claims,
                } = batch;
                // The settled events reach the dispatcher's queue before any answer leaves: a
                // caller that sees its payment settled finds its event handed over.
                let moved: Vec<bool> = answers.settles.iter().map(|a| matches!(a, Ok(true))).collect();
                let (settled, settle_replies) = settles.into_parts();
                if let Some(handed) = handed.as_mut() {
                    hand_over(handed, settled, &moved);
                }
                answer_each(settle_replies, answers.settles);
                creates.answer(answers.creates);
                keys.answer(answers.keys);
                claims.answer(answers.claims);
            }
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
        match run_together(&mut tx, &plan, batch, lease).await {
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
        let mut payers: Vec<(&str, &str, &str)> = batch.creates.writes.iter().map(|c| payer_key(&c.payer)).collect();
        payers.dedup();
        lock_payers(&mut tx, self.locking, &payers).await?;
        let mut answers = Answers {
            creates: each_in_savepoint(&mut tx, &plan, &batch.creates.writes, lease).await?,
            settles: each_in_savepoint(&mut tx, &plan, &batch.settles.writes, lease).await?,
            keys: each_in_savepoint(&mut tx, &plan, &batch.keys.writes, lease).await?,
            claims: each_in_savepoint(&mut tx, &plan, &batch.claims.writes, lease).await?,
        };
        self.commit(tx).await?;
        // A write the database chose as a deadlock's victim (or that hit another passing error)
        // was waiting on a batch that waits on this one: once this one has committed, it gets a
        // few more tries on its own. (Another process creating the same transaction id with another
        // payer locks a payer row and the id's key in the other order: no item order avoids that.)
        // The batch has committed by now, so whatever happens to a try is that write's own
        // answer: an error here must not fail the batch, whose other writes are written.
        self.retry_alone(&batch.creates.writes, &mut answers.creates, lease)
            .await;
        self.retry_alone(&batch.settles.writes, &mut answers.settles, lease)
            .await;
        self.retry_alone(&batch.keys.writes, &mut answers.keys, lease).await;
        self.retry_alone(&batch.claims.writes, &mut answers.claims, lease).await;
        Ok(answers)
    }

    async fn retry_alone<W: RunOne>(
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
    async fn run_alone<W: RunOne>(&self, write: &W, lease: Option<&EventLease>) -> Answer<W::Answer> {
        let (merchant, environment) = (write.tenant().merchant_id.as_str(), write.tenant().environment.as_str());
        let uses: Vec<(&str, &str, BalanceUse)> = write
            .balance_use()
            .map(|usage| (merchant, environment, usage))
            .into_iter()
            .collect();
        let (mut alone, plan) = self.begin(uses).await?;
        match write.run_one(&mut alone, &plan, lease).await {
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

/// The first pass: the creations' callers checked (`caller_check`), the creations in one set
/// (`insert_set`; one set each when a payer comes twice, as each creation answers with its
/// payer as its own upsert left it), the settlements in one set (`settle_set`; one set each
/// when a transaction is settled twice in the batch, a callback and a check crossing, as one
/// set would not say which of the two moved it), then the keys' writes.
async fn run_together<DB: SqlDb>(
    tx: &mut Transaction<'_, DB>,
    plan: &BalancePlan,
    batch: &Batch,
    lease: Option<&EventLease>,
) -> Result<Answers, StoreError> {
    let creates = &batch.creates.writes;
    let callers: Vec<(&str, &Tenant)> = creates
        .iter()
        .filter_map(|c| Some((c.credential_id.as_deref()?, &c.transaction.tenant)))
        .collect();
    // A revoked caller is rare: the second pass refuses it alone (`RunOne for Create`).
    if !callers.is_empty() && active_callers(tx, &callers).await?.contains(&false) {
        return Err(StoreError::Revoked);
    }
    let creations: Vec<Creation> = creates.iter().map(Create::creation).collect();
    let mut payers: Vec<(&str, &str, &str)> = creates.iter().map(|c| payer_key(&c.payer)).collect();
    payers.sort_unstable();
    payers.dedup();
    let created = if payers.len() == creations.len() {
        insert_all(tx, &creations, plan).await?
    } else {
        let mut created = Vec::with_capacity(creations.len());
        for c in creations.chunks(1) {
            created.extend(insert_all(tx, c, plan).await?);
        }
        created
    };
    let settlements: Vec<&Settlement> = batch.settles.writes.iter().collect();
    let mut ids: Vec<&str> = settlements.iter().map(|s| s.transaction.id.as_str()).collect();
    ids.sort_unstable();
    ids.dedup();
    let moved = if ids.len() == settlements.len() {
        settle_all(tx, &settlements, plan, lease).await?
    } else {
        let mut moved = Vec::with_capacity(settlements.len());
        for s in settlements.chunks(1) {
            moved.extend(settle_all(tx, s, plan, lease).await?);
        }
        moved
    };
    // The keys' writes last: one conditional statement each, which fails only with the batch.
    let mut keys = Vec::with_capacity(batch.keys.writes.len());
    for k in &batch.keys.writes {
        keys.push(Ok(write_key_in(tx, k).await?));
    }
    let mut claims = Vec::with_capacity(batch.claims.writes.len());
    for c in &batch.claims.writes {
        claims.push(Ok(claim_in(tx, c).await?));
    }
    if created.len() != creates.len() || moved.len() != settlements.len() {
        return Err(StoreError::Corrupt(
            "a set-based write answered fewer rows than it was given".into(),
        ));
    }
    Ok(Answers {
        creates: created.into_iter().map(Ok).collect(),
        settles: moved.into_iter().map(Ok).collect(),
        keys,
        claims,
    })
}

/// Each of `writes` in a savepoint of `tx`, rolled back alone when it fails.
async fn each_in_savepoint<DB: SqlDb, W: RunOne>(
    tx: &mut Transaction<'static, DB>,
    plan: &BalancePlan,
    writes: &[W],
    lease: Option<&EventLease>,
) -> Result<Vec<Answer<W::Answer>>, StoreError> {
    let mut answers = Vec::with_capacity(writes.len());
    for write in writes {
        let mut item = tx.begin().await?;
        let answer = write.run_one(&mut item, plan, lease).await;
        match &answer {
            Ok(_) => item.commit().await?,
            Err(_) => item.rollback().await?,
        }
        answers.push(answer);
    }
    Ok(answers)
}

/// A write run on its own (a savepoint of the second pass, or a retry): the first pass's
/// set-based statements, with one row.
pub(super) trait RunOne: BatchWrite + Sync {
    fn run_one<'a, DB: SqlDb>(
        &'a self,
        tx: &'a mut Transaction<'_, DB>,
        plan: &'a BalancePlan,
        lease: Option<&'a EventLease>,
    ) -> impl Future<Output = Answer<Self::Answer>> + Send + 'a;
}

impl RunOne for Create {
    async fn run_one<'a, DB: SqlDb>(
        &'a self,
        tx: &'a mut Transaction<'_, DB>,
        plan: &'a BalancePlan,
        _lease: Option<&'a EventLease>,
    ) -> Answer<Self::Answer> {
        if let Some(credential_id) = &self.credential_id {
            check_caller(tx, credential_id, &self.transaction.tenant).await?;
        }
        let created = insert_all(tx, &[self.creation()], plan).await?;
        created
            .into_iter()
            .next()
            .ok_or_else(|| StoreError::Corrupt("a creation answered no payer".into()))
    }
}

impl RunOne for Settlement {
    async fn run_one<'a, DB: SqlDb>(
        &'a self,
        tx: &'a mut Transaction<'_, DB>,
        plan: &'a BalancePlan,
        lease: Option<&'a EventLease>,
    ) -> Answer<bool> {
        let moved = settle_all(tx, &[self], plan, lease).await?;
        moved
            .first()
            .copied()
            .ok_or_else(|| StoreError::Corrupt("a settlement answered no row".into()))
    }
}

impl RunOne for KeyWrite {
    async fn run_one<'a, DB: SqlDb>(
        &'a self,
        tx: &'a mut Transaction<'_, DB>,
        _plan: &'a BalancePlan,
        _lease: Option<&'a EventLease>,
    ) -> Answer<bool> {
        write_key_in(tx, self).await
    }
}

impl RunOne for KeyClaim {
    async fn run_one<'a, DB: SqlDb>(
        &'a self,
        tx: &'a mut Transaction<'_, DB>,
        _plan: &'a BalancePlan,
        _lease: Option<&'a EventLease>,
    ) -> Answer<ClaimOutcome> {
        claim_in(tx, self).await
    }
}

impl Create {
    fn creation(&self) -> Creation<'_> {
        Creation {
            payer: &self.payer,
            transaction: &self.transaction,
            entry: &self.entry,
            first_check: self.first_check,
        }
    }
}

/// Hands the events of a committed batch's settlements to the dispatcher: those that moved
/// their payment wrote their event with the batch's lease.
fn hand_over(handed: &mut Reserved<'_>, settled: Vec<Settlement>, moved: &[bool]) {
    for (s, moved) in settled.into_iter().zip(moved) {
        if *moved {
            handed.send(s.event_id, s.transaction.tenant, s.event_payload);
        }
    }
}
