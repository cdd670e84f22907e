//! The webhook outbox: the `WebhookStore`, and what its claims and results carry.

use async_trait::async_trait;

use super::LeasedEvent;
use super::StoreError;
use crate::domain::{Attempt, EventFilter, EventSummary, FailedEvents, PageRequest, Tenant, Timestamp};

/// An outbox event claimed for delivery, with where and how to send it.
#[derive(Debug, Clone)]
pub struct DueEvent {
    pub id: crate::domain::EventId,
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

    /// Logs a test delivery (the dashboard's "send a test"), which no event is made for.
    async fn insert_test_delivery(&self, tenant: &Tenant, attempt: &Attempt) -> Result<(), StoreError>;

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

    /// Makes `events` due again; returns how many.
    async fn redeliver_failed(&self, events: &FailedEvents<'_>, now: Timestamp) -> Result<u64, StoreError>;
}
