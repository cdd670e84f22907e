//! Group commit: the writes of many concurrent requests in one database transaction.
//!
//! A request's write (a `PENDING` insert with its reservation, a settlement with its postings
//! and outbox event) goes to a writer task over a channel. The writer takes what is queued (up
//! to `max`; it waits at most `wait` for more, and by default not at all, so a lone request
//! commits at once), runs the items in one transaction, and commits once. The items first run
//! set-based, a few multi-row statements for the whole batch (`insert_set`, `settle_set`). Each
//! request gets its own outcome: when an item fails (a duplicate, insufficient funds), the batch
//! runs again with a savepoint per item, so that item is rolled back alone and the others
//! commit. No answer leaves before its batch has committed; when the commit fails, every request
//! of the batch gets `Unavailable` and nothing of the batch was written. Idempotency keys ride
//! in the batches too (`Write::Claim`, `Write::Key`: the claim, and the answer or release
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
use std::time::{Duration, Instant};

use sqlx::{Acquire, Encode, Executor, Pool, Transaction, Type};
use tokio::sync::{mpsc, oneshot, Mutex};

use super::balance_locks::{lock_balances, lock_payers, BalanceLocking, BalancePlan, BalanceUse};
use super::caller_check::{active_callers, check_caller};
use super::idempotency::{claim_in, write_key_in};
use super::insert_set::{fits_a_set, insert_all, Creation};
use super::payments::{insert_pending_in, settle_in};
use super::settle_set::settle_all;
use super::writer_home::WriterHome;
use super::writes::{Write, Written};
use super::{Column, SqlDb};
pub use crate::config::BatchSettings;
use crate::domain::Tenant;
use crate::store::handoff::{EventLease, Handoff, Reserved};
use crate::store::queued::take_queued_within;
use crate::store::write_counters::{BatchEnd, WriteBatchStats, WriteCounters};
use crate::store::{Settlement, StoreError};

type Reply = oneshot::Sender<Result<Written, StoreError>>;

/// The sending side of the writers.
pub(in crate::store) struct Batcher {
    queue: mpsc::Sender<(Write, Reply)>,
    handoff: Handoff,
    counters: Arc<WriteCounters>,
}

/// How many more times a write that hit a passing error (a deadlock) is tried on its own.
const RETRIES: u64 = 5;

impl Batcher {
    /// Starts `settings.writers` writer tasks on `pool`, run where `home` says; they stop when
    /// the batcher is dropped.
    pub fn start<DB>(
        pool: Pool<DB>,
        home: WriterHome,
        settings: BatchSettings,
        locking: BalanceLocking,
    ) -> Result<Batcher, StoreError>
    where
        DB: SqlDb,
        for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
        for<'q> &'q str: Encode<'q, DB> + Type<DB>,
        for<'q> Option<&'q str>: Encode<'q, DB> + Type<DB>,
        String: Column<DB>,
        i64: Column<DB>,
        Option<i64>: Column<DB>,
        Option<String>: Column<DB>,
        &'static str: sqlx::ColumnIndex<DB::Row>,
    {
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

/// One writer task's database side: where it writes and how it locks.
#[derive(Clone)]
struct Writer<DB: sqlx::Database> {
    pool: Pool<DB>,
    locking: BalanceLocking,
    /// Its credit slot (`balance_locks`): its index among the process's writers.
    slot: i64,
    handoff: Handoff,
    counters: Arc<WriteCounters>,
}

impl<DB> Writer<DB>
where
    DB: SqlDb,
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    for<'q> &'q str: Encode<'q, DB> + Type<DB>,
    for<'q> Option<&'q str>: Encode<'q, DB> + Type<DB>,
    String: Column<DB>,
    i64: Column<DB>,
    Option<i64>: Column<DB>,
    Option<String>: Column<DB>,
    &'static str: sqlx::ColumnIndex<DB::Row>,
{
    async fn write_loop(self, receiver: Arc<Mutex<mpsc::Receiver<(Write, Reply)>>>, max: usize, wait: Duration) {
        loop {
            // The queue is held while taking, not while the batch runs: the next writer takes
            // the next batch meanwhile.
            let Some(batch) = take_queued_within(&mut *receiver.lock().await, max, wait).await else {
                return;
            };
            self.run_batch(batch).await;
        }
    }

    /// Runs one batch and answers each of its requests.
    async fn run_batch(&self, mut batch: Vec<(Write, Reply)>) {
        batch.sort_by(|(a, _), (b, _)| a.order_key().cmp(&b.order_key()));
        let (writes, replies): (Vec<Write>, Vec<Reply>) = batch.into_iter().unzip();
        let settling = writes.iter().filter(|w| matches!(w, Write::Settle(_))).count();
        let mut handed = self.handoff.reserve(settling);
        let began = Instant::now();
        let outcome = self.run_items(&writes, handed.as_ref().map(|h| &h.lease)).await;
        let ended = match &outcome {
            // A lone write refused (a duplicate, insufficient funds) leaves nothing to commit.
            Ok(results) if results.len() == 1 && results[0].is_err() => BatchEnd::Refused,
            Ok(_) => BatchEnd::Committed,
            Err(_) => BatchEnd::Failed,
        };
        self.counters.batch(writes.len(), ended, began.elapsed());
        match outcome {
            Ok(results) => {
                if let Some(handed) = handed.as_mut() {
                    hand_over(handed, writes, &results);
                }
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

    /// Runs the writes in one transaction and commits: each write's result, or the error of the
    /// batch as a whole. A failing write is rare (a duplicate, an overdraft), so the writes first
    /// run with no savepoint, the settlements set-based (`settle_set`); when one fails, that
    /// transaction is rolled back and the batch runs again with a savepoint per write, so the
    /// failure stays its own. A lone write needs no second pass: its transaction is its own.
    async fn run_items(
        &self,
        writes: &[Write],
        lease: Option<&EventLease>,
    ) -> Result<Vec<Result<Written, StoreError>>, StoreError> {
        let (mut tx, plan) = self.begin(writes).await?;
        match Self::run_together(&mut tx, &plan, writes, lease).await {
            Ok(results) => {
                self.commit(tx).await?;
                Ok(results)
            }
            Err(e) => {
                tx.rollback().await?;
                // A lone write's own failure is final; a passing one (a deadlock) is tried again.
                if writes.len() == 1 && !matches!(e, StoreError::Unavailable(_)) {
                    return Ok(vec![Err(e)]);
                }
                self.counters.second_pass();
                self.run_each_alone(writes, lease).await
            }
        }
    }

    /// The first pass: the creations' callers checked (`caller_check`), the creations in one set
    /// (`insert_set`; one after the other when a payer comes twice), then the settlements in one
    /// set (`settle_set`; one after the other when a transaction is settled twice in the batch, a
    /// callback and a check crossing, as the set would not say which of the two moved it).
    async fn run_together(
        tx: &mut Transaction<'_, DB>,
        plan: &BalancePlan,
        writes: &[Write],
        lease: Option<&EventLease>,
    ) -> Result<Vec<Result<Written, StoreError>>, StoreError> {
        let callers: Vec<(&str, &Tenant)> = writes
            .iter()
            .filter_map(|write| match write {
                Write::InsertPending {
                    transaction,
                    credential_id: Some(credential_id),
                    ..
                } => Some((credential_id.as_str(), &transaction.tenant)),
                Write::InsertPending {
                    credential_id: None, ..
                } => None,
                Write::Settle(_) | Write::Key(_) | Write::Claim(_) => None,
            })
            .collect();
        // A revoked caller is rare: the second pass refuses it alone (`run_write`).
        if !callers.is_empty() && active_callers(tx, &callers).await?.contains(&false) {
            return Err(StoreError::Revoked);
        }
        let creations: Vec<Creation> = writes
            .iter()
            .filter_map(|write| match write {
                Write::InsertPending {
                    payer,
                    transaction,
                    entry,
                    first_check,
                    ..
                } => Some(Creation {
                    payer,
                    transaction,
                    entry,
                    first_check: *first_check,
                }),
                Write::Settle(_) | Write::Key(_) | Write::Claim(_) => None,
            })
            .collect();
        let created = if fits_a_set(&creations) {
            insert_all(tx, &creations, plan).await?
        } else {
            let mut created = Vec::with_capacity(creations.len());
            for c in &creations {
                let slot = plan.slot_for(&c.transaction.tenant);
                created.push(insert_pending_in(tx, c.payer, c.transaction, c.entry, c.first_check, slot).await?);
            }
            created
        };
        let settlements: Vec<&Settlement> = writes
            .iter()
            .filter_map(|write| match write {
                Write::Settle(settlement) => Some(&**settlement),
                Write::InsertPending { .. } | Write::Key(_) | Write::Claim(_) => None,
            })
            .collect();
        let mut ids: Vec<&str> = settlements.iter().map(|s| s.transaction.id.as_str()).collect();
        ids.sort_unstable();
        ids.dedup();
        let moved = if ids.len() == settlements.len() {
            settle_all(tx, &settlements, plan, lease).await?
        } else {
            let mut moved = Vec::with_capacity(settlements.len());
            for s in &settlements {
                moved.push(settle_in(tx, s, plan.slot_for(&s.transaction.tenant), lease).await?);
            }
            moved
        };
        // The keys' writes last: one conditional statement each, which fails only with the batch.
        let mut keys = Vec::new();
        for write in writes {
            match write {
                Write::Key(k) => keys.push(Written::Key(write_key_in(tx, k).await?)),
                Write::Claim(c) => keys.push(Written::Claim(claim_in(tx, c).await?)),
                Write::InsertPending { .. } | Write::Settle(_) => {}
            }
        }
        // Each write's result, in the batch's order: creations and settlements answer in theirs.
        let (mut created, mut moved, mut keys) = (created.into_iter(), moved.into_iter(), keys.into_iter());
        writes
            .iter()
            .map(|write| {
                let written = match write {
                    Write::InsertPending { .. } => created.next().map(|c| Written::Inserted(Box::new(c))),
                    Write::Settle(_) => moved.next().map(Written::Settled),
                    Write::Key(_) | Write::Claim(_) => keys.next(),
                };
                written.map(Ok).ok_or_else(|| {
                    StoreError::Corrupt("a set-based write answered fewer rows than it was given".into())
                })
            })
            .collect()
    }

    /// The second pass: each write in a savepoint, rolled back alone when it fails.
    async fn run_each_alone(
        &self,
        writes: &[Write],
        lease: Option<&EventLease>,
    ) -> Result<Vec<Result<Written, StoreError>>, StoreError> {
        let (mut tx, plan) = self.begin(writes).await?;
        let mut payers: Vec<(&str, &str, &str)> = writes
            .iter()
            .filter_map(|w| match w {
                Write::InsertPending { payer, .. } => Some((
                    payer.tenant.merchant_id.0.as_str(),
                    payer.tenant.environment.as_str(),
                    payer.phone.as_str(),
                )),
                Write::Settle(_) | Write::Key(_) | Write::Claim(_) => None,
            })
            .collect();
        payers.dedup();
        lock_payers(&mut tx, self.locking, &payers).await?;
        let mut results = Vec::with_capacity(writes.len());
        for write in writes {
            let mut item = tx.begin().await?;
            let result = Self::run_write(&mut item, &plan, write, lease).await;
            match &result {
                Ok(_) => item.commit().await?,
                Err(_) => item.rollback().await?,
            }
            results.push(result);
        }
        self.commit(tx).await?;
        // A write the database chose as a deadlock's victim (or that hit another passing error)
        // was waiting on a batch that waits on this one: once this one has committed, it gets a
        // few more tries on its own. (Another process creating the same transaction id with another
        // payer locks a payer row and the id's key in the other order: no item order avoids that.)
        // The batch has committed by now, so whatever happens to a try is that write's own
        // answer: an error here must not fail the batch, whose other writes are written.
        for (write, result) in writes.iter().zip(results.iter_mut()) {
            for attempt in 1..=RETRIES {
                if !matches!(result, Err(StoreError::Unavailable(_))) {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(10 * attempt)).await;
                *result = self.run_alone(write, lease).await;
            }
        }
        Ok(results)
    }

    /// One write in a transaction of its own.
    async fn run_alone(&self, write: &Write, lease: Option<&EventLease>) -> Result<Written, StoreError> {
        let (mut alone, plan) = self.begin(std::slice::from_ref(write)).await?;
        match Self::run_write(&mut alone, &plan, write, lease).await {
            Ok(written) => {
                self.commit(alone).await?;
                Ok(written)
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

    /// Opens the batch's transaction, with what it needs of its tenants' balances locked
    /// (`writes` is in tenant order).
    async fn begin(&self, writes: &[Write]) -> Result<(Transaction<'static, DB>, BalancePlan), StoreError> {
        let mut tx = self.pool.begin().await?;
        let mut tenants: Vec<(&str, &str, BalanceUse)> = Vec::new();
        for write in writes {
            let Some(usage) = write.balance_use() else { continue };
            let (merchant, environment) = write.tenant_key();
            match tenants.last_mut() {
                Some((m, e, known)) if *m == merchant && *e == environment => {
                    if usage == BalanceUse::Debits {
                        *known = BalanceUse::Debits;
                    }
                }
                _ => tenants.push((merchant, environment, usage)),
            }
        }
        let plan = lock_balances(&mut tx, self.locking, self.slot, &tenants).await?;
        Ok((tx, plan))
    }

    async fn run_write(
        tx: &mut Transaction<'_, DB>,
        plan: &BalancePlan,
        write: &Write,
        lease: Option<&EventLease>,
    ) -> Result<Written, StoreError> {
        let credit_slot = plan.slot_for(write.tenant());
        match write {
            Write::InsertPending {
                payer,
                transaction,
                entry,
                first_check,
                credential_id,
            } => {
                if let Some(credential_id) = credential_id {
                    check_caller(tx, credential_id, &transaction.tenant).await?;
                }
                insert_pending_in(tx, payer, transaction, entry, *first_check, credit_slot)
                    .await
                    .map(|customer| Written::Inserted(Box::new(customer)))
            }
            Write::Settle(settlement) => settle_in(tx, settlement, credit_slot, lease)
                .await
                .map(Written::Settled),
            Write::Key(k) => write_key_in(tx, k).await.map(Written::Key),
            Write::Claim(c) => claim_in(tx, c).await.map(Written::Claim),
        }
    }
}

/// Hands the events of a committed batch's settlements to the dispatcher: those that moved
/// their payment wrote their event with the batch's lease.
fn hand_over(handed: &mut Reserved<'_>, writes: Vec<Write>, results: &[Result<Written, StoreError>]) {
    for (write, result) in writes.into_iter().zip(results) {
        if let (Write::Settle(s), Ok(Written::Settled(true))) = (write, result) {
            let s = *s;
            handed.send(s.event_id, s.transaction.tenant, s.event_payload);
        }
    }
}
