//! The `RecipientStore` methods for every [`Backend`]: the same SQL on both databases.

use super::pages::newest_first;
use super::{Args, Backend, Get, RowsAffected, SqlDb};
use crate::domain::{LookupOutcome, OperatorCode, PageRequest, RecipientLookup, Tenant, Timestamp};
use crate::store::recipients::RecipientStore;
use crate::store::{rows, StoreError};

const COLUMNS: &str = "id, merchant_id, environment, operator, phone_hash, outcome, name_matched, asked_at";

fn lookup_of<DB: SqlDb>(row: &DB::Row) -> Result<RecipientLookup, StoreError> {
    let operator: String = row.col("operator")?;
    let outcome: String = row.col("outcome")?;
    let matched: Option<i64> = row.col("name_matched")?;
    Ok(RecipientLookup {
        id: row.col("id")?,
        tenant: rows::tenant(row)?,
        operator: OperatorCode::from_name(&operator)
            .ok_or_else(|| StoreError::Corrupt(format!("recipient lookup of operator {operator:?}")))?,
        phone_hash: row.col("phone_hash")?,
        outcome: LookupOutcome::parse(&outcome)
            .ok_or_else(|| StoreError::Corrupt(format!("recipient lookup outcome {outcome:?}")))?,
        name_matched: matched.map(|m| m != 0),
        asked_at: Timestamp::from_millis(row.col("asked_at")?),
    })
}

#[async_trait::async_trait]
impl<S: Backend<Db = DB>, DB: SqlDb> RecipientStore for S {
    async fn recipient_check_allowed(&self, tenant: &Tenant) -> Result<Option<bool>, StoreError> {
        let row = sqlx::query(
            "SELECT recipient_check FROM merchant_environments WHERE merchant_id = $1 AND environment = $2",
        )
        .arg(tenant.merchant_id.as_str())
        .arg(tenant.environment.as_str())
        .fetch_optional(DB::pool(self.reader()))
        .await?
        .ok_or(StoreError::NotFound)?;
        let allowed: Option<i64> = row.col("recipient_check")?;
        Ok(allowed.map(|a| a != 0))
    }

    async fn set_recipient_check_allowed(&self, tenant: &Tenant, allowed: bool) -> Result<(), StoreError> {
        let set = sqlx::query(
            "UPDATE merchant_environments SET recipient_check = $1 WHERE merchant_id = $2 AND environment = $3",
        )
        .arg(i64::from(allowed))
        .arg(tenant.merchant_id.as_str())
        .arg(tenant.environment.as_str())
        .execute(DB::pool(self.writer()))
        .await?;
        match set.rows_affected() {
            0 => Err(StoreError::NotFound),
            _ => Ok(()),
        }
    }

    async fn take_recipient_check(&self, tenant: &Tenant, day: i64, quota: i64) -> Result<bool, StoreError> {
        let taken = sqlx::query(
            "INSERT INTO recipient_check_days (merchant_id, environment, day, used) VALUES ($1, $2, $3, 1) \
             ON CONFLICT (merchant_id, environment, day) DO UPDATE SET used = recipient_check_days.used + 1 \
             WHERE recipient_check_days.used < $4",
        )
        .arg(tenant.merchant_id.as_str())
        .arg(tenant.environment.as_str())
        .arg(day)
        .arg(quota)
        .execute(DB::pool(self.writer()))
        .await?;
        Ok(taken.rows_affected() == 1)
    }

    async fn record_lookup(&self, l: &RecipientLookup) -> Result<(), StoreError> {
        sqlx::query(&format!(
            "INSERT INTO recipient_lookups ({COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)"
        ))
        .arg(l.id.as_str())
        .arg(l.tenant.merchant_id.as_str())
        .arg(l.tenant.environment.as_str())
        .arg(l.operator.name())
        .arg(l.phone_hash.as_str())
        .arg(l.outcome.as_str())
        .arg(l.name_matched.map(i64::from))
        .arg(l.asked_at.millis())
        .execute(DB::pool(self.writer()))
        .await?;
        Ok(())
    }

    async fn lookups(&self, tenant: &Tenant, page: &PageRequest) -> Result<Vec<RecipientLookup>, StoreError> {
        let from = format!("{COLUMNS} FROM recipient_lookups");
        newest_first(self.reader(), &from, "asked_at", tenant, page, lookup_of::<DB>).await
    }
}
