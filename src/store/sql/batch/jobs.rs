//! What a batch writer is given: typed writes ([`BatchWrite`]), each with where its own answer
//! goes, so a caller gets the answer of its kind of write and no other. A batch groups its
//! writes by kind, in lanes ([`Lane`]), each in the order of tenant, payer and id.

use std::collections::BTreeMap;

use tokio::sync::oneshot;

use crate::domain::ledger::{self, Posting};
use crate::domain::{Customer, IdempotencyKey, KeptAnswer, Tenant, Timestamp, Transaction as Payment};
use crate::store::idempotency::{ClaimOutcome, KeyClaim};
use crate::store::{Settlement, StoreError};

use super::super::balance_locks::BalanceUse;

/// Where a write's answer goes.
pub(in crate::store) type Reply<T> = oneshot::Sender<Result<T, StoreError>>;

/// A write's answer, or its own failure.
pub(in crate::store) type Answer<T> = Result<T, StoreError>;

/// A `PENDING` transaction to create, with its payer, its reservation and its first check.
#[derive(Debug)]
pub(in crate::store) struct Create {
    pub payer: Customer,
    pub transaction: Payment,
    pub entry: Vec<Posting>,
    pub first_check: Timestamp,
    /// The caller's credential, checked in the batch's transaction (`caller_check`); none for
    /// an in-process caller.
    pub credential_id: Option<String>,
}

/// An idempotency key's write: its answer kept (`answer`) or the key let go (`None`), provided
/// the claim `token` still holds it and no answer is kept.
#[derive(Debug)]
pub(in crate::store) struct KeyWrite {
    pub tenant: Tenant,
    pub key: IdempotencyKey,
    pub token: String,
    pub answer: Option<KeptAnswer>,
}

/// A write the batch writers run, and the answer it gets.
pub(in crate::store) trait BatchWrite: Sized + Send + 'static {
    type Answer: Send + 'static;

    /// The write with where its answer goes.
    fn job(self, reply: Reply<Self::Answer>) -> Job;

    fn tenant(&self) -> &Tenant;

    /// Its place in a batch: by tenant, then payer, then id, so that two batches lock payers'
    /// rows in one order too (a key's write, which locks only its key's row, by key).
    fn order_key(&self) -> (&str, &str, &str, &str);

    /// What it does to its tenant's balance: nothing, a credit, or a possible debit.
    fn balance_use(&self) -> Option<BalanceUse> {
        None
    }
}

fn tenant_key(t: &Tenant) -> (&str, &str) {
    (t.merchant_id.as_str(), t.environment.as_str())
}

fn entry_use(entry: &[Posting]) -> Option<BalanceUse> {
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
fn payment_order(t: &Payment) -> (&str, &str, &str, &str) {
    let (merchant, environment) = tenant_key(&t.tenant);
    (merchant, environment, t.phone.as_str(), t.id.as_str())
}

impl BatchWrite for Create {
    type Answer = Customer;

    fn job(self, reply: Reply<Customer>) -> Job {
        Job::Create(Box::new(self), reply)
    }

    fn tenant(&self) -> &Tenant {
        &self.transaction.tenant
    }

    fn order_key(&self) -> (&str, &str, &str, &str) {
        payment_order(&self.transaction)
    }

    fn balance_use(&self) -> Option<BalanceUse> {
        entry_use(&self.entry)
    }
}

impl BatchWrite for Settlement {
    type Answer = bool;

    fn job(self, reply: Reply<bool>) -> Job {
        Job::Settle(Box::new(self), reply)
    }

    fn tenant(&self) -> &Tenant {
        &self.transaction.tenant
    }

    fn order_key(&self) -> (&str, &str, &str, &str) {
        payment_order(&self.transaction)
    }

    fn balance_use(&self) -> Option<BalanceUse> {
        entry_use(&self.entry)
    }
}

impl BatchWrite for KeyWrite {
    type Answer = bool;

    fn job(self, reply: Reply<bool>) -> Job {
        Job::Key(Box::new(self), reply)
    }

    fn tenant(&self) -> &Tenant {
        &self.tenant
    }

    fn order_key(&self) -> (&str, &str, &str, &str) {
        let (merchant, environment) = tenant_key(&self.tenant);
        (merchant, environment, "", self.key.as_str())
    }
}

impl BatchWrite for KeyClaim {
    type Answer = ClaimOutcome;

    fn job(self, reply: Reply<ClaimOutcome>) -> Job {
        Job::Claim(Box::new(self), reply)
    }

    fn tenant(&self) -> &Tenant {
        &self.tenant
    }

    fn order_key(&self) -> (&str, &str, &str, &str) {
        let (merchant, environment) = tenant_key(&self.tenant);
        (merchant, environment, "", self.key.as_str())
    }
}

/// A write on its way to a writer, with where its answer goes.
pub(in crate::store) enum Job {
    Create(Box<Create>, Reply<Customer>),
    Settle(Box<Settlement>, Reply<bool>),
    Key(Box<KeyWrite>, Reply<bool>),
    Claim(Box<KeyClaim>, Reply<ClaimOutcome>),
}

/// The writes of one kind in a batch, in order, and where their answers go.
pub(super) struct Lane<W: BatchWrite> {
    pub writes: Vec<W>,
    replies: Vec<Reply<W::Answer>>,
}

impl<W: BatchWrite> Lane<W> {
    fn of(mut jobs: Vec<(W, Reply<W::Answer>)>) -> Lane<W> {
        jobs.sort_by(|(a, _), (b, _)| a.order_key().cmp(&b.order_key()));
        let (writes, replies) = jobs.into_iter().unzip();
        Lane { writes, replies }
    }

    /// Answers each write, in order.
    pub fn answer(self, answers: Vec<Answer<W::Answer>>) {
        answer_each(self.replies, answers);
    }

    /// The writes, and where their answers go, apart: for what must happen between the commit
    /// and the answers (the settled events handed over first).
    pub fn into_parts(self) -> (Vec<W>, Vec<Reply<W::Answer>>) {
        (self.writes, self.replies)
    }

    fn fail(self, why: &str) {
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

/// A batch's writes by kind. The creations run first, then the settlements, then the keys'
/// writes and claims, in every pass.
pub(super) struct Batch {
    pub creates: Lane<Create>,
    pub settles: Lane<Settlement>,
    pub keys: Lane<KeyWrite>,
    pub claims: Lane<KeyClaim>,
}

/// The answers of a batch's writes, lane by lane, in the lanes' order.
pub(super) struct Answers {
    pub creates: Vec<Answer<Customer>>,
    pub settles: Vec<Answer<bool>>,
    pub keys: Vec<Answer<bool>>,
    pub claims: Vec<Answer<ClaimOutcome>>,
}

impl Answers {
    /// Whether some write failed on its own.
    pub fn any_failed(&self) -> bool {
        self.creates.iter().any(Result::is_err)
            || self.settles.iter().any(Result::is_err)
            || self.keys.iter().any(Result::is_err)
            || self.claims.iter().any(Result::is_err)
    }
}

impl Batch {
    pub fn of(jobs: Vec<Job>) -> Batch {
        let (mut creates, mut settles, mut keys, mut claims) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for job in jobs {
            match job {
                Job::Create(w, reply) => creates.push((*w, reply)),
                Job::Settle(w, reply) => settles.push((*w, reply)),
                Job::Key(w, reply) => keys.push((*w, reply)),
                Job::Claim(w, reply) => claims.push((*w, reply)),
            }
        }
        Batch {
            creates: Lane::of(creates),
            settles: Lane::of(settles),
            keys: Lane::of(keys),
            claims: Lane::of(claims),
        }
    }

    pub fn len(&self) -> usize {
        self.creates.writes.len() + self.settles.writes.len() + self.keys.writes.len() + self.claims.writes.len()
    }

    /// What the batch does to each tenant's balance, in tenant order: the most any of its
    /// writes needs (`BalanceUse` is ordered so).
    pub fn balance_uses(&self) -> Vec<(&str, &str, BalanceUse)> {
        let mut uses = BTreeMap::new();
        for (usage, tenant) in self
            .creates
            .writes
            .iter()
            .map(|w| (w.balance_use(), w.tenant()))
            .chain(self.settles.writes.iter().map(|w| (w.balance_use(), w.tenant())))
        {
            let Some(usage) = usage else { continue };
            let known = uses.entry(tenant_key(tenant)).or_insert(usage);
            *known = (*known).max(usage);
        }
        uses.into_iter().map(|((m, e), usage)| (m, e, usage)).collect()
    }

    /// Every write answered `Unavailable`: the batch as a whole failed, nothing of it written.
    pub fn fail(self, why: &str) {
        self.creates.fail(why);
        self.settles.fail(why);
        self.keys.fail(why);
        self.claims.fail(why);
    }

    /// Every write answered with `error`: a lone write's own failure.
    pub fn each_failed(&self, error: &StoreError) -> Answers {
        fn failed<T>(n: usize, error: &StoreError) -> Vec<Answer<T>> {
            (0..n).map(|_| Err(error.clone())).collect()
        }
        Answers {
            creates: failed(self.creates.writes.len(), error),
            settles: failed(self.settles.writes.len(), error),
            keys: failed(self.keys.writes.len(), error),
            claims: failed(self.claims.writes.len(), error),
        }
    }
}
