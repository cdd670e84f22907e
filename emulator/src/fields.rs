//! Checks on request fields that both protocols share: whole amounts in francs, phone numbers,
//! header values and lengths. Each protocol words its own refusal.

use axum::http::HeaderMap;

/// A positive whole amount written as a string of digits (XOF has no minor unit).
pub fn is_whole_amount(raw: &str) -> bool {
    !raw.is_empty() && raw.len() <= 15 && raw.bytes().all(|b| b.is_ascii_digit()) && raw.bytes().any(|b| b != b'0')
}

/// An E.164 number: `+` then 8 to 15 digits.
pub fn is_e164(raw: &str) -> bool {
    raw.strip_prefix('+')
        .is_some_and(|digits| (8..=15).contains(&digits.len()) && digits.bytes().all(|b| b.is_ascii_digit()))
}

/// A MoMo MSISDN: digits only, country code included, no `+`.
pub fn is_msisdn(raw: &str) -> bool {
    (8..=15).contains(&raw.len()) && raw.bytes().all(|b| b.is_ascii_digit())
}

/// A header's value, when present and readable.
pub fn header<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers.get(name).and_then(|value| value.to_str().ok()).map(str::trim)
}

/// Whether an optional text is at most `max` characters long.
pub fn fits(value: &Option<String>, max: usize) -> bool {
    value.as_ref().is_none_or(|v| v.chars().count() <= max)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amounts_and_numbers_are_checked_as_the_operators_do() {
        assert!(is_whole_amount("1000"));
        for bad in ["", "0", "00", "10.5", "-5", "1e3", "1234567890123456"] {
            assert!(!is_whole_amount(bad), "{bad}");
        }
        assert!(is_e164("+2250700000001"));
        assert!(!is_e164("2250700000001") && !is_e164("+22507x0000001"));
        assert!(is_msisdn("2250700000001") && !is_msisdn("+2250700000001"));
    }
}
