//! What every API request goes through inside the request-id and trace layers
//! (`http::request_layers`): its dialect, read from the path here and nowhere else
//! ([`Dialect::of_path`], kept in the request for every extractor and handler after it), the
//! request timeout, the guarantee that every error answer is a JSON envelope, even one produced
//! outside our handlers (a panic, a framework rejection), with the request id in a 500's
//! reason, and the request metrics. The id is the one the layers set.

use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::Response;
use tracing::Instrument;

use super::error::{ApiError, Dialect, ErrorKind};
use crate::http::guard::{is_html, is_json, within, Cut, Observed};
use crate::http::request_id::{self, REQUEST_ID};
use crate::service::Gateway;

pub async fn middleware(State(gateway): State<Gateway>, mut req: Request, next: Next) -> Response {
    let id = request_id::of(&req);
    let dialect = Dialect::of_path(req.uri().path());
    req.extensions_mut().insert(dialect);
    let observed = Observed::of(&req);
    // In the request's span (the trace layer's), which the spawned task would otherwise lose.
    let handler = REQUEST_ID.scope(id.clone(), next.run(req)).in_current_span();
    let limit = gateway.config().http.request_timeout;
    let mut response = within(limit, handler, &id, |cut| cut_short(cut, &id).render(dialect)).await;
    if needs_envelope(&response) {
        let kind = ErrorKind::from_status(response.status());
        let reason = match kind {
            ErrorKind::Internal => format!("internal error; quote request id {id} when reporting it"),
            ErrorKind::MethodNotAllowed => "this path does not accept that method".to_owned(),
            // A handler that answered these gave its own reason; one that reached here without
            // an envelope gets its status's name.
            ErrorKind::BadRequest
            | ErrorKind::UnsupportedOperator
            | ErrorKind::TransactionIdTooLong
            | ErrorKind::Unauthorized
            | ErrorKind::AmountOutOfRange
            | ErrorKind::NotFound
            | ErrorKind::TransactionNotFound
            | ErrorKind::Duplicate
            | ErrorKind::IdempotencyKeyInUse
            | ErrorKind::IdempotencyKeyReused
            | ErrorKind::InsufficientBalance
            | ErrorKind::NotOffered
            | ErrorKind::NotRefundable
            | ErrorKind::LinkClosed
            | ErrorKind::RecipientInactive
            | ErrorKind::RecipientCheckOff
            | ErrorKind::LinkInvalid
            | ErrorKind::BatchRefused
            | ErrorKind::PayloadTooLarge
            | ErrorKind::UnsupportedMediaType
            | ErrorKind::TooManyRequests
            | ErrorKind::Unavailable
            | ErrorKind::OperatorUnavailable
            | ErrorKind::PaymentFailed => response.status().canonical_reason().unwrap_or("error").to_owned(),
        };
        response = ApiError::new(kind, reason).render(dialect);
    }
    observed.record(gateway.metrics(), &response);
    response
}

/// The error a handler cut short answers.
fn cut_short(cut: Cut, id: &str) -> ApiError {
    match cut {
        Cut::Ended => ApiError::new(
            ErrorKind::Internal,
            format!("internal error; quote request id {id} when reporting it"),
        ),
        Cut::TimedOut(limit) => {
            let mut e = ApiError::new(
                ErrorKind::Unavailable,
                format!(
                    "no answer within {} ms (MOMO_HTTP_REQUEST_TIMEOUT_MS); the request may still complete: \
                     look a payment up by its transaction id before sending it again (request id {id})",
                    limit.as_millis()
                ),
            );
            e.retry_after = Some(1);
            e
        }
    }
}

/// An error answer that is not already JSON (axum's plain-text rejections, a caught panic).
fn needs_envelope(response: &Response) -> bool {
    response.status().as_u16() >= 400 && !is_json(response) && !is_html(response)
}
