//! The `MerchantStore` methods (server settings, merchants, credentials and customers) for
//! every [`Backend`]. Reads go to the backend's reader pool and writes to its writer; SQLite's
//! writer is a single connection, so writers queue instead of failing busy.

use super::balance_locks::BalancePlan;
use super::customers::{self, customer_row, payer_row, CLAIM_PHONE, CUSTOMER_ROW_COLUMNS, PAYER_COLUMNS};
use super::row_values::RowValues;
use super::set_steps::{write_entries, EntryRow};
use super::steps::WriteSteps;
use super::{Args, Get};
use super::{Backend, RowsAffected, SqlDb};
use crate::domain::merchant::EnvironmentSummary;
use crate::domain::{Credential, Customer, CustomerId, MerchantId, MerchantSummary, PageRequest, Tenant, Timestamp};
use crate::store::{rows, MerchantStore, NewMerchant, StoreError};

#[async_trait::async_trait]
impl<S: Backend<Db = DB>, DB: SqlDb> MerchantStore for S {
    async fn ping(&self) -> Result<(), StoreError> {
        sqlx::query("SELECT 1").execute(DB::pool(self.reader())).await?;
        Ok(())
    }

    async fn close(&self) {
        self.reader().close().await;
        self.writer().close().await;
        self.batch_writer().close().await;
        self.lookups().close().await;
    }

    async fn setting_or_insert(&self, key: &str, candidate: &str) -> Result<String, StoreError> {
        sqlx::query("INSERT INTO settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING")
            .arg(key)
            .arg(candidate)
            .execute(DB::pool(self.writer()))
            .await?;
        let row = sqlx::query("SELECT value FROM settings WHERE key = $1")
            .arg(key)
            .fetch_one(DB::pool(self.writer()))
            .await?;
        Ok(row.col("value")?)
    }

    async fn has_merchants(&self) -> Result<bool, StoreError> {
        let row = sqlx::query("SELECT EXISTS (SELECT 1 FROM merchants) AS present")
            .fetch_one(DB::pool(self.reader()))
            .await?;
        Ok(row.col::<bool>("present")?)
    }

    async fn create_merchant(&self, m: &NewMerchant) -> Result<(), StoreError> {
        let mut tx = self.writer().begin().await?;
        sqlx::query("INSERT INTO merchants (id, name, created_at) VALUES ($1, $2, $3)")
            .arg(m.id.as_str())
            .arg(&m.name)
            .arg(m.created_at.millis())
            .execute(DB::on(&mut *tx))
            .await?;
        for env in &m.environments {
            sqlx::query(
                "INSERT INTO merchant_environments (merchant_id, environment, webhook_url, webhook_secret) \
                 VALUES ($1, $2, $3, $4)",
            )
            .arg(m.id.as_str())
            .arg(env.environment.as_str())
            .arg(env.webhook_url.as_deref())
            .arg(&env.webhook_secret)
            .execute(DB::on(&mut *tx))
            .await?;
            tx.insert_credential(&env.credential).await?;
            sqlx::query("INSERT INTO balances (merchant_id, environment, available, reserved) VALUES ($1, $2, 0, 0)")
                .arg(m.id.as_str())
                .arg(env.environment.as_str())
                .execute(DB::on(&mut *tx))
                .await?;
            if env.opening_balance.is_positive() {
                let tenant = Tenant {
                    merchant_id: m.id.clone(),
                    environment: env.environment,
                };
                let entry = crate::domain::ledger::credit(env.opening_balance);
                let row = EntryRow {
                    tenant: &tenant,
                    transaction_id: None,
                    at: m.created_at,
                    entry: &entry,
                };
                write_entries(&mut tx, &[row], &BalancePlan::balance_row()).await?;
            }
        }
        tx.commit().await?;
        Ok(())
    }

    async fn merchant_name(&self, id: &MerchantId) -> Result<Option<String>, StoreError> {
        let row = sqlx::query("SELECT name FROM merchants WHERE id = $1")
            .arg(id.as_str())
            .fetch_optional(DB::pool(self.reader()))
            .await?;
        row.map(|r| r.col("name")).transpose().map_err(StoreError::from)
    }

    async fn merchants(&self) -> Result<Vec<MerchantSummary>, StoreError> {
        let rows = sqlx::query(
            "SELECT m.id, m.name, m.created_at, e.environment, e.webhook_url, c.api_key \
             FROM merchants m \
             JOIN merchant_environments e ON e.merchant_id = m.id \
             LEFT JOIN credentials c \
             ON c.merchant_id = e.merchant_id AND c.environment = e.environment AND c.revoked_at IS NULL \
             ORDER BY m.created_at, m.id, e.environment",
        )
        .fetch_all(DB::pool(self.reader()))
        .await?;
        let mut merchants: Vec<MerchantSummary> = Vec::new();
        for row in rows {
            let id: String = row.col("id")?;
            if merchants.last().map(|m| m.id.as_str() != id).unwrap_or(true) {
                merchants.push(MerchantSummary {
                    id: MerchantId::from(id),
                    name: row.col("name")?,
                    created_at: Timestamp(row.col("created_at")?),
                    environments: Vec::new(),
                });
            }
            let env: String = row.col("environment")?;
            if let Some(m) = merchants.last_mut() {
                m.environments.push(EnvironmentSummary {
                    environment: rows::environment(&env)?,
                    api_key: row.col::<Option<String>>("api_key")?.unwrap_or_default(),
                    webhook_url: row.col("webhook_url")?,
                });
            }
        }
        Ok(merchants)
    }

    async fn credential_by_key(&self, api_key: &str) -> Result<Option<Credential>, StoreError> {
        let row = sqlx::query("SELECT * FROM credentials WHERE api_key = $1")
            .arg(api_key)
            .fetch_optional(DB::pool(self.reader()))
            .await?;
        row.as_ref().map(rows::credential).transpose()
    }

    async fn credential(&self, id: &str) -> Result<Option<Credential>, StoreError> {
        let row = sqlx::query("SELECT * FROM credentials WHERE id = $1")
            .arg(id)
            .fetch_optional(DB::pool(self.reader()))
            .await?;
        row.as_ref().map(rows::credential).transpose()
    }

    async fn rotate_credential(&self, tenant: &Tenant, replacement: &Credential) -> Result<(), StoreError> {
        let mut tx = self.writer().begin().await?;
        sqlx::query(
            "UPDATE credentials SET revoked_at = $1 \
             WHERE merchant_id = $2 AND environment = $3 AND revoked_at IS NULL",
        )
        .arg(replacement.created_at.millis())
        .arg(tenant.merchant_id.as_str())
        .arg(tenant.environment.as_str())
        .execute(DB::on(&mut *tx))
        .await?
        .found()?;
        tx.insert_credential(replacement).await?;
        tx.commit().await?;
        Ok(())
    }

    async fn set_webhook_url(&self, tenant: &Tenant, url: Option<&str>) -> Result<(), StoreError> {
        sqlx::query(
            "UPDATE merchant_environments SET webhook_url = $1, webhook_disabled_at = NULL \
             WHERE merchant_id = $2 AND environment = $3",
        )
        .arg(url)
        .arg(tenant.merchant_id.as_str())
        .arg(tenant.environment.as_str())
        .execute(DB::pool(self.writer()))
        .await?
        .found()
    }

    async fn rotate_webhook_secret(
        &self,
        tenant: &Tenant,
        secret: &str,
        previous_until: Timestamp,
    ) -> Result<(), StoreError> {
        // Every right-hand side reads the row as it was, on both databases.
        sqlx::query(
            "UPDATE merchant_environments SET previous_webhook_secret = webhook_secret, \
             previous_webhook_secret_until = $1, webhook_secret = $2 \
             WHERE merchant_id = $3 AND environment = $4",
        )
        .arg(previous_until.millis())
        .arg(secret)
        .arg(tenant.merchant_id.as_str())
        .arg(tenant.environment.as_str())
        .execute(DB::pool(self.writer()))
        .await?
        .found()
    }

    async fn insert_customer(&self, c: &Customer) -> Result<(), StoreError> {
        // Claim the payer key of this phone number if no record holds it yet.
        let mut payer = RowValues::new(PAYER_COLUMNS, 1);
        payer_row(&mut payer, c);
        let sql = payer.insert_into::<DB>("customers", CLAIM_PHONE);
        let claimed = payer.bind(sqlx::query(&sql))?.execute(DB::pool(self.writer())).await?;
        if claimed.rows_affected() == 0 {
            let mut customer = RowValues::new(CUSTOMER_ROW_COLUMNS, 1);
            customer_row(&mut customer, c);
            let sql = customer.insert_into::<DB>("customers", "");
            customer
                .bind(sqlx::query(&sql))?
                .execute(DB::pool(self.writer()))
                .await?;
        }
        Ok(())
    }

    async fn customer(&self, tenant: &Tenant, id: &CustomerId) -> Result<Option<Customer>, StoreError> {
        let sql = format!(
            "SELECT {} FROM customers WHERE merchant_id = $1 AND environment = $2 AND id = $3",
            *customers::CUSTOMER_COLUMNS
        );
        let row = sqlx::query(&sql)
            .arg(tenant.merchant_id.as_str())
            .arg(tenant.environment.as_str())
            .arg(id.as_str())
            .fetch_optional(DB::pool(self.reader()))
            .await?;
        row.as_ref().map(rows::customer).transpose()
    }

    async fn customers(&self, tenant: &Tenant, page: &PageRequest) -> Result<Vec<Customer>, StoreError> {
        let after = if page.after.is_some() {
            "AND (created_at, id) < ($3, $4)"
        } else {
            ""
        };
        let sql = format!(
            "SELECT {} FROM customers WHERE merchant_id = $1 AND environment = $2 {after} \
             ORDER BY created_at DESC, id DESC LIMIT {}",
            *customers::CUSTOMER_COLUMNS,
            page.limit
        );
        let mut query = sqlx::query(&sql)
            .arg(tenant.merchant_id.as_str())
            .arg(tenant.environment.as_str());
        if let Some(cursor) = &page.after {
            query = query.arg(cursor.created_at.millis()).arg(&cursor.id);
        }
        let rows = query.fetch_all(DB::pool(self.reader())).await?;
        rows.iter().map(rows::customer).collect()
    }
}
