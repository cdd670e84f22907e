//! Liveness and readiness, for load balancers and orchestrators.

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use serde_json::json;

use super::error::{ApiError, ErrorKind};
use super::v1::envelope;
use crate::service::Gateway;

/// The process is up and serving.
pub async fn alive() -> Response {
    envelope::success(StatusCode::OK, json!({ "status": "alive" }))
}

/// The database answers, so requests can be served.
pub async fn ready(State(gateway): State<Gateway>) -> Response {
    match gateway.store.ping().await {
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
