//! Control characters in a path or query string. Nothing the gateway issues or stores (ids,
//! references, tokens, filters) contains one, so a request with one names nothing; and
//! PostgreSQL refuses NUL in text outright. The API (`api::printable`) and the pages
//! (`web::guard`) each answer such a request in their own form.

use percent_encoding::percent_decode_str;

/// Whether `raw`, percent-decoded, holds a control character (C0, DEL or C1). Bytes that do
/// not decode to UTF-8 are left to the handlers, which already answer them (an unknown id).
pub fn holds_control_character(raw: &str) -> bool {
    percent_decode_str(raw)
        .decode_utf8_lossy()
        .chars()
        .any(char::is_control)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_found_encoded_or_not() {
        for raw in ["%00", "a%00b", "%1f", "%1F", "%7F", "%C2%85", "x%0Ay", "%09", "a\u{0}"] {
            assert!(holds_control_character(raw), "{raw}");
        }
        for raw in ["", "abc", "%20", "%FF", "%C3%A9", "é", "%", "%0", "%zz", "a+b", "%2500"] {
            assert!(!holds_control_character(raw), "{raw}");
        }
    }
}
