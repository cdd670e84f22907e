//! What this process's batch writers (`sql::batch`) have done since it started, for
//! `/metrics`: how their batches ended, how many writes the committed ones carried, how often a
//! batch had to run again one savepoint per write, and how long the writers were busy and
//! committing. From these an operator reads the mean batch size and how close the writers are
//! to saturation, the two figures that say whether group commit still keeps up. The batches'
//! and the commits' durations are counted in buckets too (`DURATION_BOUNDS`): a request waits
//! for about two batches, so its latency's tail is the tail of theirs, which totals cannot show.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// How a batch ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BatchEnd {
    /// Its transaction committed: every write in it has its own answer, refused ones included.
    Committed,
    /// A lone write that was refused (a duplicate, insufficient funds): nothing to commit.
    Refused,
    /// Failed as a whole: nothing of it written, each of its requests answered 503.
    Failed,
}

impl BatchEnd {
    /// Its name in a batch's span, as `momo_write_batches_total` labels it.
    pub(crate) fn name(self) -> &'static str {
        match self {
            BatchEnd::Committed => "committed",
            BatchEnd::Refused => "refused",
            BatchEnd::Failed => "failed",
        }
    }
}

/// The upper bounds, in seconds, of the duration buckets of batches and commits, for
/// `/metrics` histograms. A batch takes a few milliseconds under load, so the buckets are
/// finest there; a last bucket holds what is longer than the last bound.
pub const DURATION_BOUNDS: [f64; 17] = [
    0.0005, 0.001, 0.0015, 0.002, 0.003, 0.004, 0.005, 0.006, 0.008, 0.010, 0.012, 0.015, 0.020, 0.030, 0.050, 0.100,
    0.250,
];

/// How many durations fell in each bucket of `DURATION_BOUNDS` (not cumulative), the last
/// bucket being above the last bound.
pub type DurationCounts = [u64; DURATION_BOUNDS.len() + 1];

/// Durations counted in the buckets of `DURATION_BOUNDS`. Hand-written rather than a
/// `prometheus-client` histogram: the store does not depend on the telemetry's crate, and a
/// bucket is one atomic addition.
#[derive(Debug, Default)]
struct DurationBuckets([AtomicU64; DURATION_BOUNDS.len() + 1]);

impl DurationBuckets {
    fn observe(&self, took: Duration) {
        let seconds = took.as_secs_f64();
        let bucket = DURATION_BOUNDS.partition_point(|&bound| bound < seconds);
        self.0[bucket].fetch_add(1, Ordering::Relaxed);
    }

    fn read(&self) -> DurationCounts {
        std::array::from_fn(|i| self.0[i].load(Ordering::Relaxed))
    }
}

/// The running totals, shared by a process's writers.
#[derive(Debug, Default)]
pub(crate) struct WriteCounters {
    committed: AtomicU64,
    refused: AtomicU64,
    failed: AtomicU64,
    writes: AtomicU64,
    second_passes: AtomicU64,
    busy_nanos: AtomicU64,
    commit_nanos: AtomicU64,
    batch_times: DurationBuckets,
    commit_times: DurationBuckets,
}

/// A reading of [`WriteCounters`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WriteBatchStats {
    /// Batches whose transaction committed.
    pub committed: u64,
    /// Batches of one write that was refused.
    pub refused: u64,
    /// Batches that failed as a whole.
    pub failed: u64,
    /// Writes (creations, settlements, idempotency keys) in the committed batches, those
    /// refused in a batch's second pass included.
    pub writes: u64,
    /// Batches run again one savepoint per write, after one of their writes failed.
    pub second_passes: u64,
    /// Time the writers spent on batches, from taking one to answering it: the wait for the
    /// connection, every statement, every commit and the retries of passing errors.
    pub busy: Duration,
    /// Of which in `COMMIT` (on SQLite, mostly the WAL's `fsync`).
    pub committing: Duration,
    /// How long the batches took (their sum is `busy`), in the buckets of `DURATION_BOUNDS`.
    pub batch_times: DurationCounts,
    /// How long the commits took (their sum is `committing`), in the same buckets.
    pub commit_times: DurationCounts,
}

impl WriteCounters {
    /// A batch of `writes` writes that ran for `took` and ended as `ended`.
    pub fn batch(&self, writes: usize, ended: BatchEnd, took: Duration) {
        let count = match ended {
            BatchEnd::Committed => {
                self.writes.fetch_add(writes as u64, Ordering::Relaxed);
                &self.committed
            }
            BatchEnd::Refused => &self.refused,
            BatchEnd::Failed => &self.failed,
        };
        count.fetch_add(1, Ordering::Relaxed);
        self.busy_nanos.fetch_add(nanos(took), Ordering::Relaxed);
        self.batch_times.observe(took);
    }

    /// A batch whose first, set-based pass failed runs again one savepoint per write.
    pub fn second_pass(&self) {
        self.second_passes.fetch_add(1, Ordering::Relaxed);
    }

    /// A `COMMIT` (of a batch, or of a write retried on its own) that took `took`.
    pub fn commit(&self, took: Duration) {
        self.commit_nanos.fetch_add(nanos(took), Ordering::Relaxed);
        self.commit_times.observe(took);
    }

    /// The totals now.
    pub fn read(&self) -> WriteBatchStats {
        WriteBatchStats {
            committed: self.committed.load(Ordering::Relaxed),
            refused: self.refused.load(Ordering::Relaxed),
            failed: self.failed.load(Ordering::Relaxed),
            writes: self.writes.load(Ordering::Relaxed),
            second_passes: self.second_passes.load(Ordering::Relaxed),
            busy: Duration::from_nanos(self.busy_nanos.load(Ordering::Relaxed)),
            committing: Duration::from_nanos(self.commit_nanos.load(Ordering::Relaxed)),
            batch_times: self.batch_times.read(),
            commit_times: self.commit_times.read(),
        }
    }
}

/// Nanoseconds, so that many short batches add up without rounding (584 years fit).
fn nanos(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_committed_batches_count_their_writes() {
        let c = WriteCounters::default();
        c.batch(32, BatchEnd::Committed, Duration::from_millis(4));
        c.batch(1, BatchEnd::Refused, Duration::from_micros(300));
        c.batch(5, BatchEnd::Failed, Duration::from_millis(1));
        c.second_pass();
        c.commit(Duration::from_micros(1_200));
        assert_eq!(
            c.read(),
            WriteBatchStats {
                committed: 1,
                refused: 1,
                failed: 1,
                writes: 32,
                second_passes: 1,
                busy: Duration::from_micros(5_300),
                committing: Duration::from_micros(1_200),
                batch_times: counts(&[(0, 1), (1, 1), (5, 1)]),
                commit_times: counts(&[(2, 1)]),
            }
        );
    }

    #[test]
    fn a_duration_falls_in_the_first_bucket_whose_bound_it_does_not_exceed() {
        let c = WriteCounters::default();
        for micros in [0, 500, 501, 4_000, 250_000, 250_001, 60_000_000] {
            c.commit(Duration::from_micros(micros));
        }
        // 0 and 0.5 ms in the first (le 0.0005); 0.501 ms in le 0.001; 4 ms in le 0.004 (the
        // sixth); 250 ms in the last bound's; above it, the last bucket (+Inf).
        assert_eq!(
            c.read().commit_times,
            counts(&[(0, 2), (1, 1), (5, 1), (16, 1), (17, 2)])
        );
    }

    fn counts(at: &[(usize, u64)]) -> DurationCounts {
        let mut c = DurationCounts::default();
        for &(i, n) in at {
            c[i] = n;
        }
        c
    }
}
