//! What the bench reads and writes in the gateway's database, with SQL of its own: the bench
//! depends on no code of the gateway's, so it drives a gateway built from any revision
//! (`--compare`) and reads its database as that revision left it, without migrating it.
//! The queries are the gateway's own where they check the same thing (the ledger check is the
//! store's `check_ledger`); the tables and columns are those of `migrations/`.

use std::str::FromStr;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use sqlx::postgres::PgPoolOptions;
use sqlx::sqlite::{SqliteConnectOptions, SqlitePoolOptions};

/// The merchant and environment the load runs as: the rows' `merchant_id` and `environment`.
pub struct Tenant {
    pub merchant_id: String,
    pub environment: &'static str,
}

/// The instant the gateway would store for now: Unix epoch milliseconds, as every `_at` column.
pub fn now_millis() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// Whole-ledger invariants, both always zero.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ledger {
    /// The sum of every posting.
    pub postings_sum: i64,
    /// Balances that disagree with their postings (and credits), or are negative.
    pub inconsistent_balances: i64,
}

/// The store's ledger check (`check_ledger`). The credits a batch writer adds to its slot of
/// `balance_credits` belong to the available balance; revisions before that table (migration
/// 0010, which `--compare` may build) had none, and their check is the same with the term out.
const INCONSISTENT_BALANCES: &str = "SELECT COUNT(*) AS n FROM balances b WHERE b.available < 0 OR b.reserved < 0 \
     OR b.available{credits} <> (SELECT CAST(COALESCE(SUM(p.amount), 0) AS BIGINT) FROM ledger_postings p \
     WHERE p.merchant_id = b.merchant_id AND p.environment = b.environment AND p.account = 'available') \
     OR b.reserved <> (SELECT CAST(COALESCE(SUM(p.amount), 0) AS BIGINT) FROM ledger_postings p \
     WHERE p.merchant_id = b.merchant_id AND p.environment = b.environment AND p.account = 'reserved')";
const CREDITS: &str = " + (SELECT CAST(COALESCE(SUM(c.amount), 0) AS BIGINT) FROM balance_credits c \
     WHERE c.merchant_id = b.merchant_id AND c.environment = b.environment)";

/// A connection of the bench's own to the gateway's database.
pub(crate) enum Pool {
    Sqlite(sqlx::SqlitePool),
    Postgres(sqlx::PgPool),
}

impl Pool {
    pub(crate) async fn open(url: &str) -> anyhow::Result<Pool> {
        Ok(if url.starts_with("sqlite:") {
            let options = SqliteConnectOptions::from_str(url)?.busy_timeout(Duration::from_secs(30));
            Pool::Sqlite(
                SqlitePoolOptions::new()
                    .max_connections(1)
                    .connect_with(options)
                    .await?,
            )
        } else {
            Pool::Postgres(PgPoolOptions::new().max_connections(1).connect(url).await?)
        })
    }

    pub(crate) async fn close(self) {
        match self {
            Pool::Sqlite(p) => p.close().await,
            Pool::Postgres(p) => p.close().await,
        }
    }

    /// Runs statements without parameters (the values are generated here) in one transaction.
    pub(crate) async fn execute_all(&self, statements: &[String]) -> anyhow::Result<()> {
        let script = format!("BEGIN;\n{};\nCOMMIT;", statements.join(";\n"));
        match self {
            Pool::Sqlite(p) => {
                sqlx::raw_sql(&script).execute(p).await?;
            }
            Pool::Postgres(p) => {
                sqlx::raw_sql(&script).execute(p).await?;
            }
        }
        Ok(())
    }

    pub(crate) async fn count(&self, sql: &str) -> anyhow::Result<i64> {
        Ok(match self {
            Pool::Sqlite(p) => sqlx::query_scalar(sql).fetch_one(p).await?,
            Pool::Postgres(p) => sqlx::query_scalar(sql).fetch_one(p).await?,
        })
    }

    /// Waits (at most ten minutes) until no webhook event is pending: a measurement that
    /// follows does not share the cores with the delivery of earlier events.
    pub(crate) async fn quiet(&self) -> anyhow::Result<()> {
        let deadline = Instant::now() + Duration::from_secs(600);
        while self
            .count("SELECT COUNT(*) FROM outbox_events WHERE state = 'pending'")
            .await?
            > 0
        {
            anyhow::ensure!(Instant::now() < deadline, "earlier webhook events never drained");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        Ok(())
    }

    /// The merchant's `transactionId`s, every one it has in the database.
    pub(crate) async fn transaction_ids(&self, tenant: &Tenant) -> anyhow::Result<Vec<String>> {
        const SQL: &str = "SELECT transaction_id FROM transactions WHERE merchant_id = $1 AND environment = $2";
        Ok(match self {
            Pool::Sqlite(p) => {
                sqlx::query_scalar(SQL)
                    .bind(&tenant.merchant_id)
                    .bind(tenant.environment)
                    .fetch_all(p)
                    .await?
            }
            Pool::Postgres(p) => {
                sqlx::query_scalar(SQL)
                    .bind(&tenant.merchant_id)
                    .bind(tenant.environment)
                    .fetch_all(p)
                    .await?
            }
        })
    }

    /// The merchant's transactions counted by status and failure code (`NULL` but for `FAILED`).
    pub(crate) async fn by_status(&self, tenant: &Tenant) -> anyhow::Result<Vec<(String, Option<String>, i64)>> {
        const SQL: &str = "SELECT status, failure_code, COUNT(*) FROM transactions \
                           WHERE merchant_id = $1 AND environment = $2 GROUP BY status, failure_code";
        Ok(match self {
            Pool::Sqlite(p) => {
                sqlx::query_as(SQL)
                    .bind(&tenant.merchant_id)
                    .bind(tenant.environment)
                    .fetch_all(p)
                    .await?
            }
            Pool::Postgres(p) => {
                sqlx::query_as(SQL)
                    .bind(&tenant.merchant_id)
                    .bind(tenant.environment)
                    .fetch_all(p)
                    .await?
            }
        })
    }

    /// The store's ledger check, as the revision that made the database had it.
    pub(crate) async fn ledger(&self) -> anyhow::Result<Ledger> {
        let has_credits = match self {
            Pool::Sqlite(_) => "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = 'balance_credits'",
            Pool::Postgres(_) => "SELECT COUNT(*) FROM pg_tables WHERE tablename = 'balance_credits'",
        };
        let credits = if self.count(has_credits).await? > 0 {
            CREDITS
        } else {
            ""
        };
        Ok(Ledger {
            postings_sum: self
                .count("SELECT CAST(COALESCE(SUM(amount), 0) AS BIGINT) AS total FROM ledger_postings")
                .await?,
            inconsistent_balances: self.count(&INCONSISTENT_BALANCES.replace("{credits}", credits)).await?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::{Pool, Tenant};

    /// The queries run on the schema of `migrations/sqlite` (the gateway's, read as files), and
    /// the ledger check on a database from before `balance_credits` too.
    #[tokio::test]
    async fn the_queries_run_on_the_gateways_schema() {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}/bench.db?mode=rwc", dir.path().display());
        let pool = Pool::open(&url).await.unwrap();
        let Pool::Sqlite(sqlite) = &pool else { unreachable!() };
        let migrations = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../migrations/sqlite");
        let migrator = sqlx::migrate::Migrator::new(migrations).await.unwrap();
        migrator.run(sqlite).await.unwrap();
        let tenant = Tenant {
            merchant_id: "m".to_owned(),
            environment: "Sandbox",
        };
        assert!(pool.transaction_ids(&tenant).await.unwrap().is_empty());
        assert!(pool.by_status(&tenant).await.unwrap().is_empty());
        let balanced = super::Ledger {
            postings_sum: 0,
            inconsistent_balances: 0,
        };
        assert_eq!(pool.ledger().await.unwrap(), balanced);
        pool.execute_all(&["DROP TABLE balance_credits".to_owned()])
            .await
            .unwrap();
        assert_eq!(pool.ledger().await.unwrap(), balanced);
        pool.close().await;
    }
}
