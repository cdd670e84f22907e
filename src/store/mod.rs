//! Storage: one [`Store`] trait, implemented for SQLite and for PostgreSQL.
//!
//! Store methods express invariants, not tables: each method that changes several rows does so
//! in one database transaction, and races are settled by the database (unique constraints,
//! conditional updates), never by a read-then-write in Rust.

mod dashboard;
mod handoff;
mod idempotency;
mod lookup_batch;
mod migrations;
mod names;
mod postgres;
mod queued;
mod reports;
mod rows;
mod sql;
mod sqlite;
mod stats;
mod write_counters;

use async_trait::async_trait;

use crate::domain::ledger::Posting;
use crate::domain::{
    Credential, Cursor, Customer, Environment, Kind, MerchantId, MerchantSummary, Outcome, PageRequest, Tenant,
    Timestamp, Transaction,
};

// Re-exported: the domain owns these types, and the backends name them through `super::`.
pub use crate::domain::{Attempt, Balance, EventFilter, EventSummary, TransactionFilter, TransactionRecord};
pub use dashboard::DashboardStore;
pub use handoff::LeasedEvent;
pub use idempotency::{ClaimOutcome, IdempotencyStore, KeyClaim};
pub use postgres::PostgresStore;
pub(crate) use queued::take_queued_within;
pub use reports::ReportStore;
pub use sql::batch::BatchSettings;
pub use sqlite::SqliteStore;
pub use stats::{ProcessStoreStats, StoreStats};
pub use write_counters::{DurationCounts, WriteBatchStats, DURATION_BOUNDS};

/// What can go wrong in storage, classified once from the database's own error kinds.
// Clone: one failed batch query answers every request of the batch with its error.
#[derive(Debug, Clone, thiserror::Error)]
pub enum StoreError {
    #[error("not found")]
    NotFound,
    #[error("conflict on {constraint}")]
    Conflict { constraint: String },
    #[error("database unavailable: {0}")]
    Unavailable(String),
    /// The database refused a statement for a reason a retry will not cure (a missing table,
    /// a failed check): a bug or a broken schema.
    #[error("database error: {0}")]
    Refused(String),
    #[error("stored data is invalid: {0}")]
    Corrupt(String),
    /// A reservation would take the available balance below zero.
    #[error("insufficient available balance")]
    InsufficientFunds,
    /// The credential a write was made with is revoked (or no longer the tenant's): nothing
    /// was written.
    #[error("the caller's credential is revoked")]
    Revoked,
}

impl From<sqlx::Error> for StoreError {
    fn from(err: sqlx::Error) -> Self {
        match &err {
            sqlx::Error::RowNotFound => StoreError::NotFound,
            sqlx::Error::Database(db) if db.is_unique_violation() => StoreError::Conflict {
                constraint: db.constraint().unwrap_or("unique").to_owned(),
            },
            sqlx::Error::ColumnDecode { .. } | sqlx::Error::Decode(_) | sqlx::Error::ColumnNotFound(_) => {
                StoreError::Corrupt(err.to_string())
            }
            sqlx::Error::Database(db) if !transient(db.code().as_deref()) => StoreError::Refused(err.to_string()),
            _ => StoreError::Unavailable(err.to_string()),
        }
    }
}

/// Whether a database error code says "try again": PostgreSQL's serialization failures,
/// deadlocks, lock and statement timeouts, shutdowns and resource limits (classes 40, 53, 57,
/// 58 and 55P03); SQLite's busy, locked, I/O, full and cannot-open results.
fn transient(code: Option<&str>) -> bool {
    let Some(code) = code else {
        return true;
    };
    matches!(code.get(..2), Some("40" | "53" | "57" | "58"))
        || code == "55P03"
        // SQLite's primary result codes: the low byte of an extended code.
        || code
            .parse::<u32>()
            .is_ok_and(|n| matches!(n & 0xff, 5 | 6 | 10 | 13 | 14))
}

/// A new merchant with one credential and one webhook signing secret per environment.
#[derive(Debug, Clone)]
pub struct NewMerchant {
    pub id: MerchantId,
    pub name: String,
    pub created_at: Timestamp,
    pub environments: Vec<NewMerchantEnvironment>,
}

#[derive(Debug, Clone)]
pub struct NewMerchantEnvironment {
    pub environment: Environment,
    pub webhook_url: Option<String>,
    pub webhook_secret: String,
    pub credential: Credential,
    /// Money credited when the environment opens (the Sandbox's play money).
    pub opening_balance: i64,
}

/// The persistence the gateway needs, whatever the database.
pub trait Store: MerchantStore + PaymentStore + WebhookStore + ReportStore + DashboardStore + IdempotencyStore {}

impl<T> Store for T where
    T: MerchantStore + PaymentStore + WebhookStore + ReportStore + DashboardStore + IdempotencyStore
{
}

/// Server settings, merchants, credentials and customers.
#[async_trait]
pub trait MerchantStore: Send + Sync + 'static {
    /// Answers when the database answers.
    async fn ping(&self) -> Result<(), StoreError>;

    /// Closes every connection, waiting for those in use (graceful shutdown).
    async fn close(&self);

    /// Returns the stored value of a server setting, storing `candidate` first if there is none.
    /// Several processes starting at once all get the same value.
    async fn setting_or_insert(&self, key: &str, candidate: &str) -> Result<String, StoreError>;

    async fn has_merchants(&self) -> Result<bool, StoreError>;

    /// Records a merchant, its environments and credentials, all or nothing.
    async fn create_merchant(&self, merchant: &NewMerchant) -> Result<(), StoreError>;

    async fn merchant_name(&self, id: &MerchantId) -> Result<Option<String>, StoreError>;

    /// Every merchant with its environments, oldest first.
    async fn merchants(&self) -> Result<Vec<MerchantSummary>, StoreError>;

    async fn credential_by_key(&self, api_key: &str) -> Result<Option<Credential>, StoreError>;

    async fn credential(&self, id: &str) -> Result<Option<Credential>, StoreError>;

    /// Revokes the tenant's active credential and records `replacement`, in one transaction.
    /// `NotFound` when the tenant does not exist.
    async fn rotate_credential(&self, tenant: &Tenant, replacement: &Credential) -> Result<(), StoreError>;

    /// Sets (or clears) the tenant's webhook URL, re-enabling a disabled endpoint.
    async fn set_webhook_url(&self, tenant: &Tenant, url: Option<&str>) -> Result<(), StoreError>;

    /// Makes `secret` the tenant's webhook signing secret; the one it replaces keeps signing
    /// beside it until `previous_until`, and a secret replaced before that stops at once. One
    /// statement, so concurrent rotations cannot lose a secret in between. `NotFound` when the
    /// tenant does not exist.
    async fn rotate_webhook_secret(
        &self,
        tenant: &Tenant,
        secret: &str,
        previous_until: Timestamp,
    ) -> Result<(), StoreError>;

    /// Records a customer. The first record of a phone number is the one payments embedding
    /// that number will find.
    async fn insert_customer(&self, customer: &Customer) -> Result<(), StoreError>;

    async fn customer(&self, tenant: &Tenant, id: &str) -> Result<Option<Customer>, StoreError>;

    /// The tenant's customers, newest first.
    async fn customers(&self, tenant: &Tenant, page: &PageRequest) -> Result<Vec<Customer>, StoreError>;
}

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
    pub event_id: String,
    pub event_payload: String,
    /// A manual resolution's audit text.
    pub audit: Option<String>,
}

/// A lookup read with the credential that asked for it.
#[derive(Debug, Clone)]
pub struct CheckedLookup {
    /// The credential exists and is not revoked.
    pub credential_active: bool,
    pub record: Option<TransactionRecord>,
}

/// Whole-ledger invariants, for checks after tests and benchmarks.
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
    async fn transaction(&self, tenant: &Tenant, id_or_ref: &str) -> Result<Option<TransactionRecord>, StoreError>;

    /// [`transaction`](Self::transaction) and whether the credential `credential_id` is still
    /// active, in one round trip: for lookups that trust a recently checked token.
    async fn transaction_checked(
        &self,
        tenant: &Tenant,
        credential_id: &str,
        id_or_ref: &str,
    ) -> Result<CheckedLookup, StoreError>;

    /// A transaction by its service reference alone (the payer's launch page has no tenant).
    async fn transaction_by_ref(&self, reference: &str) -> Result<Option<TransactionRecord>, StoreError>;

    /// Claims the one resend a pending transaction may get: `true` for the caller that set
    /// `resent_at`, `false` when it was resent before (or is no longer pending).
    async fn claim_resend(&self, transaction_id: &str, at: Timestamp) -> Result<bool, StoreError>;

    /// Records the operator's page where the payer approves a pending transaction.
    async fn set_launch_url(&self, transaction_id: &str, url: &str) -> Result<(), StoreError>;

    /// A transaction by the token of its payer's page (Sandbox BETA collections).
    async fn transaction_by_checkout_token(&self, token: &str) -> Result<Option<TransactionRecord>, StoreError>;

    /// The tenant's transactions, newest first.
    async fn transactions(
        &self,
        tenant: &Tenant,
        filter: &TransactionFilter,
        page: &PageRequest,
    ) -> Result<Vec<TransactionRecord>, StoreError>;

    /// `PENDING` transactions of every tenant created at or before `created_before`, oldest
    /// first, after `after` (the last of the previous batch).
    async fn pending_transactions(
        &self,
        created_before: Timestamp,
        kind: Option<Kind>,
        after: Option<&Cursor>,
        limit: u32,
    ) -> Result<Vec<TransactionRecord>, StoreError>;

    /// Claims up to `limit` pending transactions the reconciler may ask about at `now` (created
    /// at or before `created_before`, of `kind` if given, next check due), oldest first, moving
    /// their next check to `lease_until`: until then no other reconciler claims them, and
    /// `schedule_check` sets the real next check.
    async fn claim_due_checks(
        &self,
        now: Timestamp,
        created_before: Timestamp,
        kind: Option<Kind>,
        lease_until: Timestamp,
        limit: u32,
    ) -> Result<Vec<TransactionRecord>, StoreError>;

    /// Sets when the reconciler may next ask about a pending transaction.
    async fn schedule_check(&self, transaction_id: &str, at: Timestamp) -> Result<(), StoreError>;

    async fn balance(&self, tenant: &Tenant) -> Result<Balance, StoreError>;

    /// Credits the tenant's available balance from outside (a Production top-up).
    async fn credit(&self, tenant: &Tenant, amount: i64, at: Timestamp) -> Result<(), StoreError>;

    async fn check_ledger(&self) -> Result<LedgerCheck, StoreError>;

    /// What operators watch in the database: pending transactions, transfers needing review
    /// (pending since before `review_before`) and the outbox backlog.
    async fn stats(&self, review_before: Timestamp) -> Result<StoreStats, StoreError>;

    /// This process's connections and batch writers. Read from memory, so it answers while
    /// the database does not.
    fn process_stats(&self) -> ProcessStoreStats;
}

/// An outbox event claimed for delivery, with where and how to send it.
#[derive(Debug, Clone)]
pub struct DueEvent {
    pub id: String,
    pub tenant: Tenant,
    pub payload: String,
    /// Attempts made so far (since the last redelivery).
    pub attempts: u32,
    pub webhook_url: Option<String>,
    pub webhook_secret: String,
    /// The secret the last rotation replaced, while it may still sign (see
    /// [`PreviousSecret::signs_at`]).
    pub previous_webhook_secret: Option<PreviousSecret>,
    pub endpoint_disabled: bool,
    /// Proves the claim: only the holder of the current lease can record a result.
    pub lease_token: String,
}

/// A webhook signing secret replaced by a rotation, and the end of its overlap.
#[derive(Clone)]
pub struct PreviousSecret {
    pub secret: String,
    pub until: Timestamp,
}

impl PreviousSecret {
    /// Whether a delivery made at `now` still carries this secret's signature.
    pub fn signs_at(&self, now: Timestamp) -> bool {
        now < self.until
    }
}

impl std::fmt::Debug for PreviousSecret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PreviousSecret")
            .field("secret", &"[redacted]")
            .field("until", &self.until)
            .finish()
    }
}

/// What an attempt (or the lack of an endpoint) does to its event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EventUpdate {
    Delivered,
    RetryAt {
        next_attempt_at: Timestamp,
        error: String,
    },
    Failed {
        error: String,
    },
    /// The receiver answered 410 Gone: stop sending to it until the merchant sets it again.
    FailedAndDisableEndpoint {
        error: String,
    },
}

/// One event's attempt and its consequence, ready to record.
#[derive(Debug, Clone)]
pub struct Finished {
    pub event: DueEvent,
    pub attempt: Option<Attempt>,
    pub update: EventUpdate,
}

/// The webhook outbox: claiming due events with a lease, recording attempts, redelivery.
#[async_trait]
pub trait WebhookStore: Send + Sync + 'static {
    /// Claims up to `limit` events due at `now` (pending, not leased or lease expired) until
    /// `lease_until`. Several dispatchers never claim the same event at once.
    async fn claim_due_events(
        &self,
        now: Timestamp,
        lease_until: Timestamp,
        limit: u32,
    ) -> Result<Vec<DueEvent>, StoreError>;

    /// Records an attempt (if one was made) and its consequence, in one transaction, provided
    /// the lease is still ours. `false` when the lease was lost (nothing recorded).
    async fn finish_attempt(
        &self,
        event: &DueEvent,
        attempt: Option<&Attempt>,
        update: &EventUpdate,
        now: Timestamp,
    ) -> Result<bool, StoreError> {
        let finished = Finished {
            event: event.clone(),
            attempt: attempt.cloned(),
            update: update.clone(),
        };
        Ok(self
            .finish_attempts(std::slice::from_ref(&finished), now)
            .await?
            .first()
            .copied()
            .unwrap_or(false))
    }

    /// From now on the writers send this process's settled events to `queue`, written leased
    /// for `lease` (`handoff`); `false` when a queue was given before. Events that find the
    /// queue full are claimed as ever.
    fn hand_settled_events_to(&self, queue: tokio::sync::mpsc::Sender<LeasedEvent>, lease: std::time::Duration)
        -> bool;

    /// Handed events with where to send them (read, not written); events whose tenant has no
    /// row are left out, and stay leased until their lease ends, as the claim leaves them.
    async fn address_events(&self, events: Vec<LeasedEvent>) -> Result<Vec<DueEvent>, StoreError>;

    /// Records a whole batch of attempts in one transaction (one commit for a dispatcher step):
    /// for each, whether its lease was still ours and its result recorded.
    async fn finish_attempts(&self, batch: &[Finished], now: Timestamp) -> Result<Vec<bool>, StoreError>;

    /// Events, newest first; all tenants when `tenant` is `None` (administration).
    async fn events(
        &self,
        tenant: Option<&Tenant>,
        filter: &EventFilter,
        page: &PageRequest,
    ) -> Result<Vec<EventSummary>, StoreError>;

    /// One event and its attempts, oldest first.
    async fn event(
        &self,
        tenant: Option<&Tenant>,
        id: &str,
    ) -> Result<Option<(EventSummary, Vec<Attempt>)>, StoreError>;

    /// Makes an event due again now, with a fresh schedule. `NotFound` when there is none.
    async fn redeliver(&self, tenant: Option<&Tenant>, id: &str, now: Timestamp) -> Result<(), StoreError>;

    /// Makes the failed events created in `[from, to)` due again; returns how many.
    async fn redeliver_failed(
        &self,
        tenant: Option<&Tenant>,
        from: Timestamp,
        to: Timestamp,
        now: Timestamp,
    ) -> Result<u64, StoreError>;
}

/// Opens the database named by `url` (`sqlite:` or `postgres://`) and brings its schema up to date.
pub async fn connect(url: &str) -> Result<std::sync::Arc<dyn Store>, StoreError> {
    connect_with(url, BatchSettings::default()).await
}

/// Opens the store at `url` with its writers batching as `batching` says.
pub async fn connect_with(url: &str, batching: BatchSettings) -> Result<std::sync::Arc<dyn Store>, StoreError> {
    if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        Ok(std::sync::Arc::new(PostgresStore::connect(url, batching).await?))
    } else {
        Ok(std::sync::Arc::new(SqliteStore::connect(url, batching).await?))
    }
}

#[cfg(test)]
mod tests {
    use super::transient;

    #[test]
    fn only_errors_a_retry_can_cure_are_unavailability() {
        for code in ["40001", "40P01", "53300", "57P01", "55P03", "5", "517", "13"] {
            assert!(transient(Some(code)), "{code}");
        }
        for code in ["42P01", "P0001", "23503", "1", "19"] {
            assert!(!transient(Some(code)), "{code}");
        }
    }
}
