//! What this process's batch writers (`sql::batch`) have done since it started, for
//! `/metrics`: how many batches committed or failed, how many writes they carried, how often a
//! batch had to run again one savepoint per write, and how long the writers were busy and
//! committing. From these an operator reads the mean batch size and how close the writers are
//! to saturation, the two figures that say whether group commit still keeps up.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// The running totals, shared by a process's writers.
#[derive(Debug, Default)]
pub(crate) struct WriteCounters {
    committed: AtomicU64,
    failed: AtomicU64,
    writes: AtomicU64,
    second_passes: AtomicU64,
    busy_micros: AtomicU64,
    commit_micros: AtomicU64,
}

/// A reading of [`WriteCounters`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WriteBatchStats {
    /// Batches committed.
    pub committed: u64,
    /// Batches that failed as a whole (nothing of them written; each request answered 503).
    pub failed: u64,
    /// Writes (creations, settlements, idempotency keys) in the committed batches.
    pub writes: u64,
    /// Batches run again one savepoint per write, after one of their writes failed.
    pub second_passes: u64,
    /// Time the writers spent on batches, from `BEGIN` to the end of `COMMIT`.
    pub busy: Duration,
    /// Of which in `COMMIT` (on SQLite, mostly the WAL's `fsync`).
    pub committing: Duration,
}

impl WriteCounters {
    /// A batch of `writes` writes that ran for `took`: committed, or failed as a whole.
    pub fn batch(&self, writes: usize, committed: bool, took: Duration) {
        if committed {
            self.committed.fetch_add(1, Ordering::Relaxed);
            self.writes.fetch_add(writes as u64, Ordering::Relaxed);
        } else {
            self.failed.fetch_add(1, Ordering::Relaxed);
        }
        self.busy_micros.fetch_add(micros(took), Ordering::Relaxed);
    }

    pub fn second_pass(&self) {
        self.second_passes.fetch_add(1, Ordering::Relaxed);
    }

    pub fn commit(&self, took: Duration) {
        self.commit_micros.fetch_add(micros(took), Ordering::Relaxed);
    }

    pub fn read(&self) -> WriteBatchStats {
        WriteBatchStats {
            committed: self.committed.load(Ordering::Relaxed),
            failed: self.failed.load(Ordering::Relaxed),
            writes: self.writes.load(Ordering::Relaxed),
            second_passes: self.second_passes.load(Ordering::Relaxed),
            busy: Duration::from_micros(self.busy_micros.load(Ordering::Relaxed)),
            committing: Duration::from_micros(self.commit_micros.load(Ordering::Relaxed)),
        }
    }
}

fn micros(d: Duration) -> u64 {
    u64::try_from(d.as_micros()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_committed_batches_count_their_writes() {
        let c = WriteCounters::default();
        c.batch(32, true, Duration::from_millis(4));
        c.batch(5, false, Duration::from_millis(1));
        c.second_pass();
        c.commit(Duration::from_micros(1_200));
        assert_eq!(
            c.read(),
            WriteBatchStats {
                committed: 1,
                failed: 1,
                writes: 32,
                second_passes: 1,
                busy: Duration::from_millis(5),
                committing: Duration::from_micros(1_200),
            }
        );
    }
}
