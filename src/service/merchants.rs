//! Merchant administration: creation, API credential and webhook signing secret rotation,
//! webhook URLs. Used by the admin command line, the merchant API and the first start's demo
//! merchant.

use super::credentials::{self, IssuedCredential};
use std::sync::Arc;

use super::{Keys, OrNotFound, ServiceError};
use crate::config::Config;
use crate::domain::{Environment, Francs, MerchantId, MerchantSummary, Tenant, Timestamp};
use crate::store::{MerchantStore, NewMerchant, NewMerchantEnvironment};
use crate::webhook::client::UrlProblem;

/// What merchant creation shows once: every secret in clear.
#[derive(Debug, Clone)]
pub struct CreatedMerchant {
    pub id: MerchantId,
    pub name: String,
    pub environments: Vec<MerchantEnvironmentSecrets>,
}

#[derive(Debug, Clone)]
pub struct MerchantEnvironmentSecrets {
    pub environment: Environment,
    pub api_key: String,
    pub api_secret: String,
    pub webhook_secret: String,
    pub webhook_url: Option<String>,
}

/// A tenant's new webhook signing secret, shown once, and until when the secret it replaced
/// still signs deliveries beside it.
#[derive(Debug, Clone)]
pub struct RotatedWebhookSecret {
    pub environment: Environment,
    pub webhook_secret: String,
    pub previous_valid_until: Timestamp,
}

/// Checks a webhook URL's form: `http` or `https` with a host.
pub fn parse_webhook_url(raw: &str) -> Result<String, ServiceError> {
    let url = reqwest::Url::parse(raw)
        .map_err(|e| ServiceError::Invalid(format!("webhook URL {raw:?} is not a valid URL: {e}")))?;
    if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
        return Err(ServiceError::Invalid(format!(
            "webhook URL {raw:?} must be an http:// or https:// URL with a host"
        )));
    }
    Ok(url.to_string())
}

/// Why a webhook URL was not set.
#[derive(Debug, thiserror::Error)]
pub enum WebhookUrlError {
    /// The URL is refused; nothing changed.
    #[error(transparent)]
    Url(UrlProblem),
    #[error(transparent)]
    Service(#[from] ServiceError),
}

/// Merchants, their credentials and webhook settings (the command line, the dashboard): the
/// merchants' store, the server's keys and its settings.
#[derive(Clone)]
pub struct Merchants {
    store: Arc<dyn MerchantStore>,
    keys: Arc<Keys>,
    config: Arc<Config>,
}

impl Merchants {
    pub(super) fn new(store: Arc<dyn MerchantStore>, keys: Arc<Keys>, config: Arc<Config>) -> Merchants {
        Merchants { store, keys, config }
    }

    /// Checks a webhook URL: `http` or `https`, and no private target unless allowed.
    pub fn check_webhook_url(&self, raw: &str) -> Result<String, UrlProblem> {
        crate::webhook::client::check_url(raw, self.config.webhook.allow_private).map(|url| url.to_string())
    }

    /// On an empty database, creates the demo merchant. The settings table's key makes this
    /// happen once even when several processes start together.
    pub async fn create_demo_merchant(&self, now: Timestamp) -> Result<Option<CreatedMerchant>, ServiceError> {
        if self.store.has_merchants().await? {
            return Ok(None);
        }
        let claim = uuid::Uuid::new_v4().to_string();
        if self.store.setting_or_insert("demo_merchant_claim", &claim).await? != claim {
            return Ok(None);
        }
        Ok(Some(self.create_merchant("Demo merchant", None, now).await?))
    }

    pub async fn create_merchant(
        &self,
        name: &str,
        webhook_url: Option<&str>,
        now: Timestamp,
    ) -> Result<CreatedMerchant, ServiceError> {
        let name = crate::domain::text::checked_text(name, crate::domain::text::MAX_NAME_CHARS)
            .map_err(|e| ServiceError::Invalid(format!("merchant name {e}")))?;
        let webhook_url = webhook_url
            .map(|u| self.check_webhook_url(u))
            .transpose()
            .map_err(|e| ServiceError::Invalid(e.to_string()))?;
        let id = MerchantId::from(uuid::Uuid::new_v4().to_string());
        let mut environments = Vec::new();
        let mut secrets = Vec::new();
        for environment in Environment::ALL {
            let IssuedCredential { credential, api_secret } =
                credentials::issue(&self.keys.pepper, &id, environment, now);
            let webhook_secret = credentials::webhook_secret();
            secrets.push(MerchantEnvironmentSecrets {
                environment,
                api_key: credential.api_key.clone(),
                api_secret,
                webhook_secret: webhook_secret.clone(),
                webhook_url: webhook_url.clone(),
            });
            environments.push(NewMerchantEnvironment {
                environment,
                webhook_url: webhook_url.clone(),
                webhook_secret,
                credential,
                opening_balance: match environment {
                    Environment::Sandbox => Francs(self.config.sandbox_initial_balance),
                    Environment::Production => Francs::ZERO,
                },
            });
        }
        let merchant = NewMerchant {
            id: id.clone(),
            name: name.clone(),
            created_at: now,
            environments,
        };
        self.store.create_merchant(&merchant).await?;
        Ok(CreatedMerchant {
            id,
            name,
            environments: secrets,
        })
    }

    pub async fn merchants(&self) -> Result<Vec<MerchantSummary>, ServiceError> {
        Ok(self.store.merchants().await?)
    }

    /// Issues a new key and secret for the tenant and revokes the old pair with its tokens.
    pub async fn rotate_secret(&self, tenant: &Tenant, now: Timestamp) -> Result<(String, String), ServiceError> {
        let IssuedCredential { credential, api_secret } =
            credentials::issue(&self.keys.pepper, &tenant.merchant_id, tenant.environment, now);
        self.store
            .rotate_credential(tenant, &credential)
            .await
            .or_not_found("merchant")?;
        Ok((credential.api_key, api_secret))
    }

    /// Issues a new webhook signing secret for the tenant. For `MOMO_WEBHOOK_SECRET_OVERLAP_S`
    /// from `now`, deliveries are signed with both secrets, so the merchant can switch its
    /// verifier over without losing an event; then with the new one only.
    pub async fn rotate_webhook_secret(
        &self,
        tenant: &Tenant,
        now: Timestamp,
    ) -> Result<RotatedWebhookSecret, ServiceError> {
        let webhook_secret = credentials::webhook_secret();
        let previous_valid_until = now.plus(self.config.webhook.secret_overlap);
        self.store
            .rotate_webhook_secret(tenant, &webhook_secret, previous_valid_until)
            .await
            .or_not_found("merchant")?;
        Ok(RotatedWebhookSecret {
            environment: tenant.environment,
            webhook_secret,
            previous_valid_until,
        })
    }

    pub async fn set_webhook_url(&self, tenant: &Tenant, url: Option<&str>) -> Result<(), WebhookUrlError> {
        let url = url
            .map(|u| self.check_webhook_url(u))
            .transpose()
            .map_err(WebhookUrlError::Url)?;
        Ok(self
            .store
            .set_webhook_url(tenant, url.as_deref())
            .await
            .or_not_found("merchant")?)
    }
}
