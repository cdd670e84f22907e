//! The merchant dashboard's sessions. What they guarantee: a session is usable only while it is
//! valid (before its absolute end, used within the idle time, its credential not revoked), and
//! that is checked in the one statement that reads it, so a key rotation or a sign-out takes
//! effect at once, in every process. Using a session writes only to move its last-seen time,
//! and only when that time is older than the caller allows: a cookie that names no valid
//! session never writes, and page after page of one session writes now and then, so neither
//! queues on the one writer connection the payments use on SQLite.

use async_trait::async_trait;

use super::StoreError;
use crate::domain::{DashboardSession, NewDashboardSession, Timestamp};

/// The instants a session's use is judged by, named: three timestamps a caller could swap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SessionUse {
    pub now: Timestamp,
    /// Used since then, or it has idled out.
    pub idle_since: Timestamp,
    /// Its last-seen time is written only when it is not after this.
    pub seen_before: Timestamp,
}

#[async_trait]
pub trait SessionStore: Send + Sync + 'static {
    /// Records a new session.
    async fn insert_session(&self, session: &NewDashboardSession) -> Result<(), StoreError>;

    /// The session of `token_hash` if it is still valid at `at.now` (before its absolute end,
    /// used after `at.idle_since`, its credential not revoked), read in one statement, so a
    /// rotation committed before it is always seen. Its last-seen time moves to `at.now` only
    /// when it is not after `at.seen_before` (the write, too, checks that the session is
    /// valid); nothing is written for a session that is not valid.
    async fn use_session(&self, token_hash: &str, at: SessionUse) -> Result<Option<DashboardSession>, StoreError>;

    /// Ends a session (sign-out). Ending an unknown one is not an error.
    async fn delete_session(&self, token_hash: &str) -> Result<(), StoreError>;

    /// Deletes sessions that can no longer be used: past their end, idle since before
    /// `idle_since`, or of a revoked credential. Returns how many.
    async fn delete_stale_sessions(&self, now: Timestamp, idle_since: Timestamp) -> Result<u64, StoreError>;
}
