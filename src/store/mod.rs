//! Storage: one [`Store`] trait, implemented for SQLite and for PostgreSQL.
//!
//! Store methods express invariants, not tables: each method that changes several rows does so
//! in one database transaction, and races are settled by the database (unique constraints,
//! conditional updates), never by a read-then-write in Rust.

mod migrations;
mod postgres;
mod rows;
mod sql;
mod sqlite;

use async_trait::async_trait;

use crate::domain::{Credential, Customer, Environment, MerchantId, MerchantSummary, PageRequest, Tenant, Timestamp};

pub use postgres::PostgresStore;
pub use sqlite::SqliteStore;

/// What can go wrong in storage, classified once from the database's own error kinds.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("not found")]
    NotFound,
    #[error("conflict on {constraint}")]
    Conflict { constraint: String },
    #[error("database unavailable: {0}")]
    Unavailable(String),
    #[error("stored data is invalid: {0}")]
    Corrupt(String),
}

impl From<sqlx::Error> for StoreError {
    fn from(err: sqlx::Error) -> Self {
        match &err {
            sqlx::Error::RowNotFound => StoreError::NotFound,
            sqlx::Error::Database(db) if db.is_unique_violation() => StoreError::Conflict {
                constraint: db.constraint().unwrap_or("unique").to_owned(),
            },
            sqlx::Error::ColumnDecode { .. } | sqlx::Error::Decode(_) | sqlx::Error::ColumnNotFound(_) => {
                StoreError::Corrupt(err.to_string())
            }
            _ => StoreError::Unavailable(err.to_string()),
        }
    }
}

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
}

/// The persistence the gateway needs, whatever the database.
#[async_trait]
pub trait Store: Send + Sync + 'static {
    /// Answers when the database answers.
    async fn ping(&self) -> Result<(), StoreError>;

    /// Returns the stored value of a server setting, storing `candidate` first if there is none.
    /// Several processes starting at once all get the same value.
    async fn setting_or_insert(&self, key: &str, candidate: &str) -> Result<String, StoreError>;

    async fn has_merchants(&self) -> Result<bool, StoreError>;

    /// Records a merchant, its environments and credentials, all or nothing.
    async fn create_merchant(&self, merchant: &NewMerchant) -> Result<(), StoreError>;

    /// Every merchant with its environments, oldest first.
    async fn merchants(&self) -> Result<Vec<MerchantSummary>, StoreError>;

    async fn credential_by_key(&self, api_key: &str) -> Result<Option<Credential>, StoreError>;

    async fn credential(&self, id: &str) -> Result<Option<Credential>, StoreError>;

    /// Revokes the tenant's active credential and records `replacement`, in one transaction.
    /// `NotFound` when the tenant does not exist.
    async fn rotate_credential(&self, tenant: &Tenant, replacement: &Credential) -> Result<(), StoreError>;

    /// Sets (or clears) the tenant's webhook URL, re-enabling a disabled endpoint.
    async fn set_webhook_url(&self, tenant: &Tenant, url: Option<&str>) -> Result<(), StoreError>;

    async fn insert_customer(&self, customer: &Customer) -> Result<(), StoreError>;

    async fn customer(&self, tenant: &Tenant, id: &str) -> Result<Option<Customer>, StoreError>;

    /// The tenant's customers, newest first.
    async fn customers(&self, tenant: &Tenant, page: &PageRequest) -> Result<Vec<Customer>, StoreError>;
}

/// Opens the database named by `url` (`sqlite:` or `postgres://`) and brings its schema up to date.
pub async fn connect(url: &str) -> Result<std::sync::Arc<dyn Store>, StoreError> {
    if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        Ok(std::sync::Arc::new(PostgresStore::connect(url).await?))
    } else {
        Ok(std::sync::Arc::new(SqliteStore::connect(url).await?))
    }
}
