//! Transactions and the ledger: the `PaymentStore`, and what its writes take.

use async_trait::async_trait;

use super::{ProcessStoreStats, StoreError, StoreStats};
use crate::domain::ledger::Posting;
use crate::domain::{
    Balance, Carrier, Cursor, Customer, Francs, Kind, Outcome, PageRequest, Reference, Tenant, Timestamp, Transaction,
    TransactionFilter, TransactionKey, TransactionRecord, TransactionRef,
};

/// A transaction reaching its final state, with everything that must be written with it.
#[derive(Debug, Clone)]
pub struct Settlement {
    pub transaction: Transaction,
    pub outcome: Outcome,
    pub at: Timestamp,
    /// What `updated_at` becomes: `None` for a transaction final at its creation.
    pub updated_at: Option<Timestamp>,
    /// The ledger entry of the outcome.
    pub entry: Vec<Posting>,
    /// The webhook event: its id and body.
    pub event_id: crate::domain::EventId,
    pub event_payload: String,
    /// A manual resolution's audit text.
    pub audit: Option<String>,
    /// For a payout batch's transfer: how the batch's event is made, should this settlement
    /// complete it (`sql::kinds::transfer`).
    pub batch_event: Option<super::payouts::BatchEventBody>,
}

/// A lookup read with the credential that asked for it.
#[derive(Debug, Clone)]
pub struct CheckedLookup {
    /// The credential exists, is not revoked, and belongs to the lookup's merchant and
    /// environment.
    pub credential_active: bool,
    pub record: Option<TransactionRecord>,
}

/// Whole-ledger invariants, for checks after tests (the bench runs the same SQL of its own).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LedgerCheck {
    /// The sum of every posting: always zero.
    pub postings_sum: i64,
    /// Balances that disagree with their postings, or are negative: always zero.
    pub inconsistent_balances: i64,
    /// Final transactions without exactly one outbox event: always zero.
    pub final_without_one_event: i64,
}

/// Transactions, the ledger and the webhook outbox.
/// Who sends a batch's transfer, as [`PaymentStore::mark_sent`] decides it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SendMark {
    /// The caller took the mark: it makes the call.
    Taken,
    /// Someone took it at this time: their call may still be on its way.
    SentAt(Timestamp),
    /// The transfer is final: nobody sends it any more.
    Final,
}

/// What a compare-and-set on a pending payment's carrier found ([`PaymentStore::claim_resend`],
/// [`PaymentStore::missing_since`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Missing<T> {
    /// Done, on the carrier the caller read: what it gives.
    Marked(T),
    /// Not done: the resend was claimed before (or the payment is no longer pending).
    Spent,
    /// Not done: the payment is carried by another connector or token than the caller read
    /// (a fallback or a token recorded since). Nothing it learnt of the old one applies.
    Moved,
}

/// The connector about to carry a pending payment, named apart from the one it replaces:
/// both are connector names, and swapping them would move a payment the wrong way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CarrierChange<'a> {
    /// The connector recorded now; `None`: none recorded.
    pub expected: Option<&'a str>,
    pub connector: &'a str,
    /// Its name for the payment, where its protocol handed one out.
    pub token: Option<&'a str>,
}

#[async_trait]
pub trait PaymentStore: Send + Sync + 'static {
    /// Records a new `PENDING` transaction and its first transition, with `entry` (a transfer's
    /// reservation) applied to the balance, all or nothing, in one commit. The customer is found
    /// by phone number (or created from `payer`) and keeps the latest name and email; a unique
    /// key settles concurrent payments. Returns that customer, whose id the transaction carries.
    /// `Conflict` when the merchant's transaction id is taken; `InsufficientFunds` when the
    /// reservation would overdraw. The reconciler's first status check is due at `first_check`.
    /// `credential_id` is the caller's credential (none for an in-process caller), checked in the
    /// same transaction: `Revoked` when it is revoked or not the transaction's tenant's, so a
    /// rotation takes effect at once without a read of its own before every payment.
    async fn insert_pending(
        &self,
        payer: &Customer,
        transaction: &Transaction,
        entry: &[Posting],
        first_check: Timestamp,
        credential_id: Option<&str>,
    ) -> Result<Customer, StoreError>;

    /// Moves a `PENDING` transaction to its final state, writing the transition, the ledger
    /// entry and the outbox event in one database transaction. Returns `false`, having written
    /// nothing, when the transaction was already final.
    async fn settle(&self, settlement: &Settlement) -> Result<bool, StoreError>;

    /// The tenant's transaction, by the merchant's transaction id or by the service reference.
    async fn transaction(
        &self,
        tenant: &Tenant,
        id_or_ref: &TransactionRef,
    ) -> Result<Option<TransactionRecord>, StoreError>;

    /// [`transaction`](Self::transaction) and whether the credential `credential_id` is still
    /// active, in one round trip: for lookups that trust a recently checked token.
    async fn transaction_checked(
        &self,
        tenant: &Tenant,
        credential_id: &str,
        id_or_ref: &TransactionRef,
    ) -> Result<CheckedLookup, StoreError>;

    /// A transaction by its service reference alone (the payer's launch page has no tenant).
    async fn transaction_by_ref(&self, reference: &Reference) -> Result<Option<TransactionRecord>, StoreError>;

    /// Takes the mark a batch's transfer carries once it is first sent (`sent_at`), at `at`,
    /// if it is still pending and nobody took it before: whoever gets [`SendMark::Taken`] makes
    /// the call, and only they.
    async fn mark_sent(&self, transaction_id: &TransactionKey, at: Timestamp) -> Result<SendMark, StoreError>;

    /// Claims the one resend a pending transaction may get, noting `at` as when it was found
    /// missing at its operator, if it is still carried as `read` says (the connector and token
    /// the caller's status check asked about): a compare-and-set, so a resend never goes out on
    /// a row another sender has moved since it was read.
    async fn claim_resend(
        &self,
        transaction_id: &TransactionKey,
        read: &Carrier,
        at: Timestamp,
    ) -> Result<Missing<()>, StoreError>;

    /// When a pending transaction still carried as `read` says was first found missing at its
    /// operator, noting `at` if it never was (which also spends its resend).
    async fn missing_since(
        &self,
        transaction_id: &TransactionKey,
        read: &Carrier,
        at: Timestamp,
    ) -> Result<Missing<Timestamp>, StoreError>;

    /// Records `change` on a pending transaction not yet given a token and still carried by
    /// `change.expected`. Moving it to another connector (a fallback) also needs that no resend
    /// was claimed. `false` when any of that fails: another sender got there first, and nothing
    /// may be sent.
    async fn record_carrier(
        &self,
        transaction_id: &TransactionKey,
        change: CarrierChange<'_>,
    ) -> Result<bool, StoreError>;

    /// Records the operator's page where the payer approves a pending transaction.
    async fn set_launch_url(&self, transaction_id: &TransactionKey, url: &str) -> Result<(), StoreError>;

    /// A transaction by the token of its payer's page (Sandbox BETA collections).
    async fn transaction_by_checkout_token(&self, token: &str) -> Result<Option<TransactionRecord>, StoreError>;

    /// The tenant's transactions, newest first.
    async fn transactions(
        &self,
        tenant: &Tenant,
        filter: &TransactionFilter,
        page: &PageRequest,
    ) -> Result<Vec<TransactionRecord>, StoreError>;

    /// Payments that need a person, oldest first, after `after`: `PENDING` transfers and
    /// refunds (money may have left) sent at or before `sent_before`, a batch's transfer
    /// counted from when it was sent (`sent_at`), never while it waits in the queue.
    async fn needing_review(
        &self,
        sent_before: Timestamp,
        after: Option<&Cursor>,
        limit: u32,
    ) -> Result<Vec<TransactionRecord>, StoreError>;

    /// `PENDING` transactions of every tenant, a page at a time, oldest first.
    async fn pending_transactions(&self, page: PendingPage<'_>) -> Result<Vec<TransactionRecord>, StoreError>;

    /// Claims the pending transactions a reconciler may ask about, moving their next check to
    /// the claim's lease: until then no other reconciler claims them, and `schedule_check` sets
    /// the real next check.
    async fn claim_due_checks(&self, claim: DueChecks) -> Result<Vec<TransactionRecord>, StoreError>;

    /// Sets when the reconciler may next ask about a pending transaction.
    async fn schedule_check(&self, transaction_id: &TransactionKey, at: Timestamp) -> Result<(), StoreError>;

    async fn balance(&self, tenant: &Tenant) -> Result<Balance, StoreError>;

    /// Credits the tenant's available balance from outside (a Production top-up).
    async fn credit(&self, tenant: &Tenant, amount: Francs, at: Timestamp) -> Result<(), StoreError>;

    async fn check_ledger(&self) -> Result<LedgerCheck, StoreError>;

    /// What operators watch in the database: pending transactions, transfers needing review
    /// (pending since before `review_before`) and the outbox backlog.
    async fn stats(&self, review_before: Timestamp) -> Result<StoreStats, StoreError>;

    /// This process's connections and batch writers. Read from memory, so it answers while
    /// the database does not.
    fn process_stats(&self) -> ProcessStoreStats;
}

/// A page of `PENDING` transactions of every tenant: those created at or before
/// `created_before`, of `kind` if given, after `after` (the last of the previous page), at most
/// `limit`.
#[derive(Debug, Clone, Copy)]
pub struct PendingPage<'a> {
    pub created_before: Timestamp,
    pub kind: Option<Kind>,
    pub after: Option<&'a Cursor>,
    pub limit: u32,
}

/// What a reconciler claims: up to `limit` pending transactions created at or before
/// `created_before`, of `kind` if given, whose next check is due at `now`, oldest first, held
/// until `lease_until`. Named fields, as three of them are instants a caller could swap.
#[derive(Debug, Clone, Copy)]
pub struct DueChecks {
    pub now: Timestamp,
    pub created_before: Timestamp,
    pub kind: Option<Kind>,
    pub lease_until: Timestamp,
    pub limit: u32,
}
