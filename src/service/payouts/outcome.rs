//! What a batch asks for, item by item, and what became of each item.

use crate::domain::TransactionRecord;
use crate::service::payments::PaymentRequest;

/// A batch as the API read it.
#[derive(Debug)]
pub struct BatchRequest {
    pub label: Option<String>,
    /// Accept every item or none.
    pub all_or_nothing: bool,
    /// Each item: a transfer, or why the request's item cannot be one.
    pub items: Vec<Result<PaymentRequest, Refusal>>,
}

/// What became of one item.
#[derive(Debug)]
pub enum ItemOutcome {
    /// Recorded as a transfer, `PENDING` and queued.
    Accepted(Box<TransactionRecord>),
    /// Its transaction id was used before: that transaction stands, and nothing new was written.
    Duplicate(Box<TransactionRecord>),
    /// Not recorded, nothing reserved or sent.
    Refused(Refusal),
}

/// Why an item was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub code: RefusalCode,
    /// The field (a CSV column) an `Invalid` item was refused for, where one was: what a page
    /// names in its own language. Set only by [`Refusal::invalid`], so only on `Invalid`.
    field: Option<&'static str>,
    /// Why, in the API's English.
    pub reason: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RefusalCode {
    /// The item is no valid transfer (a field missing or wrong).
    Invalid,
    /// An earlier item of the same batch has its transaction id.
    DuplicateInBatch,
    /// Its total does not fit the available balance (what is left of it after the items before).
    InsufficientFunds,
    /// Its number holds no active account with its operator.
    RecipientInactive,
    /// It asked for a recipient check that its operator did not answer.
    RecipientUnchecked,
    /// Its operator is unknown, disabled or unrouted here.
    OperatorUnavailable,
    /// All or nothing: another item was refused, so this one was not recorded.
    NotAttempted,
    /// The database did not record it: nothing was reserved, and it may be sent again.
    Unavailable,
}

impl RefusalCode {
    pub fn as_str(self) -> &'static str {
        match self {
            RefusalCode::Invalid => "invalid",
            RefusalCode::DuplicateInBatch => "duplicate_in_batch",
            RefusalCode::InsufficientFunds => "insufficient_funds",
            RefusalCode::RecipientInactive => "recipient_inactive",
            RefusalCode::RecipientUnchecked => "recipient_unchecked",
            RefusalCode::OperatorUnavailable => "operator_unavailable",
            RefusalCode::NotAttempted => "not_attempted",
            RefusalCode::Unavailable => "unavailable",
        }
    }
}

impl Refusal {
    pub fn new(code: RefusalCode, reason: impl Into<String>) -> Refusal {
        Refusal {
            code,
            field: None,
            reason: reason.into(),
        }
    }

    /// The field an `Invalid` item was refused for.
    pub fn field(&self) -> Option<&'static str> {
        self.field
    }

    /// An item refused for its `field`.
    pub fn invalid(field: &'static str, reason: impl Into<String>) -> Refusal {
        Refusal {
            code: RefusalCode::Invalid,
            field: Some(field),
            reason: reason.into(),
        }
    }
}
