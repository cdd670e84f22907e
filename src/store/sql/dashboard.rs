//! The `DashboardStore` methods for every [`Backend`]: the same SQL on both databases.

use super::{Args, Get};
use super::{Backend, RowsAffected, SqlDb};
use crate::domain::{
    Activity, Attempt, DashboardSession, MerchantId, NewDashboardSession, OperatorCode, RecentAttempt, Tenant,
    Timestamp, Transition, WebhookEndpoint,
};
use crate::store::{names, rows, DashboardStore, StoreError};

const DAY_MS: i64 = 86_400_000;

#[async_trait::async_trait]
impl<S, DB> DashboardStore for S
where
    S: Backend<Db = DB>,
    DB: SqlDb,
{
    async fn insert_session(&self, s: &NewDashboardSession) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO dashboard_sessions (token_hash, merchant_id, environment, credential_id, created_at, \
             last_seen_at, expires_at) VALUES ($1, $2, $3, $4, $5, $5, $6)",
        )
        .arg(s.token_hash.as_str())
        .arg(s.session.tenant.merchant_id.0.as_str())
        .arg(s.session.tenant.environment.as_str())
        .arg(s.session.credential_id.as_str())
        .arg(s.created_at.millis())
        .arg(s.expires_at.millis())
        .execute(DB::pool(self.writer()))
        .await?;
        Ok(())
    }

    async fn use_session(
        &self,
        token_hash: &str,
        now: Timestamp,
        idle_since: Timestamp,
    ) -> Result<Option<DashboardSession>, StoreError> {
        let row = sqlx::query(
            "UPDATE dashboard_sessions SET last_seen_at = $1 \
             WHERE token_hash = $2 AND expires_at > $1 AND last_seen_at > $3 \
             AND EXISTS (SELECT 1 FROM credentials c WHERE c.id = dashboard_sessions.credential_id \
                         AND c.revoked_at IS NULL) \
             RETURNING merchant_id, environment, credential_id",
        )
        .arg(now.millis())
        .arg(token_hash)
        .arg(idle_since.millis())
        .fetch_optional(DB::pool(self.writer()))
        .await?;
        let Some(row) = row else {
            return Ok(None);
        };
        let environment: String = row.col("environment")?;
        Ok(Some(DashboardSession {
            tenant: Tenant {
                merchant_id: MerchantId(row.col("merchant_id")?),
                environment: rows::environment(&environment)?,
            },
            credential_id: row.col("credential_id")?,
        }))
    }

    async fn delete_session(&self, token_hash: &str) -> Result<(), StoreError> {
        sqlx::query("DELETE FROM dashboard_sessions WHERE token_hash = $1")
            .arg(token_hash)
            .execute(DB::pool(self.writer()))
            .await?;
        Ok(())
    }

    async fn delete_stale_sessions(&self, now: Timestamp, idle_since: Timestamp) -> Result<u64, StoreError> {
        let done = sqlx::query(
            "DELETE FROM dashboard_sessions WHERE expires_at <= $1 OR last_seen_at <= $2 \
             OR credential_id IN (SELECT id FROM credentials WHERE revoked_at IS NOT NULL)",
        )
        .arg(now.millis())
        .arg(idle_since.millis())
        .execute(DB::pool(self.writer()))
        .await?;
        Ok(done.rows_affected())
    }

    /// In the order they happened. A payment settled at once is created and settled within
    /// one millisecond: the creation (from no status) goes first, not whichever random id sorts
    /// first.
    async fn transitions(&self, transaction_key: &str) -> Result<Vec<Transition>, StoreError> {
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
        .arg(tenant.merchant_id.0.as_str())
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
        .arg(tenant.merchant_id.0.as_str())
        .arg(tenant.environment.as_str())
        .arg(limit as i64)
        .fetch_all(DB::pool(self.reader()))
        .await?;
        let tests = sqlx::query(
            "SELECT CAST(1 AS BIGINT) AS attempt, at, url, status_code, latency_ms, error, response FROM webhook_test_deliveries \
             WHERE merchant_id = $1 AND environment = $2 ORDER BY at DESC, id DESC LIMIT $3",
        )
        .arg(tenant.merchant_id.0.as_str())
        .arg(tenant.environment.as_str())
        .arg(limit as i64)
        .fetch_all(DB::pool(self.reader()))
        .await?;
        let mut all = Vec::with_capacity(events.len() + tests.len());
        for row in &events {
            let status: String = row.col("to_status")?;
            all.push(RecentAttempt {
                transaction_id: Some(row.col("transaction_id")?),
                event_status: Some(names::parse_status(&status)?),
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
        .arg(tenant.merchant_id.0.as_str())
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

    async fn insert_test_delivery(&self, tenant: &Tenant, a: &Attempt) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO webhook_test_deliveries (id, merchant_id, environment, at, url, status_code, latency_ms, \
             error, response) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
        )
        .arg(crate::domain::ids::new_record_id().to_string())
        .arg(tenant.merchant_id.0.as_str())
        .arg(tenant.environment.as_str())
        .arg(a.at.millis())
        .arg(a.url.as_str())
        .arg(a.status_code.map(i64::from))
        .arg(a.latency_ms)
        .arg(a.error.as_deref())
        .arg(a.response.as_deref())
        .execute(DB::pool(self.writer()))
        .await?;
        Ok(())
    }
}
