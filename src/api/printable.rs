//! Answers, before any handler runs, a request whose path or query string holds a control
//! character once percent-decoded: a path (`/v1/transaction/%00`) names nothing, 404 as
//! DECISIONS has every unknown id, malformed or not; a query string (`?transactionId=%00`) is
//! a 400.
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

use super::error::{ApiError, Dialect, ErrorKind};

pub async fn refuse_control_characters(req: Request, next: Next) -> Response {
    let uri = req.uri();
    let dialect = Dialect::of_path(uri.path());
    if holds_control_character(uri.path()) {
        // DECISIONS: an unknown id, malformed or not, is 404; the reason says why nothing can match.
        let kind = match dialect {
            Dialect::V1 | Dialect::Dashboard => ErrorKind::NotFound,
            Dialect::V2 => ErrorKind::TransactionNotFound,
        };
        return ApiError::new(
            kind,
            "nothing has this id: ids never contain control characters (such as %00), encoded or not",
        )
        .render(dialect);
    }
    if uri.query().is_some_and(holds_control_character) {
        return ApiError::bad_request(
            "the query string must not contain control characters (such as %00), encoded or not",
        )
        .render(dialect);
    }
    next.run(req).await
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
