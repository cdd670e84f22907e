//! A payout batch and its items' outcomes as both generations show them: the batch defined once
//! (`cased!`), an item holding the generation's own transaction shape.

use serde::Serialize;

use crate::api::cased::cased;
use crate::api::dialect::Generation;
use crate::domain::{PayoutBatch, Tally, Timestamp};
use crate::service::payouts::ItemOutcome;

/// A count and its amount.
#[derive(Debug, Serialize)]
pub struct TallyOut {
    pub count: u64,
    pub amount: String,
}

impl From<Tally> for TallyOut {
    fn from(t: Tally) -> Self {
        TallyOut {
            count: t.count,
            amount: t.amount.to_string(),
        }
    }
}

cased! {
    /// A batch.
    #[derive(Debug, Serialize)]
    pub struct Batch<'a> / BatchCamel {
        pub id: &'a str,
        pub status: &'static str,
        pub label: Option<&'a str>,
        pub all_or_nothing: bool,
        pub submitted: u64,
        pub refused: u64,
        pub duplicates: u64,
        pub accepted: TallyOut,
        pub successful: TallyOut,
        pub failed: TallyOut,
        pub pending: TallyOut,
        pub created_at: String,
        pub completed_at: Option<String>,
    }
}

impl<'a> From<&'a PayoutBatch> for Batch<'a> {
    fn from(b: &'a PayoutBatch) -> Self {
        Batch {
            id: b.id.as_str(),
            status: b.status().as_str(),
            label: b.label.as_deref(),
            all_or_nothing: b.all_or_nothing,
            submitted: b.submitted,
            refused: b.refused,
            duplicates: b.duplicates,
            accepted: b.accepted.into(),
            successful: b.successful.into(),
            failed: b.failed.into(),
            pending: Tally {
                count: b.pending,
                amount: b.pending_amount(),
            }
            .into(),
            // Both generations write a batch's times to the millisecond.
            created_at: b.created_at.iso8601_millis(),
            completed_at: b.completed_at.map(Timestamp::iso8601_millis),
        }
    }
}

/// One item's outcome; its field names are one word each, the same in both generations.
#[derive(Debug, Serialize)]
pub struct Item<'a, T> {
    pub index: usize,
    pub outcome: &'static str,
    /// The item's transaction: its own (accepted) or the earlier one (duplicate).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transaction: Option<T>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<&'a str>,
}

/// The items' outcomes, in their order, each transaction in the shape of `D`.
pub fn items<D: Generation>(outcomes: &[ItemOutcome]) -> Vec<Item<'_, D::Transaction<'_>>> {
    outcomes
        .iter()
        .enumerate()
        .map(|(index, o)| Item {
            index,
            outcome: match o {
                ItemOutcome::Accepted(_) => "accepted",
                ItemOutcome::Duplicate(_) => "duplicate",
                ItemOutcome::Refused(_) => "refused",
            },
            transaction: o.transaction().map(D::Transaction::from),
            code: match o {
                ItemOutcome::Refused(r) => Some(r.code.as_str()),
                ItemOutcome::Accepted(_) | ItemOutcome::Duplicate(_) => None,
            },
            reason: match o {
                ItemOutcome::Refused(r) => Some(r.reason.as_str()),
                ItemOutcome::Accepted(_) | ItemOutcome::Duplicate(_) => None,
            },
        })
        .collect()
}

/// A recorded batch and its items' outcomes.
#[derive(Debug, Serialize)]
pub struct Created<B, I> {
    pub batch: B,
    pub items: Vec<I>,
}

/// The items' outcomes of a batch refused whole.
#[derive(Debug, Serialize)]
pub struct Refused<I> {
    pub items: Vec<I>,
}
