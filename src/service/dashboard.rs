//! The merchant dashboard's sessions: sign-in with one environment's API key and secret, the
//! session behind the `momo_session` cookie, its CSRF token, and sign-out.
//!
//! The cookie holds a random token; the database holds only its SHA-256, with the tenant and
//! the credential used to sign in. A session is refused once idle too long, past its absolute
//! end, or when its credential is revoked: rotating the API key ends every session opened with
//! it, at once, in every process (the check is part of the session's own query).
//!
//! Reading a session writes nothing unless its last-seen time is older than
//! [`LAST_SEEN_EVERY`]: a made-up cookie costs one read, and a merchant clicking through pages
//! one write a minute, so the dashboard never queues on the writer the payments use. The idle
//! limit is therefore counted from a last-seen time up to that much early.
//!
//! The CSRF token is derived, not stored: the HMAC of the session token under the server's
//! pepper. Only the holder of the cookie can know it, it needs no column, and it is checked
//! in constant time.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use sha2::{Digest, Sha256};

use super::credentials::{random_token, secret_hash, secret_matches};
use std::sync::Arc;

use super::{Auth, Keys, ServiceError, Webhooks};
use crate::config::Config;
use crate::domain::{DashboardSession, NewDashboardSession, Tenant, Timestamp};
use crate::store::{ActivityStore, MerchantStore, PaymentStore, SessionStore, SessionUse, Store, WebhookStore};

/// How often, at most, a session's last-seen time is written.
pub const LAST_SEEN_EVERY: std::time::Duration = std::time::Duration::from_secs(60);

/// A session just opened: the token for the cookie (shown to nobody else) and what it opens.
pub struct SignedIn {
    pub token: String,
    pub session: DashboardSession,
}

fn token_hash(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}

fn csrf_input(token: &str) -> String {
    format!("dashboard-csrf:{token}")
}

/// The merchant dashboard's use cases: its sessions, and the views and actions of its pages
/// (`activity.rs`). It signs in through [`Auth`] and redelivers through [`Webhooks`].
#[derive(Clone)]
pub struct Dashboard {
    pub(super) sessions: Arc<dyn SessionStore>,
    pub(super) credentials: Arc<dyn MerchantStore>,
    pub(super) activity: Arc<dyn ActivityStore>,
    pub(super) payments: Arc<dyn PaymentStore>,
    pub(super) events: Arc<dyn WebhookStore>,
    pub(super) auth: Auth,
    pub(super) webhooks: Webhooks,
    pub(super) keys: Arc<Keys>,
    pub(super) config: Arc<Config>,
}

impl Dashboard {
    pub(super) fn new(
        store: Arc<dyn Store>,
        auth: Auth,
        webhooks: Webhooks,
        keys: Arc<Keys>,
        config: Arc<Config>,
    ) -> Dashboard {
        Dashboard {
            sessions: store.clone(),
            credentials: store.clone(),
            activity: store.clone(),
            payments: store.clone(),
            events: store,
            auth,
            webhooks,
            keys,
            config,
        }
    }

    /// Opens a session for `api_key:api_secret`, in the environment the key belongs to: a
    /// Sandbox key opens the Sandbox, never Production. Stale sessions are swept on the way.
    pub async fn dashboard_sign_in(
        &self,
        api_key: &str,
        api_secret: &str,
        now: Timestamp,
    ) -> Result<SignedIn, ServiceError> {
        let credential = self.auth.verified_credential(api_key, api_secret).await?;
        let settings = self.config.dashboard;
        self.sessions
            .delete_stale_sessions(now, now.minus(settings.session_idle))
            .await?;
        let token = random_token::<32>();
        let session = DashboardSession {
            tenant: Tenant {
                merchant_id: credential.merchant_id,
                environment: credential.environment,
            },
            credential_id: credential.id,
        };
        self.sessions
            .insert_session(&NewDashboardSession {
                token_hash: token_hash(&token),
                session: session.clone(),
                created_at: now,
                expires_at: now.plus(settings.session_max),
            })
            .await?;
        Ok(SignedIn { token, session })
    }

    /// The session of a cookie's token, if it may still be used at `now`; using it pushes its
    /// idle limit back, written at most every [`LAST_SEEN_EVERY`].
    pub async fn dashboard_session(
        &self,
        token: &str,
        now: Timestamp,
    ) -> Result<Option<DashboardSession>, ServiceError> {
        if token.is_empty() || token.len() > 128 {
            return Ok(None);
        }
        let at = SessionUse {
            now,
            idle_since: now.minus(self.config.dashboard.session_idle),
            seen_before: now.minus(LAST_SEEN_EVERY),
        };
        Ok(self.sessions.use_session(&token_hash(token), at).await?)
    }

    /// The API key a session was opened with (never its secret, which is not stored).
    pub async fn dashboard_api_key(&self, session: &DashboardSession) -> Result<String, ServiceError> {
        match self.credentials.credential(&session.credential_id).await? {
            Some(c) if c.merchant_id == session.tenant.merchant_id => Ok(c.api_key),
            _ => Err(ServiceError::NotFound("credential")),
        }
    }

    /// Ends the session of a cookie's token.
    pub async fn dashboard_sign_out(&self, token: &str) -> Result<(), ServiceError> {
        Ok(self.sessions.delete_session(&token_hash(token)).await?)
    }

    /// The CSRF token of a session: what every form of that session carries.
    pub fn dashboard_csrf_token(&self, session_token: &str) -> String {
        URL_SAFE_NO_PAD.encode(secret_hash(&self.keys.pepper, &csrf_input(session_token)))
    }

    /// Whether `presented` is the CSRF token of the session, compared in constant time.
    pub fn dashboard_csrf_matches(&self, session_token: &str, presented: &str) -> bool {
        match URL_SAFE_NO_PAD.decode(presented.trim()) {
            Ok(bytes) => {
                // `secret_matches` verifies an HMAC tag: constant time over the tag's bytes.
                let expected_input = csrf_input(session_token);
                secret_matches(&self.keys.pepper, &expected_input, &bytes)
            }
            Err(_) => false,
        }
    }
}
