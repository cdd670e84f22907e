//! Idempotent writes: a request with an `Idempotency-Key` claims the key for its merchant and
//! environment before it runs, then keeps its answer (replayed to every retry with the same
//! body) or lets the key go (a retry runs again). The database settles every claim
//! (`IdempotencyStore`); this file holds the rules: what "the same request" is, how long a
//! key is kept, how long a request may hold one in flight, and the purge of expired keys.

use std::time::Duration;

use sha2::{Digest, Sha256};

use std::sync::Arc;

use super::ServiceError;
use crate::config::Config;
use crate::domain::{IdempotencyKey, KeptAnswer, Tenant, Timestamp};
pub use crate::store::HeldKey;
use crate::store::{ClaimOutcome, IdempotencyStore, KeyClaim};

/// How long a request holds its key in flight: twice the longest operator timeout (a connector
/// may make two calls, a token then the payment) and a minute for the database; 90 s by
/// default. A process that dies meanwhile leaves the key to a retry after this; a request still
/// running then would run beside that retry, so the lease is past the longest a request takes.
pub fn in_flight_lease(config: &Config) -> Duration {
    let longest = config
        .connectors
        .timeouts
        .iter()
        .map(|(_, _, timeout)| *timeout)
        .fold(config.connectors.timeout, Duration::max);
    longest * 2 + Duration::from_secs(60)
}

/// How many expired keys one purge statement deletes.
pub const PURGE_BATCH: u32 = 500;

/// What the request sent: hashed into the fingerprint that tells "the same request" apart.
#[derive(Debug, Clone, Copy)]
pub struct RequestShape<'a> {
    pub method: &'a str,
    /// The path and query string, as sent.
    pub target: &'a str,
    /// The body's bytes, exactly.
    pub body: &'a [u8],
}

impl RequestShape<'_> {
    /// SHA-256 of the method, the path with its query, and the raw body, in hex. Raw bytes,
    /// not parsed JSON: a retry resends the same bytes, and anything else is another request.
    pub fn fingerprint(&self) -> String {
        let mut hash = Sha256::new();
        for part in [self.method.as_bytes(), self.target.as_bytes()] {
            hash.update((part.len() as u64).to_be_bytes());
            hash.update(part);
        }
        hash.update(self.body);
        hex::encode(hash.finalize())
    }
}

/// What to do with a request that carries a key.
#[derive(Debug)]
pub enum Admission {
    /// Run it: the key is held for it.
    Run(HeldKey),
    /// The key's first request was answered: send that answer again.
    Replay(KeptAnswer),
    /// The key's first request is still running.
    InFlight,
    /// The key was used for another request (method, path or body).
    Mismatch,
}

/// Idempotency keys: their store and the settings of their leases and lifetime.
#[derive(Clone)]
pub struct Idempotency {
    store: Arc<dyn IdempotencyStore>,
    config: Arc<Config>,
}

impl Idempotency {
    pub(super) fn new(store: Arc<dyn IdempotencyStore>, config: Arc<Config>) -> Idempotency {
        Idempotency { store, config }
    }

    /// Claims `key` for `request` at `now`, or says why the request must not run.
    pub async fn admit(
        &self,
        tenant: &Tenant,
        key: &IdempotencyKey,
        request: RequestShape<'_>,
        now: Timestamp,
    ) -> Result<Admission, ServiceError> {
        let claim = KeyClaim {
            tenant: tenant.clone(),
            key: key.clone(),
            fingerprint: request.fingerprint(),
            token: uuid::Uuid::new_v4().simple().to_string(),
            at: now,
            locked_until: now.plus(in_flight_lease(&self.config)),
            expires_at: now.plus(self.config.idempotency_key_ttl),
        };
        Ok(match self.store.claim_idempotency_key(&claim).await? {
            ClaimOutcome::Claimed => Admission::Run(claim.held()),
            ClaimOutcome::Held(holder) if holder.fingerprint != claim.fingerprint => Admission::Mismatch,
            ClaimOutcome::Held(holder) => match holder.answer {
                Some(answer) => Admission::Replay(answer),
                None => Admission::InFlight,
            },
        })
    }

    /// Keeps the answer of a request that holds its key, for the retries. `false` when the
    /// request held it so long that a retry took it over (nothing is kept then).
    pub async fn keep_answer(&self, held: &HeldKey, answer: &KeptAnswer) -> Result<bool, ServiceError> {
        Ok(self.store.keep_idempotent_answer(held, answer).await?)
    }

    /// Lets the key of a request go: a retry with it runs again.
    pub async fn release_key(&self, held: &HeldKey) -> Result<bool, ServiceError> {
        Ok(self.store.release_idempotency_key(held).await?)
    }

    /// Deletes the keys expired at `now`, a batch at a time; returns how many.
    pub async fn purge_idempotency_keys(&self, now: Timestamp) -> Result<u64, ServiceError> {
        let mut purged = 0;
        loop {
            let batch = self.store.purge_idempotency_keys(now, PURGE_BATCH).await?;
            purged += batch;
            if batch < u64::from(PURGE_BATCH) {
                return Ok(purged);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::RequestShape;

    #[test]
    fn the_lease_outlasts_two_calls_to_the_slowest_operator() {
        let mut config = crate::config::Config::default();
        assert_eq!(super::in_flight_lease(&config), std::time::Duration::from_secs(90));
        config.connectors.timeouts.push((
            crate::domain::OperatorCode::Beta,
            crate::domain::Environment::Production,
            std::time::Duration::from_secs(120),
        ));
        assert_eq!(super::in_flight_lease(&config), std::time::Duration::from_secs(300));
    }

    #[test]
    fn the_fingerprint_covers_method_path_and_body_and_nothing_else() {
        let shape = |method, target, body: &'static [u8]| RequestShape { method, target, body }.fingerprint();
        let base = shape("POST", "/v1/customer", b"{\"a\":1}");
        assert_eq!(base, shape("POST", "/v1/customer", b"{\"a\":1}"));
        assert_ne!(base, shape("POST", "/v1/customer", b"{\"a\": 1}"));
        assert_ne!(base, shape("POST", "/v1/customers/create", b"{\"a\":1}"));
        assert_ne!(base, shape("PUT", "/v1/customer", b"{\"a\":1}"));
        // The parts are framed: moving bytes from the path to the body is another request.
        assert_ne!(shape("POST", "/a", b"b"), shape("POST", "/ab", b""));
        assert_eq!(base.len(), 64);
    }
}
