//! Idempotency keys: the `Idempotency-Key` a merchant sends with a write so that sending it
//! again replays the first answer instead of acting twice (Stripe's convention).

use std::fmt;

/// The longest key accepted, in characters (Stripe's limit).
pub const MAX_KEY_LENGTH: usize = 255;

/// A key as the merchant sent it: 1 to 255 printable ASCII characters. Keys are scoped to a
/// merchant and environment by whoever stores them.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct IdempotencyKey(String);

/// Why a key was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeyError {
    #[error("must not be empty")]
    Empty,
    #[error("is {0} characters long; at most {MAX_KEY_LENGTH} are accepted")]
    TooLong(usize),
    #[error("must be printable ASCII (letters, digits, punctuation, spaces); a UUID is a good key")]
    NotPrintable,
}

impl IdempotencyKey {
    pub fn parse(raw: &str) -> Result<IdempotencyKey, KeyError> {
        let length = raw.chars().count();
        if length > MAX_KEY_LENGTH {
            return Err(KeyError::TooLong(length));
        }
        if raw.trim().is_empty() {
            return Err(KeyError::Empty);
        }
        if !raw.bytes().all(|b| (0x20..0x7f).contains(&b)) {
            return Err(KeyError::NotPrintable);
        }
        Ok(IdempotencyKey(raw.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for IdempotencyKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The first answer to a key, kept to be replayed: its status and its body, exactly.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeptAnswer {
    pub status: u16,
    pub body: String,
}

/// A key as another request left it: the fingerprint of that request (method, path and body),
/// and its answer once it has one (`None`: still in flight).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyHolder {
    pub fingerprint: String,
    pub answer: Option<KeptAnswer>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_is_one_to_255_printable_ascii_characters() {
        assert!(IdempotencyKey::parse("0b6c0f4e-4a0e-4d52-9d5e-2f1c8c0e8a11").is_ok());
        assert!(IdempotencyKey::parse(&"k".repeat(255)).is_ok());
        assert_eq!(IdempotencyKey::parse(&"k".repeat(256)), Err(KeyError::TooLong(256)));
        assert_eq!(IdempotencyKey::parse(""), Err(KeyError::Empty));
        assert_eq!(IdempotencyKey::parse("   "), Err(KeyError::Empty));
        assert_eq!(IdempotencyKey::parse("clé"), Err(KeyError::NotPrintable));
        assert_eq!(IdempotencyKey::parse("a\tb"), Err(KeyError::NotPrintable));
    }
}
