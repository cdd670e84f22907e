//! What `/metrics` shows and who may read it: the database's figures, read at most once per
//! `MOMO_METRICS_DATABASE_REFRESH_MS` (their queries count whole tables, and a scraper, or
//! several, or anyone who can reach the port, must not set the database's load), and the
//! bearer token of `MOMO_METRICS_TOKEN`.

use std::time::Duration;

use tokio::sync::Mutex;

use super::credentials::{secret_hash, secret_matches};
use super::Gateway;
use crate::domain::Timestamp;
use crate::store::StoreStats;
use crate::telemetry::metrics::Gauges;
use crate::telemetry::DatabaseFigures;

/// How long a scrape waits for the database's figures before it answers without them: well
/// inside Prometheus's default scrape timeout (10 s), so an unreachable database (a pool
/// waiting for a connection) still leaves the process's own series to read.
pub const DATABASE_FIGURES_WAIT: Duration = Duration::from_secs(3);

/// The last reading of the database's figures (`None` when it failed: a failing database is
/// not asked again at every scrape either). The lock is held through a reading, so scrapes
/// that arrive together wait for one reading instead of each making their own.
#[derive(Default)]
pub struct FiguresCache(Mutex<Option<Reading>>);

struct Reading {
    at: Timestamp,
    stats: Option<StoreStats>,
}

/// The key the metrics token is hashed with before the comparison: hashing both sides makes
/// the comparison constant-time over equal-length tags, whatever the token's length.
const TOKEN_KEY: &[u8] = b"momo-gateway /metrics bearer token";

impl Gateway {
    /// Whether `/metrics` is closed to everyone: the gateway serves Production (a route names
    /// it), no `MOMO_METRICS_TOKEN` is set, and `MOMO_METRICS_PUBLIC` does not open it.
    pub fn metrics_closed(&self) -> bool {
        let metrics = &self.config.metrics;
        let serves_production = self
            .config
            .connectors
            .routes
            .iter()
            .any(|(_, environment, _)| *environment == crate::domain::Environment::Production);
        metrics.token.is_none() && !metrics.public && serves_production
    }

    /// Whether a scrape presenting `bearer` (the token of `Authorization: Bearer`) may read
    /// `/metrics`: anyone when `MOMO_METRICS_TOKEN` is unset (and `/metrics` is not closed),
    /// else only its bearer.
    pub fn metrics_reader_allowed(&self, bearer: Option<&str>) -> bool {
        match (&self.config.metrics.token, bearer) {
            (None, _) => !self.metrics_closed(),
            (Some(_), None) => false,
            (Some(expected), Some(presented)) => {
                secret_matches(TOKEN_KEY, presented, &secret_hash(TOKEN_KEY, expected))
            }
        }
    }

    /// What `/metrics` shows at `now`: the database's figures of the last reading, read again
    /// when it is older than the refresh period (and then only if the database answers within
    /// [`DATABASE_FIGURES_WAIT`]), and this process's connections and write batches, always.
    pub async fn gauges(&self, now: Timestamp) -> Gauges {
        let database = self.database_stats(now).await.map(|s| {
            let age = |t: Option<Timestamp>| {
                t.map(|t| (now.millis() - t.millis()).max(0) as f64 / 1000.0)
                    .unwrap_or(0.0)
            };
            DatabaseFigures {
                pending_transactions: s.pending_transactions,
                oldest_pending_age_s: age(s.oldest_pending),
                pending_transfers_needing_review: s.transfers_needing_review,
                outbox_backlog: s.outbox_backlog,
                oldest_outbox_age_s: age(s.oldest_outbox),
                webhook_endpoints_failing: s.webhook_endpoints_failing,
            }
        });
        let p = self.store.process_stats();
        Gauges {
            database,
            db_pool_size: p.pool_size,
            db_pool_idle: p.pool_idle,
            write_batches: p.writes,
        }
    }

    /// The database's figures as of the last reading within the refresh period, else read now.
    async fn database_stats(&self, now: Timestamp) -> Option<StoreStats> {
        let mut last = self.figures.0.lock().await;
        let refresh = self.config.metrics.database_refresh.as_millis() as i64;
        if let Some(reading) = last.as_ref() {
            // Either way: a scrape that waited for the lock may be a little older than the
            // reading it waited for; a clock set back far enough reads again.
            if (now.millis() - reading.at.millis()).abs() < refresh {
                return reading.stats;
            }
        }
        let stats = self.read_database_stats(now).await;
        *last = Some(Reading { at: now, stats });
        stats
    }

    async fn read_database_stats(&self, now: Timestamp) -> Option<StoreStats> {
        let review_before = now.minus(self.config.reconcile.collection_ttl);
        match tokio::time::timeout(DATABASE_FIGURES_WAIT, self.store.stats(review_before)).await {
            Ok(Ok(stats)) => Some(stats),
            Ok(Err(e)) => {
                tracing::warn!(cause = %e, "the database's figures for /metrics could not be read");
                None
            }
            Err(_) => {
                tracing::warn!(
                    wait_ms = DATABASE_FIGURES_WAIT.as_millis() as u64,
                    "the database's figures for /metrics were not read in time"
                );
                None
            }
        }
    }
}
