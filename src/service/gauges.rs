//! The figures `/metrics` reads at each scrape.

use std::time::Duration;

use super::Gateway;
use crate::domain::Timestamp;
use crate::telemetry::metrics::Gauges;
use crate::telemetry::DatabaseFigures;

/// How long a scrape waits for the database's figures before it answers without them: well
/// inside Prometheus's default scrape timeout (10 s), so an unreachable database (a pool
/// waiting for a connection) still leaves the process's own series to read.
pub const DATABASE_FIGURES_WAIT: Duration = Duration::from_secs(3);

impl Gateway {
    /// What `/metrics` shows: the database's figures, if it answers within
    /// [`DATABASE_FIGURES_WAIT`], and this process's connections and write batches, always.
    pub async fn gauges(&self, now: Timestamp) -> Gauges {
        let review_before = now.minus(self.config.reconcile.collection_ttl);
        let read = tokio::time::timeout(DATABASE_FIGURES_WAIT, self.store.stats(review_before)).await;
        let database = match read {
            Ok(Ok(s)) => {
                let age = |t: Option<Timestamp>| {
                    t.map(|t| (now.millis() - t.millis()).max(0) as f64 / 1000.0)
                        .unwrap_or(0.0)
                };
                Some(DatabaseFigures {
                    pending_transactions: s.pending_transactions,
                    oldest_pending_age_s: age(s.oldest_pending),
                    pending_transfers_needing_review: s.transfers_needing_review,
                    outbox_backlog: s.outbox_backlog,
                    oldest_outbox_age_s: age(s.oldest_outbox),
                })
            }
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
        };
        let p = self.store.process_stats();
        Gauges {
            database,
            db_pool_size: p.pool_size,
            db_pool_idle: p.pool_idle,
            write_batches: p.writes,
        }
    }
}
