//! The recipient check as a merchant sees it: what was asked (a lookup, recorded with a keyed
//! hash of the number, never the number), what it found, and the holder's name given back
//! masked unless the merchant names the holder to confirm.
//!
//! A holder's name is personal data: a merchant who may read any number's name holds a name
//! directory. So the check answers what a payout needs (is the account active, is it the
//! person I mean) and no more.

use super::page::{Cursor, Paged};
use super::{OperatorCode, Tenant, Timestamp};

/// What a lookup found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LookupOutcome {
    Active,
    Inactive,
    /// The operator's protocol cannot tell.
    Unknown,
    /// The operator could not be asked, or refused the lookup.
    Unavailable,
}

impl LookupOutcome {
    pub const ALL: [LookupOutcome; 4] = [
        LookupOutcome::Active,
        LookupOutcome::Inactive,
        LookupOutcome::Unknown,
        LookupOutcome::Unavailable,
    ];

    /// The word on the wire and in the database.
    pub fn as_str(self) -> &'static str {
        match self {
            LookupOutcome::Active => "active",
            LookupOutcome::Inactive => "inactive",
            LookupOutcome::Unknown => "unknown",
            LookupOutcome::Unavailable => "unavailable",
        }
    }

    pub fn parse(word: &str) -> Option<LookupOutcome> {
        LookupOutcome::ALL.into_iter().find(|o| o.as_str() == word)
    }
}

/// One recipient check, as recorded for the merchant who asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecipientLookup {
    pub id: String,
    pub tenant: Tenant,
    pub operator: OperatorCode,
    /// The number's keyed hash (hex): the same number gives the same hash, and the hash does
    /// not give the number back without the gateway's key.
    pub phone_hash: String,
    pub outcome: LookupOutcome,
    /// Whether the name the merchant gave matched the holder's; `None` when none was given
    /// (or the operator gave no name).
    pub name_matched: Option<bool>,
    pub asked_at: Timestamp,
}

impl Paged for RecipientLookup {
    fn cursor(&self) -> Cursor {
        Cursor::at(self.asked_at, &self.id)
    }
}

/// `name` as the check gives it back: the first word's initial, then each other word's first
/// two letters, the rest starred, so a merchant can tell "A. Tr***" is the Aya Traoré they
/// mean without the check spelling out anyone's name.
pub fn mask_name(name: &str) -> String {
    let mut words = name.split_whitespace();
    let Some(first) = words.next() else {
        return String::new();
    };
    let mut masked: String = first.chars().take(1).collect();
    masked.push('.');
    for word in words {
        masked.push(' ');
        masked.extend(word.chars().take(2));
        masked.push_str("***");
    }
    masked
}

/// Whether `given` names the holder `held`: the same words, in any order (a first and a last
/// name swapped), whatever their case.
pub fn names_match(given: &str, held: &str) -> bool {
    let words = |name: &str| {
        let mut words: Vec<String> = name.split_whitespace().map(str::to_lowercase).collect();
        words.sort();
        words
    };
    let given = words(given);
    !given.is_empty() && given == words(held)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_is_masked_to_an_initial_and_first_letters() {
        assert_eq!(mask_name("Aya Traoré"), "A. Tr***");
        assert_eq!(mask_name("  Jean  Kouassi Koffi "), "J. Ko*** Ko***");
        assert_eq!(mask_name("Émilie"), "É.");
        assert_eq!(mask_name("   "), "");
    }

    #[test]
    fn names_match_whatever_their_case_and_order() {
        assert!(names_match("aya traoré", "Aya Traoré"));
        assert!(names_match("Traoré  Aya", "Aya Traoré"));
        assert!(!names_match("Aya", "Aya Traoré"));
        assert!(!names_match("", "Aya Traoré"));
        assert!(!names_match("Awa Traoré", "Aya Traoré"));
    }

    #[test]
    fn every_outcome_reads_back() {
        for outcome in LookupOutcome::ALL {
            assert_eq!(LookupOutcome::parse(outcome.as_str()), Some(outcome));
        }
    }
}
