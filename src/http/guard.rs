//! What the API's guard and the pages' guard share: running the handler within the request
//! timeout, telling what an answer already is, and counting the request in the metrics. Each guard renders a failure in its own
//! form (`api::guard`: the envelope; `web::guard`: a page).

use std::future::Future;
use std::time::{Duration, Instant};

use axum::extract::{MatchedPath, Request};
use axum::http::header::CONTENT_TYPE;
use axum::http::HeaderValue;
use axum::response::Response;

use crate::telemetry::metrics::Metrics;

/// What the request metrics count a request by, taken before the handler consumes the
/// request; its latency runs from here.
pub struct Observed {
    route: Option<String>,
    method: String,
    started: Instant,
}

impl Observed {
    pub fn of(req: &Request) -> Observed {
        Observed {
            route: req.extensions().get::<MatchedPath>().map(|p| p.as_str().to_owned()),
            method: req.method().as_str().to_owned(),
            started: Instant::now(),
        }
    }

    /// Counts the request with its answer's status and how long the answer took.
    pub fn record(self, metrics: &Metrics, response: &Response) {
        metrics.observe_request(
            self.route.as_deref().unwrap_or("unmatched"),
            &self.method,
            response.status().as_u16(),
            self.started.elapsed(),
        );
    }
}

/// Why the handler gave no answer of its own.
pub enum Cut {
    /// Its task ended without an answer (a panic the catch layer did not see).
    Ended,
    /// No answer within the limit.
    TimedOut(Duration),
}

/// The handler's answer, or `failed`'s once `limit` has passed. The handler runs as a task of
/// its own and is not cancelled then: a payment it was creating finishes as it would have (an
/// operator call is bounded by its own timeout), and its outcome reaches the merchant through a
/// lookup or a webhook. Cancelling it could cut an operator call after the operator received it.
pub async fn within<F>(limit: Duration, handler: F, id: &str, failed: impl FnOnce(Cut) -> Response) -> Response
where
    F: Future<Output = Response> + Send + 'static,
{
    match tokio::time::timeout(limit, tokio::spawn(handler)).await {
        Ok(Ok(response)) => response,
        Ok(Err(join)) => {
            tracing::error!(request_id = %id, error = %join, "handler task ended without an answer");
            failed(Cut::Ended)
        }
        Err(_) => {
            tracing::warn!(request_id = %id, limit_ms = limit.as_millis() as u64, "request timed out");
            let mut response = failed(Cut::TimedOut(limit));
            // The request's body may still be on its way: closing ends it, and the handler
            // reading it, instead of leaving the connection to the idle timeout.
            response
                .headers_mut()
                .insert(axum::http::header::CONNECTION, HeaderValue::from_static("close"));
            response
        }
    }
}

fn content_type_starts(response: &Response, prefix: &str) -> bool {
    response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with(prefix))
}

/// A JSON answer (an envelope).
pub fn is_json(response: &Response) -> bool {
    content_type_starts(response, "application/json")
}

/// A page written on purpose, which keeps its HTML.
pub fn is_html(response: &Response) -> bool {
    content_type_starts(response, "text/html")
}
