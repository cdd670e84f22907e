//! Payout batches: many transfers asked for in one request (salaries, commissions, sellers'
//! earnings). Each accepted item is an ordinary transfer with its own transaction; the batch
//! counts them by state and completes once every one of them is final.

use super::money::Francs;
use super::page::{Cursor, Paged};
use rand::Rng;

use super::environment::Tenant;
use super::time::Timestamp;

/// What every batch id starts with.
pub const BATCH_ID_PREFIX: &str = "pbt_";
/// Random characters after the prefix: 22 of 62, as a link's id.
const BATCH_ID_RANDOM: usize = 22;
const ALPHABET: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/// The most items one batch may hold.
pub const MAX_BATCH_ITEMS: usize = 5_000;
/// The longest label a batch keeps.
pub const MAX_LABEL_CHARS: usize = 255;

/// A batch's id.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct BatchId(String);

impl BatchId {
    pub fn new() -> BatchId {
        let mut rng = rand::thread_rng();
        let random: String = (0..BATCH_ID_RANDOM)
            .map(|_| ALPHABET[rng.gen_range(0..ALPHABET.len())] as char)
            .collect();
        BatchId(format!("{BATCH_ID_PREFIX}{random}"))
    }

    /// An id as the API names it; `None` for anything that cannot be one.
    pub fn parse(raw: &str) -> Option<BatchId> {
        let random = raw.strip_prefix(BATCH_ID_PREFIX)?;
        (random.len() == BATCH_ID_RANDOM && random.bytes().all(|b| b.is_ascii_alphanumeric()))
            .then(|| BatchId(raw.to_owned()))
    }

    /// An id read back from storage, where only a made one was written.
    pub fn from_stored(text: String) -> BatchId {
        BatchId(text)
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl Default for BatchId {
    fn default() -> BatchId {
        BatchId::new()
    }
}

impl std::fmt::Display for BatchId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Where a batch stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BatchStatus {
    /// Some accepted item is not final yet (or the request is still recording items).
    Processing,
    /// Every accepted item is `SUCCESSFUL` or `FAILED`.
    Completed,
}

impl BatchStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            BatchStatus::Processing => "processing",
            BatchStatus::Completed => "completed",
        }
    }
}

/// How many items, and how much money, a batch holds in one state.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tally {
    pub count: u64,
    pub amount: Francs,
}

/// A payout batch as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PayoutBatch {
    pub id: BatchId,
    pub tenant: Tenant,
    /// The merchant's own name for it (a payroll's month), if given.
    pub label: Option<String>,
    /// Whether the request asked for every item or none.
    pub all_or_nothing: bool,
    /// Items in the request.
    pub submitted: u64,
    /// Items refused (bad input, not affordable, recipient inactive): no transaction.
    pub refused: u64,
    /// Items whose transaction id was used before: the earlier transaction stands.
    pub duplicates: u64,
    /// Items recorded as transfers, and their amounts (fees aside).
    pub accepted: Tally,
    pub successful: Tally,
    pub failed: Tally,
    /// Accepted items not final yet.
    pub pending: u64,
    pub created_at: Timestamp,
    pub completed_at: Option<Timestamp>,
}

impl Paged for PayoutBatch {
    fn cursor(&self) -> Cursor {
        Cursor::at(self.created_at, &self.id)
    }
}

impl PayoutBatch {
    pub fn status(&self) -> BatchStatus {
        if self.completed_at.is_some() {
            BatchStatus::Completed
        } else {
            BatchStatus::Processing
        }
    }

    /// The amount of the accepted items not final yet.
    pub fn pending_amount(&self) -> Francs {
        self.accepted.amount - self.successful.amount - self.failed.amount
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_made_id_parses_back_and_nothing_else_does() {
        let id = BatchId::new();
        assert_eq!(BatchId::parse(id.as_str()), Some(id.clone()));
        assert!(id.as_str().starts_with(BATCH_ID_PREFIX));
        assert_eq!(BatchId::parse("pbt_short"), None);
        assert_eq!(BatchId::parse(&id.as_str().replace(BATCH_ID_PREFIX, "lnk_")), None);
        assert_eq!(
            BatchId::parse(&format!("{}!", &id.as_str()[..id.as_str().len() - 1])),
            None
        );
    }
}
