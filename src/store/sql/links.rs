//! The `LinkStore` methods for every [`Backend`]: the same SQL on both databases.

use super::pages::newest_first;
use super::{Args, Backend, Get, SqlDb};
use crate::domain::{LinkAmount, LinkId, LinkTerms, OperatorCode, PageRequest, PaymentLink, Tenant, Timestamp};
use crate::store::{rows, LinkStore, StoreError};

const COLUMNS: &str = "id, merchant_id, environment, amount, min_amount, max_amount, description, max_payments, \
    expires_at, operators, success_url, error_url, deactivated_at, created_at, held, paid, collected";

/// The link a row of `payment_links` describes.
fn link_of<DB: SqlDb>(row: &DB::Row) -> Result<PaymentLink, StoreError> {
    let fixed: Option<i64> = row.col("amount")?;
    let amount = match fixed {
        Some(amount) => LinkAmount::Fixed(amount),
        None => LinkAmount::Open {
            min: row.col("min_amount")?,
            max: row.col("max_amount")?,
        },
    };
    let operators: String = row.col("operators")?;
    let operators = operators
        .split(',')
        .map(|name| OperatorCode::from_name(name).ok_or_else(|| StoreError::Corrupt(format!("link operator {name:?}"))))
        .collect::<Result<Vec<_>, _>>()?;
    let at = |column: &str| -> Result<Option<Timestamp>, StoreError> {
        Ok(row.col::<Option<i64>>(column)?.map(Timestamp::from_millis))
    };
    Ok(PaymentLink {
        id: LinkId::from_stored(row.col("id")?),
        tenant: rows::tenant(row)?,
        terms: LinkTerms {
            amount,
            description: row.col("description")?,
            max_payments: row.col("max_payments")?,
            expires_at: at("expires_at")?,
            operators,
            success_url: row.col("success_url")?,
            error_url: row.col("error_url")?,
        },
        deactivated_at: at("deactivated_at")?,
        created_at: Timestamp::from_millis(row.col("created_at")?),
        held: row.col("held")?,
        paid: row.col("paid")?,
        collected: row.col("collected")?,
    })
}

#[async_trait::async_trait]
impl<S: Backend<Db = DB>, DB: SqlDb> LinkStore for S {
    async fn insert_link(&self, l: &PaymentLink) -> Result<(), StoreError> {
        let (fixed, min, max) = match l.terms.amount {
            LinkAmount::Fixed(amount) => (Some(amount), None, None),
            LinkAmount::Open { min, max } => (None, Some(min), Some(max)),
        };
        let operators: Vec<&str> = l.terms.operators.iter().map(|o| o.name()).collect();
        sqlx::query(&format!(
            "INSERT INTO payment_links ({COLUMNS}) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)"
        ))
        .arg(l.id.as_str())
        .arg(l.tenant.merchant_id.as_str())
        .arg(l.tenant.environment.as_str())
        .arg(fixed)
        .arg(min)
        .arg(max)
        .arg(l.terms.description.as_str())
        .arg(l.terms.max_payments)
        .arg(l.terms.expires_at.map(Timestamp::millis))
        .arg(operators.join(","))
        .arg(l.terms.success_url.clone())
        .arg(l.terms.error_url.clone())
        .arg(l.deactivated_at.map(Timestamp::millis))
        .arg(l.created_at.millis())
        .arg(i64::try_from(l.held).unwrap_or(i64::MAX))
        .arg(i64::try_from(l.paid).unwrap_or(i64::MAX))
        .arg(l.collected)
        .execute(DB::pool(self.writer()))
        .await?;
        Ok(())
    }

    async fn link(&self, tenant: &Tenant, id: &LinkId) -> Result<Option<PaymentLink>, StoreError> {
        let row = sqlx::query(&format!(
            "SELECT {COLUMNS} FROM payment_links WHERE id = $1 AND merchant_id = $2 AND environment = $3"
        ))
        .arg(id.as_str())
        .arg(tenant.merchant_id.as_str())
        .arg(tenant.environment.as_str())
        .fetch_optional(DB::pool(self.reader()))
        .await?;
        row.as_ref().map(link_of::<DB>).transpose()
    }

    async fn link_by_id(&self, id: &LinkId) -> Result<Option<PaymentLink>, StoreError> {
        let row = sqlx::query(&format!("SELECT {COLUMNS} FROM payment_links WHERE id = $1"))
            .arg(id.as_str())
            .fetch_optional(DB::pool(self.reader()))
            .await?;
        row.as_ref().map(link_of::<DB>).transpose()
    }

    async fn links(&self, tenant: &Tenant, page: &PageRequest) -> Result<Vec<PaymentLink>, StoreError> {
        let from = format!("{COLUMNS} FROM payment_links");
        newest_first(self.reader(), &from, "created_at", tenant, page, link_of::<DB>).await
    }

    async fn deactivate_link(
        &self,
        tenant: &Tenant,
        id: &LinkId,
        at: Timestamp,
    ) -> Result<Option<PaymentLink>, StoreError> {
        let row = sqlx::query(&format!(
            "UPDATE payment_links SET deactivated_at = COALESCE(deactivated_at, $4) \
             WHERE id = $1 AND merchant_id = $2 AND environment = $3 RETURNING {COLUMNS}"
        ))
        .arg(id.as_str())
        .arg(tenant.merchant_id.as_str())
        .arg(tenant.environment.as_str())
        .arg(at.millis())
        .fetch_optional(DB::pool(self.writer()))
        .await?;
        row.as_ref().map(link_of::<DB>).transpose()
    }
}
