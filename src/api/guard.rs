//! What every request goes through inside tower-http's request-id and trace layers
//! (`request_id.rs`): the request timeout, the guarantee that every error answer is a JSON
//! envelope, even one produced outside our handlers (a panic, a framework rejection), with the
//! request id in a 500's reason (under `/dashboard`, an HTML page instead: `Dialect::Dashboard`),
//! and the request metrics. The id is the one the layers set.

use std::time::{Duration, Instant};

use axum::extract::{MatchedPath, Request, State};
use axum::http::header::CONTENT_TYPE;
use axum::http::HeaderValue;
use axum::middleware::Next;
use axum::response::Response;
use tracing::Instrument;

use super::error::{ApiError, Dialect, ErrorKind};
use super::request_id::{self, REQUEST_ID};
use crate::service::Gateway;

pub async fn middleware(State(gateway): State<Gateway>, req: Request, next: Next) -> Response {
    let id = request_id::of(&req);
    let dialect = Dialect::of_path(req.uri().path());
    let route = req.extensions().get::<MatchedPath>().map(|p| p.as_str().to_owned());
    let method = req.method().as_str().to_owned();
    let started = Instant::now();
    // In the request's span (the trace layer's), which the spawned task would otherwise lose.
    let handler = REQUEST_ID.scope(id.clone(), next.run(req)).in_current_span();
    let limit = gateway.config().http.request_timeout;
    let mut response = within(limit, handler, dialect, &id).await;
    if dialect == Dialect::Dashboard && response.status().as_u16() >= 400 && !is_html(&response) {
        // The dashboard answers HTML pages, its errors too: a panic's bare 500, or a JSON
        // answer some layer wrote, becomes its error page.
        let connection = response.headers().get(axum::http::header::CONNECTION).cloned();
        response = super::dashboard::bare_error(response.status());
        if let Some(value) = connection {
            response.headers_mut().insert(axum::http::header::CONNECTION, value);
        }
    } else if needs_envelope(&response) {
        let kind = ErrorKind::from_status(response.status());
        let reason = match kind {
            ErrorKind::Internal => format!("internal error; quote request id {id} when reporting it"),
            ErrorKind::MethodNotAllowed => "this path does not accept that method".to_owned(),
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
            | ErrorKind::PayloadTooLarge
            | ErrorKind::UnsupportedMediaType
            | ErrorKind::TooManyRequests
            | ErrorKind::Unavailable
            | ErrorKind::OperatorUnavailable
            | ErrorKind::PaymentFailed => response.status().canonical_reason().unwrap_or("error").to_owned(),
        };
        response = ApiError::new(kind, reason).render(dialect);
    }
    gateway.metrics().observe_request(
        route.as_deref().unwrap_or("unmatched"),
        &method,
        response.status().as_u16(),
        started.elapsed(),
    );
    response
}

/// The handler's answer, or a 503 in the envelope once `limit` has passed. The handler runs as
/// a task of its own and is not cancelled then: a payment it was creating finishes as it would
/// have (an operator call is bounded by its own timeout), and its outcome reaches the merchant
/// through a lookup or a webhook. Cancelling it could cut an operator call after the operator
/// received it.
async fn within<F>(limit: Duration, handler: F, dialect: Dialect, id: &str) -> Response
where
    F: std::future::Future<Output = Response> + Send + 'static,
{
    match tokio::time::timeout(limit, tokio::spawn(handler)).await {
        Ok(Ok(response)) => response,
        Ok(Err(join)) => {
            tracing::error!(request_id = %id, error = %join, "handler task ended without an answer");
            ApiError::new(
                ErrorKind::Internal,
                format!("internal error; quote request id {id} when reporting it"),
            )
            .render(dialect)
        }
        Err(_) => {
            tracing::warn!(request_id = %id, limit_ms = limit.as_millis() as u64, "request timed out");
            let mut e = ApiError::new(
                ErrorKind::Unavailable,
                format!(
                    "no answer within {} ms (MOMO_HTTP_REQUEST_TIMEOUT_MS); the request may still complete: \
                     look a payment up by its transaction id before sending it again (request id {id})",
                    limit.as_millis()
                ),
            );
            e.retry_after = Some(1);
            let mut response = e.render(dialect);
            // The request's body may still be on its way: closing ends it, and the handler
            // reading it, instead of leaving the connection to the idle timeout.
            response
                .headers_mut()
                .insert(axum::http::header::CONNECTION, HeaderValue::from_static("close"));
            response
        }
    }
}

/// An error answer that is not already JSON (axum's plain-text rejections, a caught panic).
fn needs_envelope(response: &Response) -> bool {
    let is_json = response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(|v| v.starts_with("application/json"))
        .unwrap_or(false);
    response.status().as_u16() >= 400 && !is_json && !is_html(response)
}

/// A page written on purpose (the dashboard's), which keeps its HTML.
fn is_html(response: &Response) -> bool {
    response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/html"))
}
