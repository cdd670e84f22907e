//! The storage of idempotency keys: a claim settled by the database's primary key on
//! (merchant, environment, key), never by a read-then-write in Rust.

use async_trait::async_trait;

use super::StoreError;
use crate::domain::{IdempotencyKey, KeptAnswer, KeyHolder, Tenant, Timestamp};

/// A request's claim of its key, as it is written.
#[derive(Debug, Clone)]
pub struct KeyClaim {
    pub tenant: Tenant,
    pub key: IdempotencyKey,
    /// The request's method, path and body, hashed.
    pub fingerprint: String,
    /// Proves the claim: only its holder records the answer or lets the key go.
    pub token: String,
    pub at: Timestamp,
    /// In flight until then; after it a retry may take the key over (a crashed process).
    pub locked_until: Timestamp,
    /// When the key and its answer may be purged.
    pub expires_at: Timestamp,
}

impl KeyClaim {
    /// The key as this claim holds it when it wins: keeping an answer or letting the key go
    /// writes only while its token still holds the key.
    pub fn held(self) -> HeldKey {
        HeldKey {
            tenant: self.tenant,
            key: self.key,
            token: self.token,
        }
    }
}

/// A key a request holds: the request ends by keeping its answer or by letting it go.
#[derive(Debug, Clone)]
pub struct HeldKey {
    pub tenant: Tenant,
    pub key: IdempotencyKey,
    pub(in crate::store) token: String,
}

/// What a claim found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClaimOutcome {
    /// The key is the claimant's: nobody held it, or it had expired, or the holder's lease
    /// lapsed on a request with the same fingerprint.
    Claimed,
    /// Another request holds the key.
    Held(KeyHolder),
}

#[async_trait]
pub trait IdempotencyStore: Send + Sync + 'static {
    /// Claims `claim.key` for its tenant: one insert that the primary key settles, so of
    /// concurrent claims exactly one wins, in every process sharing the database.
    async fn claim_idempotency_key(&self, claim: &KeyClaim) -> Result<ClaimOutcome, StoreError>;

    /// Records the answer of a claimed key, provided the claim `token` still holds it; `false`
    /// (nothing written) when another request took it over after the lease.
    async fn keep_idempotent_answer(&self, held: &HeldKey, answer: &KeptAnswer) -> Result<bool, StoreError>;

    /// Lets a claimed key go (its request will be executed again when retried), provided the
    /// claim `token` still holds it and no answer is kept.
    async fn release_idempotency_key(&self, held: &HeldKey) -> Result<bool, StoreError>;

    /// Deletes up to `limit` keys expired at `now`; returns how many.
    async fn purge_idempotency_keys(&self, now: Timestamp, limit: u32) -> Result<u64, StoreError>;
}
