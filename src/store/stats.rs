//! What `/metrics` reads of the store: the database's figures and this process's.

use super::WriteBatchStats;
use crate::domain::Timestamp;

/// Operational figures read from the database: the same whichever process reads them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StoreStats {
    pub pending_transactions: i64,
    /// Creation time of the oldest pending transaction, if any.
    pub oldest_pending: Option<Timestamp>,
    pub transfers_needing_review: i64,
    pub outbox_backlog: i64,
    pub oldest_outbox: Option<Timestamp>,
    /// Merchant environments with an event still undelivered after
    /// [`FAILING_AFTER_ATTEMPTS`] attempts or more: their receivers are failing.
    pub webhook_endpoints_failing: i64,
}

/// How many failed attempts of one undelivered event make its merchant's endpoint count as
/// failing: one failure is a blip, three in a row (over some minutes of backoff) are not.
pub const FAILING_AFTER_ATTEMPTS: i64 = 3;

/// This process's side of the store: its connection pools and its batch writers.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ProcessStoreStats {
    pub pool_size: u32,
    pub pool_idle: u32,
    /// This process's batch writers since it started (not the database's: sum over processes).
    pub writes: WriteBatchStats,
}
