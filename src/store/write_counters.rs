//! What this process's batch writers (`sql::batch`) have done since it started, for
//! `/metrics`: how their batches ended, how many writes the committed ones carried, how often a
//! batch had to run again one savepoint per write, and how long the writers were busy and
//! committing. From these an operator reads the mean batch size and how close the writers are
//! to saturation, the two figures that say whether group commit still keeps up.

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
    }

    /// A batch whose first, set-based pass failed runs again one savepoint per write.
    pub fn second_pass(&self) {
        self.second_passes.fetch_add(1, Ordering::Relaxed);
    }

    /// A `COMMIT` (of a batch, or of a write retried on its own) that took `took`.
    pub fn commit(&self, took: Duration) {
        self.commit_nanos.fetch_add(nanos(took), Ordering::Relaxed);
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
            }
        );
    }
}
