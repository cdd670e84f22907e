//! Server settings, merchants, credentials and customers: the `MerchantStore`.

use async_trait::async_trait;

use super::StoreError;
use crate::domain::{
    Credential, Customer, CustomerId, Environment, Francs, MerchantId, MerchantSummary, PageRequest, Tenant, Timestamp,
};

/// A new merchant with one credential and one webhook signing secret per environment.
#[derive(Debug, Clone)]
pub struct NewMerchant {
    pub id: MerchantId,
    pub name: String,
    pub created_at: Timestamp,
    pub environments: Vec<NewMerchantEnvironment>,
}

#[derive(Debug, Clone)]
pub struct NewMerchantEnvironment {
    pub environment: Environment,
    pub webhook_url: Option<String>,
    pub webhook_secret: String,
    pub credential: Credential,
    /// Money credited when the environment opens (the Sandbox's play money).
    pub opening_balance: Francs,
}

/// Server settings, merchants, credentials and customers.
#[async_trait]
pub trait MerchantStore: Send + Sync + 'static {
    /// Answers when the database answers.
    async fn ping(&self) -> Result<(), StoreError>;

    /// Closes every connection, waiting for those in use (graceful shutdown).
    async fn close(&self);

    /// Returns the stored value of a server setting, storing `candidate` first if there is none.
    /// Several processes starting at once all get the same value.
    async fn setting_or_insert(&self, key: &str, candidate: &str) -> Result<String, StoreError>;

    async fn has_merchants(&self) -> Result<bool, StoreError>;

    /// Records a merchant, its environments and credentials, all or nothing.
    async fn create_merchant(&self, merchant: &NewMerchant) -> Result<(), StoreError>;

    async fn merchant_name(&self, id: &MerchantId) -> Result<Option<String>, StoreError>;

    /// Every merchant with its environments, oldest first.
    async fn merchants(&self) -> Result<Vec<MerchantSummary>, StoreError>;

    async fn credential_by_key(&self, api_key: &str) -> Result<Option<Credential>, StoreError>;

    async fn credential(&self, id: &str) -> Result<Option<Credential>, StoreError>;

    /// Revokes the tenant's active credential and records `replacement`, in one transaction.
    /// `NotFound` when the tenant does not exist.
    async fn rotate_credential(&self, tenant: &Tenant, replacement: &Credential) -> Result<(), StoreError>;

    /// Sets (or clears) the tenant's webhook URL, re-enabling a disabled endpoint.
    async fn set_webhook_url(&self, tenant: &Tenant, url: Option<&str>) -> Result<(), StoreError>;

    /// Makes `secret` the tenant's webhook signing secret; the one it replaces keeps signing
    /// beside it until `previous_until`, and a secret replaced before that stops at once. One
    /// statement, so concurrent rotations cannot lose a secret in between. `NotFound` when the
    /// tenant does not exist.
    async fn rotate_webhook_secret(
        &self,
        tenant: &Tenant,
        secret: &str,
        previous_until: Timestamp,
    ) -> Result<(), StoreError>;

    /// Records a customer. The first record of a phone number is the one payments embedding
    /// that number will find.
    async fn insert_customer(&self, customer: &Customer) -> Result<(), StoreError>;

    async fn customer(&self, tenant: &Tenant, id: &CustomerId) -> Result<Option<Customer>, StoreError>;

    /// The tenant's customers, newest first.
    async fn customers(&self, tenant: &Tenant, page: &PageRequest) -> Result<Vec<Customer>, StoreError>;
}
