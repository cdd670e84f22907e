//! Webhook events: one per transition to a final state, delivered at least once.

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
