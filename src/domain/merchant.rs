//! Merchants and their API credentials.

use std::fmt;

use super::environment::Environment;
use super::time::Timestamp;

/// A merchant's identifier (a UUID, as text).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct MerchantId(pub String);

impl fmt::Display for MerchantId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// An API key and the keyed hash of its secret, for one merchant environment.
/// The secret itself is never stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Credential {
    pub id: String,
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
