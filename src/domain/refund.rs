//! What makes a transaction a refund: the collection it gives back, by its service reference,
//! and the merchant's reason, if one was given.

use super::ids::{Reference, TextId, TransactionId};
use super::text::{checked_text, TextProblem};

/// The longest reason a refund keeps (the `refund_reason` column holds no more).
pub const MAX_REFUND_REASON_CHARS: usize = 255;

/// A refund's tie to its collection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefundLink {
    /// The collection given back, by its `ref`.
    pub collection: Reference,
    /// Why, in the merchant's words (a returned order, a double charge).
    pub reason: Option<RefundReason>,
}

/// Why a refund was made: free text, not blank, at most [`MAX_REFUND_REASON_CHARS`]
/// characters, without control characters (it is shown on pages, in CSV exports and logs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefundReason(String);

impl RefundReason {
    pub fn parse(raw: &str) -> Result<RefundReason, TextProblem> {
        checked_text(raw, MAX_REFUND_REASON_CHARS).map(RefundReason)
    }

    /// A reason read back from storage, where only a parsed one was written.
    pub fn from_stored(text: String) -> RefundReason {
        RefundReason(text)
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// A refund's own transaction id where a person, not a merchant's program, makes it (the
/// dashboard's form, the command line): `refund-` and 12 random hex digits, within v2's 20
/// characters.
pub fn new_refund_id() -> TransactionId {
    let random = uuid::Uuid::new_v4().simple().to_string();
    TransactionId::from_text(format!("refund-{}", &random[..12]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reason_is_kept_verbatim_up_to_its_limit_and_without_control_characters() {
        let said = "Commande retournée — colis abîmé";
        assert_eq!(RefundReason::parse(said).unwrap().as_str(), said);
        assert!(RefundReason::parse(&"é".repeat(MAX_REFUND_REASON_CHARS)).is_ok());
        assert_eq!(
            RefundReason::parse(&"a".repeat(MAX_REFUND_REASON_CHARS + 1)),
            Err(TextProblem::TooLong {
                max: MAX_REFUND_REASON_CHARS
            })
        );
        assert_eq!(RefundReason::parse("a\tb"), Err(TextProblem::ControlCharacter));
        assert_eq!(RefundReason::parse("a\u{85}b"), Err(TextProblem::ControlCharacter));
        assert_eq!(RefundReason::parse("   "), Err(TextProblem::Empty));
    }
}
