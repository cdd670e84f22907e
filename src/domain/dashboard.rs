//! What the merchant dashboard reads beside transactions: its sessions, a transaction's
//! transitions, the activity behind the overview, and recent webhook attempts.

use super::environment::Tenant;
use super::event::Attempt;
use super::money::Francs;
use super::operator::OperatorCode;
use super::time::Timestamp;
use super::transaction::Status;

/// A signed-in dashboard session: one tenant, through one credential. The session ends when
/// that credential is revoked (a rotation), whatever its expiry says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DashboardSession {
    pub tenant: Tenant,
    pub credential_id: super::ids::CredentialId,
}

/// A session to record. Only the hash of its token is stored: the cookie is the secret.
#[derive(Debug, Clone)]
pub struct NewDashboardSession {
    pub token_hash: String,
    pub session: DashboardSession,
    pub created_at: Timestamp,
    /// The absolute end, whatever the activity.
    pub expires_at: Timestamp,
}

/// One step of a transaction's life, as recorded with the change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Transition {
    pub from: Option<Status>,
    pub to: Status,
    /// Why (`CREATED`, `OPERATOR_ANSWER`, `RECONCILED`…), as stored.
    pub cause: String,
    /// What the operator or the administrator said, when anything was recorded.
    pub detail: Option<String>,
    pub at: Timestamp,
}

/// Transactions created on one day, for one operator and status: the overview's figures.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Activity {
    /// Whole days since the start of the period asked for (0 is its first day).
    pub day: u64,
    pub operator: OperatorCode,
    pub status: Status,
    pub count: u64,
    /// The sum of the amounts.
    pub amount: Francs,
}

/// A webhook attempt with what it was about: an event of a transaction, or a test delivery.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecentAttempt {
    /// The merchant's transaction id, `None` for a test delivery.
    pub transaction_id: Option<String>,
    /// The status the event announced, `None` for a test delivery.
    pub event_status: Option<Status>,
    pub attempt: Attempt,
}

/// Where and how a tenant's webhooks are sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebhookEndpoint {
    pub url: Option<String>,
    /// Stopped after a 410 Gone until the URL is set again.
    pub disabled: bool,
}
