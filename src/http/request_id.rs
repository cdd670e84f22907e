//! The request's identity and its log lines, on tower-http's `request-id` and `trace` layers
//! (the stack is `http::request_layers`): the caller's `X-Request-Id` or `traceparent` when valid
//! (`trace_context.rs`), else an id of ours; echoed on the answer; one span per request with
//! its method, route, request id and trace id, and one `request served` line with its status
//! and latency.
//!
//! What the layers do not do stays in the guards (`api::guard`, `web::guard`), which reads the id the layers set (the
//! [`RequestId`] extension): the request timeout, the envelope of answers made outside our
//! handlers, the request metrics, and [`current`] for an error's reason.

use std::time::Duration;

use axum::extract::{MatchedPath, Request};
use axum::http::header::HeaderName;
use axum::http::HeaderValue;
use tower_http::request_id::{MakeRequestId, RequestId};
use tower_http::trace::{MakeSpan, OnResponse};
use tracing::Span;

use super::trace_context::Incoming;
use crate::telemetry::traces;

/// The header a caller's trace context comes in, echoed when valid.
pub const TRACEPARENT: HeaderName = HeaderName::from_static("traceparent");

tokio::task_local! {
    pub static REQUEST_ID: String;
}

/// The id of the request being served, or `-` outside one.
pub fn current() -> String {
    REQUEST_ID.try_with(|id| id.clone()).unwrap_or_else(|_| "-".to_owned())
}

/// The id the layers gave `req`, or `-` when it went around them.
pub fn of<B>(req: &axum::http::Request<B>) -> String {
    req.extensions()
        .get::<RequestId>()
        .and_then(|id| id.header_value().to_str().ok())
        .unwrap_or("-")
        .to_owned()
}

/// Removes an `X-Request-Id` or `traceparent` that is not valid, before the layers read them:
/// `SetRequestIdLayer` keeps any `X-Request-Id` it finds, and `PropagateHeaderLayer` echoes
/// any `traceparent`. An invalid value is ignored rather than refused: a header a proxy added
/// must not fail a payment.
pub fn ignore_invalid(mut req: Request) -> Request {
    let incoming = Incoming::from_headers(req.headers());
    if incoming.request_id.is_none() {
        req.headers_mut().remove("x-request-id");
    }
    if incoming.traceparent.is_none() {
        req.headers_mut().remove(TRACEPARENT);
    }
    req
}

/// The id of a request that came without a (valid) `X-Request-Id`: the trace id of its valid
/// `traceparent`, so our logs join the caller's trace, else 32 hex digits of our own.
#[derive(Debug, Clone, Copy)]
pub struct TraceIdOrOurs;

impl MakeRequestId for TraceIdOrOurs {
    fn make_request_id<B>(&mut self, req: &axum::http::Request<B>) -> Option<RequestId> {
        let id = Incoming::from_headers(req.headers()).request_id(|| uuid::Uuid::new_v4().simple().to_string());
        HeaderValue::from_str(&id).ok().map(RequestId::new)
    }
}

/// The span every log line of a request is written in. `merchant` is recorded once the
/// caller is authenticated (`auth.rs`).
#[derive(Debug, Clone, Copy)]
pub struct RequestSpan;

impl<B> MakeSpan<B> for RequestSpan {
    fn make_span(&mut self, req: &axum::http::Request<B>) -> Span {
        let route = req.extensions().get::<MatchedPath>().map(MatchedPath::as_str);
        let incoming = Incoming::from_headers(req.headers());
        let span = tracing::info_span!(
            "request",
            request_id = %of(req),
            method = %req.method(),
            // A path no route matched is not exported as it came: it may carry anything.
            route = route.unwrap_or(if traces::enabled() { "unmatched" } else { req.uri().path() }),
            merchant = tracing::field::Empty,
            trace_id = incoming.trace_id.as_deref(),
        );
        traces::continue_trace(&span, incoming.traceparent.as_deref());
        span
    }
}

/// One line per request, in its span, once its answer is ready.
#[derive(Debug, Clone, Copy)]
pub struct RequestServed;

impl<B> OnResponse<B> for RequestServed {
    fn on_response(self, response: &axum::http::Response<B>, latency: Duration, span: &Span) {
        traces::record_status(span, response.status().as_u16());
        tracing::info!(
            status = response.status().as_u16(),
            latency_ms = latency.as_secs_f64() * 1000.0,
            "request served"
        );
    }
}
