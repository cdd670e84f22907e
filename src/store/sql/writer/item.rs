//! What a batch writer is given: typed writes ([`BatchItem`]), each with where its own answer
//! goes, so a caller gets the answer of its kind of write and no other. A kind of write says
//! once, in its own file, everything the writer needs of it: its answer, its place in a batch,
//! its use of the balance and its set-based run. A batch groups its writes by kind, in lanes
//! ([`Lane`]), each in the order of tenant, payer and id.

use std::future::Future;

use sqlx::Transaction;
use tokio::sync::oneshot;

use super::super::balance_locks::{BalancePlan, BalanceUse};
use super::super::SqlDb;
use crate::domain::ledger::{self, Posting};
use crate::domain::{Tenant, Transaction as Payment};
use crate::store::handoff::{EventLease, Reserved};
use crate::store::StoreError;

/// Where a write's answer goes.
pub(in crate::store) type Reply<T> = oneshot::Sender<Result<T, StoreError>>;

/// A write's answer, or its own failure.
pub(in crate::store) type Answer<T> = Result<T, StoreError>;

/// A kind of write the batch writers run, and the answer it gets.
pub(in crate::store) trait BatchItem: Sized + Send + Sync + 'static {
    type Answer: Send + 'static;

    /// Whether its run writes webhook events the dispatcher takes straight from the batch
    /// ([`BatchItem::hand_over`]).
    const HANDS_OVER_EVENTS: bool = false;

    fn tenant(&self) -> &Tenant;

    /// Its place in a batch: by tenant, then payer, then id, so that two batches lock payers'
    /// rows in one order too (a key's write, which locks only its key's row, by key).
    fn order_key(&self) -> (&str, &str, &str, &str);

    /// What it does to its tenant's balance: nothing, a credit, or a possible debit.
    fn balance_use(&self) -> Option<BalanceUse> {
        None
    }

    /// The payer row it writes, locked in order before a batch's second pass (merchant,
    /// environment, phone).
    fn payer(&self) -> Option<(&str, &str, &str)> {
        None
    }

    /// Runs `items` (this kind's writes of a batch, in order) in `tx` as one set: each one's
    /// answer in order, or the error of the set. A write run on its own (a savepoint of the
    /// second pass, a retry) is this with one item, so no write has a second implementation.
    fn run_set<'a, DB: SqlDb>(
        items: &'a [Self],
        tx: &'a mut Transaction<'_, DB>,
        plan: &'a BalancePlan,
        lease: Option<&'a EventLease>,
    ) -> impl Future<Output = Result<Vec<Self::Answer>, StoreError>> + Send + 'a;

    /// Once its batch has committed and before any answer leaves: hands the events it wrote
    /// with the batch's lease to the dispatcher.
    fn hand_over(self, _answer: &Answer<Self::Answer>, _handed: &mut Reserved<'_>) {}
}

/// Runs one write on its own, in `tx`: its set-based run with one item.
pub(super) async fn run_one<W: BatchItem, DB: SqlDb>(
    write: &W,
    tx: &mut Transaction<'_, DB>,
    plan: &BalancePlan,
    lease: Option<&EventLease>,
) -> Answer<W::Answer> {
    W::run_set(std::slice::from_ref(write), tx, plan, lease)
        .await?
        .into_iter()
        .next()
        .ok_or_else(|| StoreError::Corrupt("a write run on its own answered nothing".into()))
}

/// The writes of one kind in a batch, in order, and where their answers go.
pub(super) struct Lane<W: BatchItem> {
    pub writes: Vec<W>,
    replies: Vec<Reply<W::Answer>>,
}

impl<W: BatchItem> Lane<W> {
    pub fn of(mut jobs: Vec<(W, Reply<W::Answer>)>) -> Lane<W> {
        jobs.sort_by(|(a, _), (b, _)| a.order_key().cmp(&b.order_key()));
        let (writes, replies) = jobs.into_iter().unzip();
        Lane { writes, replies }
    }

    /// Hands over what each write of a committed batch wrote for the dispatcher (`handed`, when
    /// the process takes events from the batches): the replies are what is left to answer.
    pub fn hand_over(self, answers: &[Answer<W::Answer>], handed: Option<&mut Reserved<'_>>) -> Vec<Reply<W::Answer>> {
        if let Some(handed) = handed {
            for (write, answer) in self.writes.into_iter().zip(answers) {
                write.hand_over(answer, handed);
            }
        }
        self.replies
    }

    pub fn fail(self, why: &str) {
        for reply in self.replies {
            let _ = reply.send(Err(StoreError::Unavailable(why.to_owned())));
        }
    }
}

/// Sends each answer to its reply, in order.
pub(super) fn answer_each<T>(replies: Vec<Reply<T>>, answers: Vec<Answer<T>>) {
    for (reply, answer) in replies.into_iter().zip(answers) {
        let _ = reply.send(answer);
    }
}

/// `set`'s answers as the writes' own, checked to be one a write.
pub(super) fn each_answered<T>(set: Vec<T>, writes: usize) -> Result<Vec<Answer<T>>, StoreError> {
    if set.len() != writes {
        return Err(StoreError::Corrupt(
            "a set-based write answered fewer rows than it was given".into(),
        ));
    }
    Ok(set.into_iter().map(Ok).collect())
}

/// A tenant's key in a batch's order and its balance locks.
pub(super) fn tenant_key(t: &Tenant) -> (&str, &str) {
    (t.merchant_id.as_str(), t.environment.as_str())
}

/// What a ledger entry does to its tenant's balance.
pub(super) fn entry_use(entry: &[Posting]) -> Option<BalanceUse> {
    if ledger::may_debit_available(entry) {
        Some(BalanceUse::Debits)
    } else if ledger::may_debit(entry) {
        Some(BalanceUse::Releases)
    } else if ledger::only_credits(entry) {
        Some(BalanceUse::Credits)
    } else {
        None
    }
}

/// A payment's place in a batch: tenant, payer, id.
pub(super) fn payment_order(t: &Payment) -> (&str, &str, &str, &str) {
    let (merchant, environment) = tenant_key(&t.tenant);
    (merchant, environment, t.phone.as_str(), t.id.as_str())
}
