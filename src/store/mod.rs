//! Storage: one [`Store`] trait, implemented for SQLite and for PostgreSQL.
//!
//! Store methods express invariants, not tables: each method that changes several rows does so
//! in one database transaction, and races are settled by the database (unique constraints,
//! conditional updates), never by a read-then-write in Rust.

mod dashboard;
mod handoff;
mod idempotency;
mod links;
mod lookup_batch;
mod merchants;
mod migrations;
mod names;
mod payments;
mod payouts;
mod postgres;
mod queued;
mod recipients;
mod reports;
mod rows;
mod sessions;
mod sql;
mod sqlite;
mod stats;
mod webhooks;
mod write_counters;

// Re-exported: the domain owns these types, and the backends name them through `super::`.
pub use crate::domain::{Attempt, Balance, EventFilter, EventSummary, TransactionFilter, TransactionRecord};
pub use dashboard::ActivityStore;
pub use handoff::LeasedEvent;
pub use idempotency::{ClaimOutcome, HeldKey, IdempotencyStore, KeyClaim};
pub use links::LinkStore;
pub use merchants::{MerchantStore, NewMerchant, NewMerchantEnvironment};
pub use payments::{
    CarrierChange, CheckedLookup, DueChecks, LedgerCheck, Missing, PaymentStore, PendingPage, SendMark, Settlement,
};
pub use payouts::{queued_check, BatchEventBody, BatchItem, BatchLimits, NewBatch, PayoutStore, QueuedClaim, Seal};
pub use postgres::PostgresStore;
pub(crate) use queued::take_queued_within;
pub use recipients::RecipientStore;
pub use reports::ReportStore;
pub use sessions::{SessionStore, SessionUse};
pub use sql::writer::BatchSettings;
pub use sqlite::SqliteStore;
pub use stats::{ProcessStoreStats, StoreStats, FAILING_AFTER_ATTEMPTS};
pub use webhooks::{DueEvent, EventUpdate, Finished, PreviousSecret, WebhookStore};
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
    /// A refund names no `SUCCESSFUL` collection of its tenant, or more than what remains of
    /// it once its other refunds that are not `FAILED` are counted: nothing was written.
    #[error("the collection cannot be refunded that much")]
    NotRefundable,
    /// A payment names a link of another tenant, or one deactivated, expired or taking no
    /// more payments: nothing was written.
    #[error("the payment link takes no more payments")]
    LinkClosed,
    /// A merchant's cap (queued payout transfers, batches being recorded at once) would be
    /// passed: nothing was written. The text says which and how to proceed.
    #[error("{0}")]
    OverLimit(String),
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

/// The persistence the gateway needs, whatever the database.
pub trait Store:
    MerchantStore
    + PaymentStore
    + WebhookStore
    + ReportStore
    + SessionStore
    + ActivityStore
    + IdempotencyStore
    + LinkStore
    + PayoutStore
    + RecipientStore
{
}

impl Store for sqlite::SqliteStore {}
impl Store for postgres::PostgresStore {}

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
