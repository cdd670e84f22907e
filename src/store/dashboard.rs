//! Views the merchant dashboard reads beyond the API's: a transaction's transitions, the
//! overview's activity, the webhooks page's attempts and endpoint. What they guarantee: they
//! only read, each in one statement, so a page never shows a half-written change.

use async_trait::async_trait;

use super::StoreError;
use crate::domain::{Activity, RecentAttempt, Tenant, Timestamp, TransactionKey, Transition, WebhookEndpoint};

#[async_trait]
pub trait ActivityStore: Send + Sync + 'static {
    /// The transitions of a transaction (by the gateway's own id), oldest first.
    async fn transitions(&self, transaction_key: &TransactionKey) -> Result<Vec<Transition>, StoreError>;

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
}
