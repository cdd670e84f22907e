//! Refuses, before any handler runs, a request whose path or query string holds a control
//! character once percent-decoded (`/v1/transaction/%00`, `?transactionId=%00`).
//!
//! Nothing we issue or store (ids, references, tokens, filters) contains one, so such a request
//! names nothing; and PostgreSQL refuses NUL in text outright, so letting it reach a query
//! turns the caller's mistake into a database fault (a 503 "the database is unavailable").
//! One check here covers every path and query parameter of every route, present and future.
//! It is a route layer: routing still comes first, so an unknown path stays a 404.

use axum::extract::Request;
use axum::middleware::Next;
use axum::response::Response;
use percent_encoding::percent_decode_str;

use super::error::{ApiError, Dialect};

pub async fn refuse_control_characters(req: Request, next: Next) -> Response {
    let uri = req.uri();
    let part = if holds_control_character(uri.path()) {
        "path"
    } else if uri.query().is_some_and(holds_control_character) {
        "query string"
    } else {
        return next.run(req).await;
    };
    ApiError::bad_request(format!(
        "the {part} must not contain control characters (such as %00), encoded or not"
    ))
    .render(Dialect::of_path(uri.path()))
}

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
