//! The batch writers' counters (group commit) in `/metrics`. The store keeps them
//! ([`WriteBatchStats`]); each scrape reads them and sets them here, and this collector writes them as
//! counters and histograms, as `process.rs` writes the process's figures: values counted
//! elsewhere, shown as they are.

use std::sync::{Arc, Mutex};

use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric, NoLabelSet};
use prometheus_client::metrics::counter::ConstCounter;
use prometheus_client::metrics::MetricType;

use crate::store::{DurationCounts, WriteBatchStats, DURATION_BOUNDS};

/// The latest [`WriteBatchStats`] read, written at each scrape.
#[derive(Debug, Clone, Default)]
pub(super) struct WriteBatchCollector(Arc<Mutex<WriteBatchStats>>);

impl WriteBatchCollector {
    pub fn set(&self, totals: WriteBatchStats) {
        // A poisoned lock only means a scrape panicked mid-way; the totals are plain numbers.
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) = totals;
    }

    fn get(&self) -> WriteBatchStats {
        *self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Collector for WriteBatchCollector {
    fn encode(&self, mut encoder: DescriptorEncoder) -> Result<(), std::fmt::Error> {
        let t = self.get();
        let mut batches = encoder.encode_descriptor(
            "momo_write_batches",
            "Write batches (group commit) run by this process, by how they ended: committed, refused (a lone write refused, nothing to commit), failed (nothing written, each request answered 503)",
            None,
            MetricType::Counter,
        )?;
        for (outcome, n) in [("committed", t.committed), ("refused", t.refused), ("failed", t.failed)] {
            let labels = vec![("outcome", outcome)];
            ConstCounter::new(n).encode(batches.encode_family(&labels)?)?;
        }
        super::unlabelled(
            &mut encoder,
            "momo_write_batch_writes",
            "Writes (creations, settlements, idempotency keys) in committed write batches, those refused in a second pass included",
            ConstCounter::new(t.writes),
        )?;
        super::unlabelled(
            &mut encoder,
            "momo_write_batch_second_passes",
            "Write batches run again with a savepoint per write, after one of their writes failed",
            ConstCounter::new(t.second_passes),
        )?;
        super::unlabelled(
            &mut encoder,
            "momo_write_batch_busy_seconds",
            "Time the batch writers spent on batches, from taking one to answering it (connection wait, statements, commits, retries)",
            ConstCounter::new(t.busy.as_secs_f64()),
        )?;
        super::unlabelled(
            &mut encoder,
            "momo_write_batch_commit_seconds",
            "Of the batch writers' busy time, the part spent in COMMIT",
            ConstCounter::new(t.committing.as_secs_f64()),
        )?;
        histogram(
            &mut encoder,
            "momo_write_batch_duration_seconds",
            "How long write batches took, from taking one to answering it; a request waits for about two",
            t.busy.as_secs_f64(),
            &t.batch_times,
        )?;
        histogram(
            &mut encoder,
            "momo_write_commit_duration_seconds",
            "How long the write batches' COMMITs took (on SQLite, mostly the WAL's fsync)",
            t.committing.as_secs_f64(),
            &t.commit_times,
        )
    }
}

/// A histogram of `counts` in the buckets of `DURATION_BOUNDS`, whose durations add up to `sum`.
fn histogram(
    encoder: &mut DescriptorEncoder,
    name: &str,
    help: &str,
    sum: f64,
    counts: &DurationCounts,
) -> std::fmt::Result {
    // The encoder makes the counts cumulative; an upper bound of `f64::MAX` is written `+Inf`.
    let buckets: Vec<(f64, u64)> = DURATION_BOUNDS
        .iter()
        .copied()
        .chain([f64::MAX])
        .zip(counts.iter().copied())
        .collect();
    let count = counts.iter().sum();
    let mut metric = encoder.encode_descriptor(name, help, None, MetricType::Histogram)?;
    metric.encode_histogram::<NoLabelSet>(sum, count, &buckets, None)
}
