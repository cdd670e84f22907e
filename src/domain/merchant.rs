//! Merchants and their API credentials.

use super::environment::Environment;
use super::time::Timestamp;

pub use super::ids::MerchantId;

/// An API key and the keyed hash of its secret, for one merchant environment.
/// The secret itself is never stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Credential {
    pub id: super::ids::CredentialId,
    pub merchant_id: MerchantId,
    pub environment: Environment,
    pub api_key: String,
    pub secret_hash: Vec<u8>,
    pub created_at: Timestamp,
    pub revoked_at: Option<Timestamp>,
}

impl Credential {
    pub fn is_active(&self) -> bool {
        self.revoked_at.is_none()
    }
}

/// What `merchant list` shows: no secrets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MerchantSummary {
    pub id: MerchantId,
    pub name: String,
    pub created_at: Timestamp,
    pub environments: Vec<EnvironmentSummary>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnvironmentSummary {
    pub environment: Environment,
    pub api_key: String,
    pub webhook_url: Option<String>,
}
