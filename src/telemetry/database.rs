//! The database-wide gauges in `/metrics` (pending transactions, the outbox backlog), read from
//! the database at each scrape, and `momo_database_up`, which says whether that read worked.
//! When it did not, the gauges are left out rather than shown stale or as zeros, the way
//! `postgres_exporter` answers `pg_up 0`: the scrape still answers, with the process's own
//! series, which matter most while the database is away.

use std::sync::{Arc, Mutex};

use prometheus_client::collector::Collector;
use prometheus_client::encoding::DescriptorEncoder;
use prometheus_client::metrics::gauge::ConstGauge;

/// The figures every process reads the same from the database.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct DatabaseFigures {
    pub pending_transactions: i64,
    pub oldest_pending_age_s: f64,
    pub pending_transfers_needing_review: i64,
    pub outbox_backlog: i64,
    pub oldest_outbox_age_s: f64,
    pub webhook_endpoints_failing: i64,
}

/// The latest read, `None` when it failed; written at each scrape.
#[derive(Debug, Clone, Default)]
pub(super) struct DatabaseCollector(Arc<Mutex<Option<DatabaseFigures>>>);

impl DatabaseCollector {
    pub fn set(&self, figures: Option<DatabaseFigures>) {
        // A poisoned lock only means a scrape panicked mid-way; the figures are plain numbers.
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) = figures;
    }

    fn get(&self) -> Option<DatabaseFigures> {
        *self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Collector for DatabaseCollector {
    fn encode(&self, mut encoder: DescriptorEncoder) -> Result<(), std::fmt::Error> {
        let figures = self.get();
        super::unlabelled(
            &mut encoder,
            "momo_database_up",
            "1 if this scrape read the database's figures, 0 if reading them failed or took over 3 s (those gauges are then left out)",
            ConstGauge::new(i64::from(figures.is_some())),
        )?;
        let Some(f) = figures else { return Ok(()) };
        super::unlabelled(
            &mut encoder,
            "momo_pending_transactions",
            "Transactions PENDING now",
            ConstGauge::new(f.pending_transactions),
        )?;
        super::unlabelled(
            &mut encoder,
            "momo_oldest_pending_transaction_age_seconds",
            "Age of the oldest PENDING transaction",
            ConstGauge::new(f.oldest_pending_age_s),
        )?;
        super::unlabelled(
            &mut encoder,
            "momo_transfers_needing_review",
            "Transfers and refunds pending longer than the collection TTL since they were sent (queued batch transfers not counted)",
            ConstGauge::new(f.pending_transfers_needing_review),
        )?;
        super::unlabelled(
            &mut encoder,
            "momo_outbox_backlog",
            "Webhook events waiting for delivery",
            ConstGauge::new(f.outbox_backlog),
        )?;
        super::unlabelled(
            &mut encoder,
            "momo_outbox_oldest_age_seconds",
            "Age of the oldest undelivered webhook event",
            ConstGauge::new(f.oldest_outbox_age_s),
        )?;
        super::unlabelled(
            &mut encoder,
            "momo_webhook_endpoints_failing",
            "Merchant environments with a webhook event still undelivered after 3 attempts or more",
            ConstGauge::new(f.webhook_endpoints_failing),
        )
    }
}
