//! Liveness and readiness, for load balancers and orchestrators.

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::json;

use super::error::{ApiError, ErrorKind};
use super::v1::envelope;
use crate::service::Gateway;

/// The process is up and serving.
pub async fn alive() -> Response {
    envelope::success(StatusCode::OK, json!({ "status": "alive" }))
}

/// Prometheus metrics: this process's counters and the database's gauges, in OpenMetrics
/// text for a scraper that asks for it (Prometheus does), else in the classic text format.
/// It answers while the database does not, with `momo_database_up 0` and without the
/// database's gauges: the process's own series are what an outage is diagnosed from.
///
/// With `MOMO_METRICS_TOKEN` set, a scrape without that bearer token is 401 in the v1 envelope,
/// before anything is read; without it, so is every scrape of a gateway that serves Production,
/// unless `MOMO_METRICS_PUBLIC=true`.
pub async fn metrics(State(gateway): State<Gateway>, headers: axum::http::HeaderMap) -> Response {
    use crate::telemetry::metrics::{OPENMETRICS, PROMETHEUS_TEXT};
    if !gateway.metrics_reader_allowed(super::auth::bearer_token(&headers)) {
        gateway.metrics().auth_failure("metrics");
        let reason = if gateway.metrics_closed() {
            "/metrics is closed: this gateway serves Production, whose figures describe real merchants' business; \
             set MOMO_METRICS_TOKEN and scrape with Authorization: Bearer <token> (or MOMO_METRICS_PUBLIC=true to serve it to anyone)"
        } else {
            "/metrics requires the bearer token of MOMO_METRICS_TOKEN: send Authorization: Bearer <token>"
        };
        let mut refused = envelope::error(ApiError::new(ErrorKind::Unauthorized, reason));
        refused.headers_mut().insert(
            axum::http::header::WWW_AUTHENTICATE,
            axum::http::HeaderValue::from_static("Bearer realm=\"metrics\""),
        );
        return refused;
    }
    let openmetrics = headers
        .get_all(axum::http::header::ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .any(|v| v.contains("application/openmetrics-text"));
    let gauges = gateway.gauges(crate::domain::Timestamp::now()).await;
    let text = gateway.metrics().render_as(&gauges, openmetrics);
    let content_type = if openmetrics { OPENMETRICS } else { PROMETHEUS_TEXT };
    ([(axum::http::header::CONTENT_TYPE, content_type)], text).into_response()
}

/// The database answers, so requests can be served.
pub async fn ready(State(gateway): State<Gateway>) -> Response {
    match gateway.ping().await {
        Ok(()) => envelope::success(StatusCode::OK, json!({ "status": "ready" })),
        Err(e) => {
            tracing::warn!(cause = %e, "readiness check failed");
            envelope::error(ApiError::new(
                ErrorKind::OperatorUnavailable,
                "the database is not reachable",
            ))
        }
    }
}
