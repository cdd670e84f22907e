//! Webhook events: one per transition to a final state, delivered at least once.

use super::environment::Tenant;
use super::page::{Cursor, Paged};
use super::time::Timestamp;
use super::transaction::Status;

/// Where an event's delivery stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EventState {
    /// Waiting for its next attempt (or being attempted).
    Pending,
    /// A 2xx answer was received.
    Delivered,
    /// Every attempt failed, or the endpoint is disabled or missing. Can be redelivered.
    Failed,
}

impl EventState {
    pub fn as_str(self) -> &'static str {
        match self {
            EventState::Pending => "pending",
            EventState::Delivered => "delivered",
            EventState::Failed => "failed",
        }
    }

    pub fn parse(raw: &str) -> Option<EventState> {
        match raw {
            "pending" => Some(EventState::Pending),
            "delivered" => Some(EventState::Delivered),
            "failed" => Some(EventState::Failed),
            _ => None,
        }
    }
}

/// One delivery attempt, as logged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attempt {
    pub attempt: u32,
    pub at: Timestamp,
    pub url: String,
    pub status_code: Option<u16>,
    pub latency_ms: u64,
    pub error: Option<String>,
    /// The first bytes of the answer's body.
    pub response: Option<String>,
}

/// An event as merchants and administrators see it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventSummary {
    pub id: super::ids::EventId,
    pub tenant: Tenant,
    pub transaction_ref: String,
    pub transaction_id: String,
    pub transaction_status: Status,
    pub state: EventState,
    pub attempts: u32,
    pub next_attempt_at: Option<Timestamp>,
    pub last_error: Option<String>,
    pub created_at: Timestamp,
    pub delivered_at: Option<Timestamp>,
    pub payload: String,
}

impl Paged for EventSummary {
    fn cursor(&self) -> Cursor {
        Cursor::at(self.created_at, &self.id)
    }
}

/// The failed events to send again: a tenant's (every tenant's with `None`) created in
/// `created`, a half-open range, so an empty or reversed one holds none.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FailedEvents<'a> {
    /// Whose events: one tenant's, or every tenant's (`None`, the operator's command line).
    pub tenant: Option<&'a Tenant>,
    /// When they were created: from `start` (included) to `end` (left out).
    pub created: std::ops::Range<Timestamp>,
}

/// Filters of event lists.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EventFilter {
    /// The merchant's transaction id (or the service reference).
    pub transaction_id: Option<String>,
    pub state: Option<EventState>,
}
