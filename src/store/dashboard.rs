//! What the merchant dashboard needs of storage beyond the API's: sessions, a transaction's
//! transitions, the overview's activity, and the webhooks page's attempts and test deliveries.

use async_trait::async_trait;

use super::StoreError;
use crate::domain::{
    Activity, Attempt, DashboardSession, NewDashboardSession, RecentAttempt, Tenant, Timestamp, Transition,
    WebhookEndpoint,
};

#[async_trait]
pub trait DashboardStore: Send + Sync + 'static {
    /// Records a new session.
    async fn insert_session(&self, session: &NewDashboardSession) -> Result<(), StoreError>;

    /// The session of `token_hash` if it is still valid at `now` (before its absolute end,
    /// used after `idle_since`, its credential not revoked), marking it used at `now`. One
    /// statement, so a rotation committed before it is always seen.
    async fn use_session(
        &self,
        token_hash: &str,
        now: Timestamp,
        idle_since: Timestamp,
    ) -> Result<Option<DashboardSession>, StoreError>;

    /// Ends a session (sign-out). Ending an unknown one is not an error.
    async fn delete_session(&self, token_hash: &str) -> Result<(), StoreError>;

    /// Deletes sessions that can no longer be used: past their end, idle since before
    /// `idle_since`, or of a revoked credential. Returns how many.
    async fn delete_stale_sessions(&self, now: Timestamp, idle_since: Timestamp) -> Result<u64, StoreError>;

    /// The transitions of a transaction (by the gateway's own id), oldest first.
    async fn transitions(&self, transaction_key: &str) -> Result<Vec<Transition>, StoreError>;

    /// The tenant's transactions created from `since` on, counted and summed per day (days
    /// of 24 hours counted from `since`), operator and status.
    async fn activity(&self, tenant: &Tenant, since: Timestamp) -> Result<Vec<Activity>, StoreError>;

    /// The tenant's latest webhook attempts (events' and test deliveries'), newest first.
    async fn recent_attempts(&self, tenant: &Tenant, limit: u32) -> Result<Vec<RecentAttempt>, StoreError>;

    /// The tenant's webhook URL and signing secrets (the current one first, then the one a
    /// rotation replaced while it still signs at `now`); `None` when the tenant does not exist.
    async fn webhook_endpoint(
        &self,
        tenant: &Tenant,
        now: Timestamp,
    ) -> Result<Option<(WebhookEndpoint, Vec<String>)>, StoreError>;

    /// Logs a test delivery.
    async fn insert_test_delivery(&self, tenant: &Tenant, attempt: &Attempt) -> Result<(), StoreError>;
}
