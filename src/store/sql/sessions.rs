//! The `SessionStore` methods for every [`Backend`]: the same SQL on both databases.

use super::{Args, Get};
use super::{Backend, RowsAffected, SqlDb};
use crate::domain::{DashboardSession, NewDashboardSession, Timestamp};
use crate::store::{rows, SessionStore, SessionUse, StoreError};

/// The condition of a usable session: `$1` now, `$2` its token hash, `$3` the idle limit.
const VALID: &str = "WHERE token_hash = $2 AND expires_at > $1 AND last_seen_at > $3 \
    AND EXISTS (SELECT 1 FROM credentials c WHERE c.id = dashboard_sessions.credential_id \
                AND c.revoked_at IS NULL)";

/// The session a row of `dashboard_sessions` describes.
fn session_of<DB: SqlDb>(row: &DB::Row) -> Result<DashboardSession, StoreError> {
    Ok(DashboardSession {
        tenant: rows::tenant(row)?,
        credential_id: row.col("credential_id")?,
    })
}

#[async_trait::async_trait]
impl<S: Backend<Db = DB>, DB: SqlDb> SessionStore for S {
    async fn insert_session(&self, s: &NewDashboardSession) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO dashboard_sessions (token_hash, merchant_id, environment, credential_id, created_at, \
             last_seen_at, expires_at) VALUES ($1, $2, $3, $4, $5, $5, $6)",
        )
        .arg(s.token_hash.as_str())
        .arg(s.session.tenant.merchant_id.as_str())
        .arg(s.session.tenant.environment.as_str())
        .arg(s.session.credential_id.as_str())
        .arg(s.created_at.millis())
        .arg(s.expires_at.millis())
        .execute(DB::pool(self.writer()))
        .await?;
        Ok(())
    }

    async fn use_session(&self, token_hash: &str, at: SessionUse) -> Result<Option<DashboardSession>, StoreError> {
        let SessionUse {
            now,
            idle_since,
            seen_before,
        } = at;
        // Read first, on a reader: a made-up cookie and a session seen lately need no writer.
        let row = sqlx::query(&format!(
            "SELECT merchant_id, environment, credential_id, last_seen_at FROM dashboard_sessions {VALID}"
        ))
        .arg(now.millis())
        .arg(token_hash)
        .arg(idle_since.millis())
        .fetch_optional(DB::pool(self.reader()))
        .await?;
        let Some(row) = row else {
            return Ok(None);
        };
        let last_seen: i64 = row.col("last_seen_at")?;
        if last_seen > seen_before.millis() {
            return session_of::<DB>(&row).map(Some);
        }
        // Valid again in the statement that writes: a sign-out or a rotation committed since
        // the read is seen here.
        let row = sqlx::query(&format!(
            "UPDATE dashboard_sessions SET last_seen_at = $1 {VALID} \
             RETURNING merchant_id, environment, credential_id"
        ))
        .arg(now.millis())
        .arg(token_hash)
        .arg(idle_since.millis())
        .fetch_optional(DB::pool(self.writer()))
        .await?;
        row.map(|row| session_of::<DB>(&row)).transpose()
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
}
