//! Per-request plumbing: a request id on every answer and in every log line of the request
//! (the caller's `X-Request-Id` or `traceparent` when valid, `trace_context.rs`),
//! one log line per request, the request timeout, and the guarantee that every error answer is
//! a JSON envelope, even one produced outside our handlers (a panic, a framework rejection).

use std::time::{Duration, Instant};

use axum::extract::{MatchedPath, Request, State};
use axum::http::header::CONTENT_TYPE;
use axum::http::HeaderValue;
use axum::middleware::Next;
use axum::response::Response;
use tracing::Instrument;

use super::error::{ApiError, Dialect, ErrorKind};
use super::trace_context::Incoming;
use crate::service::Gateway;

tokio::task_local! {
    static REQUEST_ID: String;
}

/// The id of the request being served, or `-` outside one.
pub fn current() -> String {
    REQUEST_ID.try_with(|id| id.clone()).unwrap_or_else(|_| "-".to_owned())
}

pub async fn middleware(State(gateway): State<Gateway>, req: Request, next: Next) -> Response {
    let incoming = Incoming::from_headers(req.headers());
    let id = incoming.request_id(|| uuid::Uuid::new_v4().simple().to_string());
    let dialect = Dialect::of_path(req.uri().path());
    let is_dashboard = req.uri().path() == "/dashboard" || req.uri().path().starts_with("/dashboard/");
    let route = req.extensions().get::<MatchedPath>().map(|p| p.as_str().to_owned());
    let method = req.method().as_str().to_owned();
    let span = tracing::info_span!(
        "request",
        request_id = %id,
        method = %req.method(),
        route = route.as_deref().unwrap_or(req.uri().path()),
        merchant = tracing::field::Empty,
        trace_id = incoming.trace_id.as_deref(),
    );
    let started = Instant::now();
    let handler = REQUEST_ID.scope(id.clone(), next.run(req)).instrument(span.clone());
    let limit = gateway.config().http.request_timeout;
    let mut response = within(limit, handler, dialect, &id).await;
    if is_dashboard && response.status().as_u16() >= 400 && !is_html(&response) {
        // The dashboard answers HTML pages, its errors too: a panic's bare 500, a timeout's or
        // a refused method's envelope become its error page.
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
    if let Ok(value) = HeaderValue::from_str(&id) {
        response.headers_mut().insert("x-request-id", value);
    }
    if let Some(value) = incoming
        .traceparent
        .as_deref()
        .and_then(|t| HeaderValue::from_str(t).ok())
    {
        response.headers_mut().insert("traceparent", value);
    }
    gateway.metrics().observe_request(
        route.as_deref().unwrap_or("unmatched"),
        &method,
        response.status().as_u16(),
        started.elapsed(),
    );
    span.in_scope(|| {
        tracing::info!(
            status = response.status().as_u16(),
            latency_ms = started.elapsed().as_secs_f64() * 1000.0,
            "request served"
        )
    });
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
