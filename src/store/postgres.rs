//! The PostgreSQL store, for production and for several gateway processes on one database.

use std::time::Duration;

use sqlx::postgres::{PgPool, PgPoolOptions};
use sqlx::{Postgres, Row};

use super::sql::{self, impl_store, insert_credential_fn};
use super::{migrations, rows, NewMerchant, Store, StoreError};
use crate::domain::merchant::EnvironmentSummary;
use crate::domain::{Credential, Customer, MerchantId, MerchantSummary, PageRequest, Tenant, Timestamp};

pub struct PostgresStore {
    pool: PgPool,
}

impl PostgresStore {
    /// Connects to `url` and migrates the database.
    pub async fn connect(url: &str) -> Result<PostgresStore, StoreError> {
        let pool = PgPoolOptions::new()
            .max_connections(16)
            .acquire_timeout(Duration::from_secs(10))
            .connect(url)
            .await?;
        migrations::postgres()
            .run(&pool)
            .await
            .map_err(|e| StoreError::Unavailable(format!("migration failed: {e}")))?;
        Ok(PostgresStore { pool })
    }

    fn reader(&self) -> &PgPool {
        &self.pool
    }

    fn writer(&self) -> &PgPool {
        &self.pool
    }
}

insert_credential_fn!(Postgres);

impl_store!(PostgresStore);
