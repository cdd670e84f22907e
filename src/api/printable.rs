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

use super::error::{ApiError, Dialect, ErrorKind};
use crate::http::printable::holds_control_character;

pub async fn refuse_control_characters(req: Request, next: Next) -> Response {
    let uri = req.uri();
    let dialect = Dialect::of(req.extensions());
    if holds_control_character(uri.path()) {
        // DECISIONS: an unknown id, malformed or not, is 404; the reason says why nothing can match.
        let kind = match dialect {
            Dialect::V1 => ErrorKind::NotFound,
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
