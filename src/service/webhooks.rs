//! Webhook events as merchants and administrators see them: lists, one event with its
//! attempts, and redelivery.

use std::sync::Arc;

use super::{OrNotFound, ServiceError};
use crate::domain::{Attempt, EventFilter, EventSummary, FailedEvents};
use crate::domain::{PageRequest, Tenant, Timestamp};
use crate::store::WebhookStore;

/// Webhook events as merchants and administrators see them: the outbox and nothing else.
#[derive(Clone)]
pub struct Webhooks {
    store: Arc<dyn WebhookStore>,
}

impl Webhooks {
    pub(super) fn new(store: Arc<dyn WebhookStore>) -> Webhooks {
        Webhooks { store }
    }

    /// Events newest first; every tenant's when `tenant` is `None`.
    pub async fn webhook_events(
        &self,
        tenant: Option<&Tenant>,
        filter: &EventFilter,
        page: &PageRequest,
    ) -> Result<Vec<EventSummary>, ServiceError> {
        Ok(self.store.events(tenant, filter, page).await?)
    }

    pub async fn webhook_event(
        &self,
        tenant: Option<&Tenant>,
        id: &str,
    ) -> Result<(EventSummary, Vec<Attempt>), ServiceError> {
        self.store
            .event(tenant, id)
            .await?
            .ok_or(ServiceError::NotFound("webhook event"))
    }

    /// Sends an event again, as soon as a dispatcher runs, with the same `webhook-id`.
    pub async fn redeliver_event(&self, tenant: Option<&Tenant>, id: &str, now: Timestamp) -> Result<(), ServiceError> {
        self.store
            .redeliver(tenant, id, now)
            .await
            .or_not_found("webhook event")
    }

    /// Sends `events` again; returns how many. An empty or reversed range holds no event, as a
    /// transaction list with such a range is empty.
    pub async fn redeliver_failed_events(
        &self,
        events: &FailedEvents<'_>,
        now: Timestamp,
    ) -> Result<u64, ServiceError> {
        if events.created.is_empty() {
            return Ok(0);
        }
        Ok(self.store.redeliver_failed(events, now).await?)
    }
}
