//! The `ActivityStore` methods for every [`Backend`]: the same SQL on both databases.

use super::{Args, Get};
use super::{Backend, SqlDb};
use crate::domain::{
    Activity, OperatorCode, RecentAttempt, Tenant, Timestamp, TransactionKey, Transition, WebhookEndpoint,
};
use crate::store::{names, rows, ActivityStore, StoreError};

const DAY_MS: i64 = 86_400_000;

#[async_trait::async_trait]
impl<S: Backend<Db = DB>, DB: SqlDb> ActivityStore for S {
    /// In the order they happened. A payment settled at once is created and settled within
    /// one millisecond: the creation (from no status) goes first, not whichever random id sorts
    /// first.
    async fn transitions(&self, transaction_key: &TransactionKey) -> Result<Vec<Transition>, StoreError> {
        let found = sqlx::query(
            "SELECT from_status, to_status, cause, detail, at FROM transaction_transitions \
             WHERE transaction_id = $1 \
             ORDER BY at, CASE WHEN from_status IS NULL THEN 0 ELSE 1 END, id",
        )
        .arg(transaction_key)
        .fetch_all(DB::pool(self.reader()))
        .await?;
        found
            .iter()
            .map(|row| {
                let from: Option<String> = row.col("from_status")?;
                let to: String = row.col("to_status")?;
                Ok(Transition {
                    from: from.as_deref().map(names::parse_status).transpose()?,
                    to: names::parse_status(&to)?,
                    cause: row.col("cause")?,
                    detail: row.col("detail")?,
                    at: Timestamp(row.col("at")?),
                })
            })
            .collect()
    }

    async fn activity(&self, tenant: &Tenant, since: Timestamp) -> Result<Vec<Activity>, StoreError> {
        let found = sqlx::query(
            "SELECT (created_at - $3) / $4 AS day, operator, status, COUNT(*) AS n, \
             CAST(SUM(amount) AS BIGINT) AS total \
             FROM transactions WHERE merchant_id = $1 AND environment = $2 AND created_at >= $3 \
             GROUP BY 1, 2, 3",
        )
        .arg(tenant.merchant_id.as_str())
        .arg(tenant.environment.as_str())
        .arg(since.millis())
        .arg(DAY_MS)
        .fetch_all(DB::pool(self.reader()))
        .await?;
        found
            .iter()
            .map(|row| {
                let operator: String = row.col("operator")?;
                let status: String = row.col("status")?;
                Ok(Activity {
                    day: row.col("day")?,
                    operator: OperatorCode::from_name(&operator)
                        .ok_or_else(|| StoreError::Corrupt(format!("operator {operator:?}")))?,
                    status: names::parse_status(&status)?,
                    count: row.col("n")?,
                    amount: row.col("total")?,
                })
            })
            .collect()
    }

    async fn recent_attempts(&self, tenant: &Tenant, limit: u32) -> Result<Vec<RecentAttempt>, StoreError> {
        let events = sqlx::query(
            "SELECT a.attempt, a.at, a.url, a.status_code, a.latency_ms, a.error, a.response, \
             e.to_status, t.transaction_id \
             FROM outbox_events e JOIN webhook_attempts a ON a.event_id = e.id \
             JOIN transactions t ON t.id = e.transaction_id \
             WHERE e.merchant_id = $1 AND e.environment = $2 ORDER BY a.at DESC, a.id DESC LIMIT $3",
        )
        .arg(tenant.merchant_id.as_str())
        .arg(tenant.environment.as_str())
        .arg(limit as i64)
        .fetch_all(DB::pool(self.reader()))
        .await?;
        let tests = sqlx::query(
            "SELECT CAST(1 AS BIGINT) AS attempt, at, url, status_code, latency_ms, error, response FROM webhook_test_deliveries \
             WHERE merchant_id = $1 AND environment = $2 ORDER BY at DESC, id DESC LIMIT $3",
        )
        .arg(tenant.merchant_id.as_str())
        .arg(tenant.environment.as_str())
        .arg(limit as i64)
        .fetch_all(DB::pool(self.reader()))
        .await?;
        let mut all = Vec::with_capacity(events.len() + tests.len());
        for row in &events {
            let status: String = row.col("to_status")?;
            all.push(RecentAttempt {
                transaction_id: Some(row.col("transaction_id")?),
                // A payout batch's completion is no transaction's event (`kinds::transfer`).
                event_status: match status.as_str() {
                    names::BATCH_COMPLETED_EVENT => None,
                    status => Some(names::parse_status(status)?),
                },
                attempt: rows::attempt(row)?,
            });
        }
        for row in &tests {
            all.push(RecentAttempt {
                transaction_id: None,
                event_status: None,
                attempt: rows::attempt(row)?,
            });
        }
        all.sort_by_key(|a| std::cmp::Reverse(a.attempt.at));
        all.truncate(limit as usize);
        Ok(all)
    }

    async fn webhook_endpoint(
        &self,
        tenant: &Tenant,
        now: Timestamp,
    ) -> Result<Option<(WebhookEndpoint, Vec<String>)>, StoreError> {
        let row = sqlx::query(
            "SELECT webhook_url, webhook_secret, previous_webhook_secret, previous_webhook_secret_until, \
             webhook_disabled_at FROM merchant_environments WHERE merchant_id = $1 AND environment = $2",
        )
        .arg(tenant.merchant_id.as_str())
        .arg(tenant.environment.as_str())
        .fetch_optional(DB::pool(self.reader()))
        .await?;
        let Some(row) = row else {
            return Ok(None);
        };
        let mut secrets = vec![row.col::<String>("webhook_secret")?];
        let previous: Option<String> = row.col("previous_webhook_secret")?;
        let until: Option<i64> = row.col("previous_webhook_secret_until")?;
        if let (Some(previous), Some(until)) = (previous, until) {
            if now.millis() < until {
                secrets.push(previous);
            }
        }
        let disabled: Option<i64> = row.col("webhook_disabled_at")?;
        let endpoint = WebhookEndpoint {
            url: row.col("webhook_url")?,
            disabled: disabled.is_some(),
        };
        Ok(Some((endpoint, secrets)))
    }
}
