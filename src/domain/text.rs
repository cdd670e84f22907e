//! Free text supplied by merchants: names, cities, streets.
//!
//! Text is stored exactly as sent (injection-looking strings included: they are data, never
//! interpreted), but it must carry something, fit its column and hold no control characters,
//! which would corrupt logs, CSV exports and the payer's SMS.

use std::fmt;

/// The longest name, wherever a name is sent: a v1 first or last name, a v2 full name (`name`,
/// `name_user`, `customer.name`, split into first and last), a merchant's name. One limit, so
/// a name accepted by one route is never refused by another, nor stored longer than any other.
pub const MAX_NAME_CHARS: usize = 100;

/// Why a piece of text was refused. The caller names the field in its own dialect.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TextProblem {
    Empty,
    TooLong { max: usize },
    ControlCharacter,
}

impl fmt::Display for TextProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TextProblem::Empty => f.write_str("must not be empty"),
            TextProblem::TooLong { max } => write!(f, "must be at most {max} characters"),
            TextProblem::ControlCharacter => f.write_str("must not contain control characters"),
        }
    }
}

/// Accepts `raw` unchanged when it is not blank, at most `max` characters long and free of
/// control characters.
pub fn checked_text(raw: &str, max: usize) -> Result<String, TextProblem> {
    if raw.trim().is_empty() {
        return Err(TextProblem::Empty);
    }
    if raw.chars().count() > max {
        return Err(TextProblem::TooLong { max });
    }
    if raw.chars().any(char::is_control) {
        return Err(TextProblem::ControlCharacter);
    }
    Ok(raw.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_kept_verbatim_including_injection_looking_strings() {
        let raw = "Robert'); DROP TABLE customers;-- <script>";
        assert_eq!(checked_text(raw, 100).unwrap(), raw);
    }

    #[test]
    fn blank_long_and_control_text_is_refused() {
        assert_eq!(checked_text("  ", 10), Err(TextProblem::Empty));
        assert_eq!(checked_text("abcdef", 5), Err(TextProblem::TooLong { max: 5 }));
        assert_eq!(checked_text("a\u{0}b", 5), Err(TextProblem::ControlCharacter));
        assert_eq!(checked_text("a\nb", 5), Err(TextProblem::ControlCharacter));
    }

    #[test]
    fn length_counts_characters_not_bytes() {
        assert!(checked_text(&"é".repeat(100), 100).is_ok());
        assert!(checked_text(&"é".repeat(101), 100).is_err());
    }
}
