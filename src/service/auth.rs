//! Tokens: issued for an API key and secret, checked on every other request.
//!
//! A token is an HS256 JWT naming its merchant, credential and environment. Verification also
//! checks that the credential is still active, so rotating a secret revokes its tokens at once,
//! in every process sharing the database.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::credentials::{random_token, secret_matches};

use super::ServiceError;
use crate::config::Config;
use crate::domain::{
    Credential, CredentialId, Environment, MerchantId, Tenant, Timestamp, TransactionRecord, TransactionRef,
};
use crate::store::{MerchantStore, PaymentStore, Store, StoreError};

/// Server keys: the JWT signing key (with its key id) and the pepper of credential hashes.
pub struct Keys {
    jwt_encoding: EncodingKey,
    jwt_decoding: DecodingKey,
    pub kid: String,
    pub pepper: Vec<u8>,
}

impl Keys {
    /// Uses `MOMO_JWT_SECRET` when set; otherwise the key kept in the database, generated on the
    /// first start. The pepper is always kept in the database.
    pub async fn load(store: &dyn Store, config: &Config) -> Result<Keys, StoreError> {
        let jwt_secret = match &config.jwt_secret {
            Some(secret) => secret.clone(),
            None => store.setting_or_insert("jwt_secret", &random_token::<48>()).await?,
        };
        let pepper = store
            .setting_or_insert("credential_pepper", &random_token::<32>())
            .await?;
        Ok(Keys::from_secrets(jwt_secret.as_bytes(), pepper.as_bytes()))
    }

    /// A key of its own for `purpose`, derived from the pepper, so that no two uses (credential
    /// hashes, payer status-page tokens, recipient lookups' hashes) share one key.
    pub fn derived(&self, purpose: &str) -> Vec<u8> {
        super::credentials::secret_hash(&self.pepper, &format!("momo-gateway derived key: {purpose}"))
    }

    pub fn from_secrets(jwt_secret: &[u8], pepper: &[u8]) -> Keys {
        let digest = Sha256::digest(jwt_secret);
        Keys {
            jwt_encoding: EncodingKey::from_secret(jwt_secret),
            jwt_decoding: DecodingKey::from_secret(jwt_secret),
            kid: hex::encode(&digest[..6]),
            pepper: pepper.to_vec(),
        }
    }
}

#[derive(Debug, Serialize, Deserialize)]
struct Claims {
    /// The merchant.
    sub: String,
    /// The credential the token was issued for.
    cid: String,
    env: String,
    iat: i64,
    exp: i64,
    jti: String,
}

/// A token as handed to the merchant.
#[derive(Debug, Clone)]
pub struct IssuedToken {
    pub token: String,
    /// When it expires, to the second (the JWT's `exp`).
    pub expires_at: Timestamp,
}

/// Who is calling: established from a valid bearer token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Principal {
    pub tenant: Tenant,
    pub credential_id: crate::domain::CredentialId,
}

/// Sign-in and its checks: the merchants' credentials, the server's keys, the token lifetime,
/// and which credentials were seen active lately (shared with the payments, which forget one
/// their own insert finds revoked). Lookups that recheck the credential in the same round trip
/// read the payments' store.
#[derive(Clone)]
pub struct Auth(Arc<AuthParts>);

/// What [`Auth`] holds, behind its one `Arc` (see [`super::Gateway`] for why one).
pub struct AuthParts {
    credentials: Arc<dyn MerchantStore>,
    payments: Arc<dyn PaymentStore>,
    keys: Arc<Keys>,
    config: Arc<Config>,
    active_credentials: Arc<ActiveCredentials>,
}

impl std::ops::Deref for Auth {
    type Target = AuthParts;

    fn deref(&self) -> &AuthParts {
        &self.0
    }
}

impl Auth {
    pub(super) fn new(
        store: Arc<dyn Store>,
        keys: Arc<Keys>,
        config: Arc<Config>,
        active_credentials: Arc<ActiveCredentials>,
    ) -> Auth {
        Auth(Arc::new(AuthParts {
            credentials: store.clone(),
            payments: store,
            keys,
            config,
            active_credentials,
        }))
    }

    /// Issues a token for `api_key:api_secret`, which must belong to `environment`.
    pub async fn issue_token(
        &self,
        api_key: &str,
        api_secret: &str,
        environment: Environment,
        now: Timestamp,
    ) -> Result<IssuedToken, ServiceError> {
        let credential = self.verified_credential(api_key, api_secret).await?;
        if credential.environment != environment {
            return Err(ServiceError::Unauthorized(format!(
                "these credentials belong to the {} environment, but X-Environment names {}",
                credential.environment, environment
            )));
        }
        let iat = now.unix_seconds();
        let claims = Claims {
            sub: credential.merchant_id.into_string(),
            cid: credential.id.into_string(),
            env: environment.as_str().to_owned(),
            iat,
            exp: iat + self.config.token_ttl.as_secs() as i64,
            jti: uuid::Uuid::new_v4().to_string(),
        };
        let mut header = Header::new(Algorithm::HS256);
        header.kid = Some(self.keys.kid.clone());
        let token = jsonwebtoken::encode(&header, &claims, &self.keys.jwt_encoding)
            .map_err(|e| ServiceError::Internal(format!("token signing failed: {e}")))?;
        Ok(IssuedToken {
            token,
            expires_at: Timestamp(claims.exp * 1_000),
        })
    }

    /// The active credential of `api_key`, when `api_secret` is its secret (compared in
    /// constant time). The API's token requests and the dashboard's sign-in both go through it.
    pub(super) async fn verified_credential(
        &self,
        api_key: &str,
        api_secret: &str,
    ) -> Result<Credential, ServiceError> {
        let refused = || ServiceError::Unauthorized("invalid API key or secret".to_owned());
        let credential = self.credentials.credential_by_key(api_key).await?.ok_or_else(refused)?;
        if !credential.is_active() || !secret_matches(&self.keys.pepper, api_secret, &credential.secret_hash) {
            return Err(refused());
        }
        Ok(credential)
    }

    /// Checks a bearer token, and `X-Environment` when the request carries one.
    pub async fn authenticate(&self, token: &str, environment_header: Option<&str>) -> Result<Principal, ServiceError> {
        let claimed = self.verify_token(token, environment_header)?;
        let credential = self.credentials.credential(&claimed.credential_id).await?;
        match credential {
            Some(c)
                if c.is_active()
                    && c.merchant_id == claimed.tenant.merchant_id
                    && c.environment == claimed.tenant.environment =>
            {
                Ok(claimed)
            }
            _ => Err(revoked()),
        }
    }

    /// [`authenticate`](Self::authenticate) without asking the database about a credential it
    /// found active in the last few seconds. Only for requests that check the credential again
    /// in their own query ([`transaction_checked`](Self::transaction_checked), and the `PENDING`
    /// insert of [`create_payment_as`](Self::create_payment_as)), so a rotation or revocation still
    /// takes effect at once, in every process.
    pub async fn authenticate_rechecked(
        &self,
        token: &str,
        environment_header: Option<&str>,
    ) -> Result<Principal, ServiceError> {
        let claimed = self.verify_token(token, environment_header)?;
        if self.active_credentials.seen(&claimed) {
            return Ok(claimed);
        }
        let principal = self.authenticate(token, environment_header).await?;
        self.active_credentials.saw(&principal);
        Ok(principal)
    }

    /// The caller's transaction, by its transaction id or reference, read with the caller's
    /// credential in one round trip: a credential revoked since its token was checked is refused.
    pub async fn transaction_checked(
        &self,
        caller: &Principal,
        id: &TransactionRef,
    ) -> Result<TransactionRecord, ServiceError> {
        let lookup = self
            .payments
            .transaction_checked(&caller.tenant, &caller.credential_id, id)
            .await?;
        if !lookup.credential_active {
            self.active_credentials.forget(&caller.credential_id);
            return Err(revoked());
        }
        lookup.record.ok_or(ServiceError::NotFound("transaction"))
    }

    /// What a token says, once its signature, expiry and environment check out.
    fn verify_token(&self, token: &str, environment_header: Option<&str>) -> Result<Principal, ServiceError> {
        let header = jsonwebtoken::decode_header(token).map_err(|_| invalid("malformed"))?;
        if header.kid.as_deref() != Some(self.keys.kid.as_str()) {
            return Err(invalid("signed with an unknown key"));
        }
        let mut validation = Validation::new(Algorithm::HS256);
        validation.leeway = 0;
        validation.set_required_spec_claims(&["exp"]);
        let claims = jsonwebtoken::decode::<Claims>(token, &self.keys.jwt_decoding, &validation)
            .map_err(|e| match e.kind() {
                jsonwebtoken::errors::ErrorKind::ExpiredSignature => {
                    invalid("expired; request a new one from /v1/auth")
                }
                _ => invalid("signature or claims do not verify"),
            })?
            .claims;
        let environment: Environment = claims.env.parse().map_err(|_| invalid("unknown environment"))?;
        if let Some(named) = environment_header {
            if named.parse::<Environment>().ok() != Some(environment) {
                return Err(ServiceError::Unauthorized(format!(
                    "X-Environment {named:?} does not match the token's environment {environment}"
                )));
            }
        }
        Ok(Principal {
            tenant: Tenant {
                merchant_id: MerchantId::from(claims.sub),
                environment,
            },
            credential_id: CredentialId::from(claims.cid),
        })
    }
}

fn invalid(why: &str) -> ServiceError {
    ServiceError::Unauthorized(format!("invalid access token: {why}"))
}

pub(super) fn revoked() -> ServiceError {
    invalid("its credential was revoked")
}

/// Credentials this process found active lately, with the tenant they belong to, and when. A
/// token is trusted from here only when it names that same tenant: a credential is never
/// lent to another merchant or environment, cached or not. Hand-written: a map behind a lock
/// is all it takes, and no cache crate earns its build time for it.
#[derive(Debug, Default)]
pub struct ActiveCredentials {
    seen: Mutex<HashMap<CredentialId, (Tenant, Instant)>>,
}

/// How long a credential found active is trusted without asking again.
const TRUSTED_FOR: Duration = Duration::from_secs(5);

/// Entries kept at most; past it the map starts over.
const MAX_ENTRIES: usize = 10_000;

impl ActiveCredentials {
    fn seen(&self, claimed: &Principal) -> bool {
        let seen = self.seen.lock().unwrap_or_else(|p| p.into_inner());
        seen.get(&claimed.credential_id)
            .is_some_and(|(tenant, at)| *tenant == claimed.tenant && at.elapsed() < TRUSTED_FOR)
    }

    /// Remembers `principal`'s credential, checked against the database just now.
    fn saw(&self, principal: &Principal) {
        let mut seen = self.seen.lock().unwrap_or_else(|p| p.into_inner());
        if seen.len() >= MAX_ENTRIES {
            seen.clear();
        }
        seen.insert(
            principal.credential_id.clone(),
            (principal.tenant.clone(), Instant::now()),
        );
    }

    pub(super) fn forget(&self, credential_id: &CredentialId) {
        self.seen
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(credential_id);
    }
}
