//! The HTTP layer: two wire dialects (v1 camelCase, v2 snake_case) over one set of use cases.
//!
//! Routing comes before authentication, and every answer, errors included, is the JSON
//! envelope of the generation named by the path prefix.

pub mod auth;
pub mod checkout;
pub mod client_address;
pub mod dashboard;
pub mod dialect;
pub mod either;
pub mod error;
pub mod extract;
pub mod fields;
pub mod health;
pub mod operator_callbacks;
pub mod pagination;
pub mod payment_failure;
pub mod printable;
#[cfg(test)]
mod properties;
pub mod request_id;
pub mod trace_context;
pub mod v1;
pub mod v2;

use std::any::Any;

use axum::extract::{DefaultBodyLimit, Request};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use tower_http::catch_panic::CatchPanicLayer;

use self::error::{ApiError, Dialect, ErrorKind};
use crate::service::Gateway;

/// The whole HTTP surface of the gateway.
pub fn router(gateway: Gateway) -> Router {
    let max_body = gateway.config().max_body_bytes;
    Router::new()
        .route("/health", get(health::alive))
        .route("/ready", get(health::ready))
        .route("/metrics", get(health::metrics))
        .route("/openapi.yaml", get(openapi))
        .route(
            "/operator-callbacks/{operator}/{environment}",
            axum::routing::post(operator_callbacks::receive).put(operator_callbacks::receive),
        )
        .route("/checkout/{token}", get(checkout::show))
        .route("/checkout/{token}/approve", axum::routing::post(checkout::approve))
        .route("/checkout/{token}/decline", axum::routing::post(checkout::decline))
        .route("/v1/transfers/mobile-money", axum::routing::post(either::transfer))
        .route("/v1/get-status-payment/{id}", get(either::status))
        .route("/v1/transaction/{id}", get(either::status))
        .merge(v1::routes())
        .merge(dashboard::routes())
        .merge(v2::routes())
        // Only on matched routes, so routing comes first; before every extractor and handler.
        .route_layer(axum::middleware::from_fn(printable::refuse_control_characters))
        .fallback(unknown_route)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(DefaultBodyLimit::max(max_body))
        .layer(CatchPanicLayer::custom(panic_response))
        .layer(axum::middleware::from_fn_with_state(
            gateway.clone(),
            request_id::middleware,
        ))
        .with_state(gateway)
}

/// The OpenAPI document, compiled in so it always matches the binary.
async fn openapi() -> Response {
    (
        [(axum::http::header::CONTENT_TYPE, "application/yaml")],
        include_str!("../../docs/openapi.yaml"),
    )
        .into_response()
}

async fn unknown_route(req: Request) -> Response {
    let reason = format!("no route for {} {}", req.method(), req.uri().path());
    ApiError::new(ErrorKind::NotFound, reason).render(Dialect::of_path(req.uri().path()))
}

async fn method_not_allowed(req: Request) -> Response {
    let reason = format!("{} does not accept {}", req.uri().path(), req.method());
    ApiError::new(ErrorKind::MethodNotAllowed, reason).render(Dialect::of_path(req.uri().path()))
}

/// A panic is a bug: log it and answer a bare 500, which the request middleware turns into the
/// envelope with the request id.
fn panic_response(panic: Box<dyn Any + Send + 'static>) -> Response {
    let message = panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".to_owned());
    tracing::error!(request_id = %request_id::current(), panic = %message, "handler panicked");
    StatusCode::INTERNAL_SERVER_ERROR.into_response()
}
