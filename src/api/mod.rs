//! The HTTP layer: two wire dialects (v1 camelCase, v2 snake_case) over one set of use cases.
//!
//! Routing comes before authentication, and every answer, errors included, is the JSON
//! envelope of the generation named by the path prefix: the guard (`guard.rs`) reads it from
//! the path once and every extractor and handler after it reads it from the request.

pub mod auth;
pub mod cased;
pub mod checkout;
pub mod csv;
pub mod dialect;
pub mod either;
pub mod error;
pub mod extract;
pub mod fields;
pub mod guard;
pub mod health;
pub mod idempotency;
pub mod invented;
pub mod links;
pub mod operator_callbacks;
pub mod pagination;
pub mod payment_failure;
pub mod payouts;
pub mod printable;
#[cfg(test)]
mod properties;
pub mod recipients;
pub mod refunds;
pub mod transfer;
pub mod v1;
pub mod v2;

use axum::extract::{DefaultBodyLimit, Request};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use tower_http::catch_panic::CatchPanicLayer;

use self::error::{ApiError, Dialect, ErrorKind};
use self::v1::V1;
use self::v2::V2;
use crate::service::Gateway;

/// The API: both dialects and the paths beside them (health, metrics, the OpenAPI document,
/// operator callbacks, and the payer's BETA page, whose errors answer in the v1 envelope as
/// DECISIONS has every answer outside both prefixes do). `app` serves it beside the web pages (`web::router`), inside the
/// request-id and trace layers they share (`http::request_layers`).
pub fn router(gateway: Gateway) -> Router {
    let max_body = gateway.config().max_body_bytes;
    let batch_max_body = gateway.config().payouts.max_body_bytes.max(max_body);
    let routes = Router::new()
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
        .route("/v1/get-status-payment/{id}", get(v2::transactions::status::<V1>))
        .route("/v1/transaction/{id}", get(v2::transactions::status::<V1>))
        .merge(v1::routes())
        .merge(v2::routes());
    // A batch of thousands of transfers is a larger body than any other request's: its routes
    // get their own limit, with the same layers.
    let batches = invented::batch_routes::<V1>("/v1").merge(invented::batch_routes::<V2>("/v2"));
    with_request_layers(routes, &gateway)
        .layer(DefaultBodyLimit::max(max_body))
        .merge(with_request_layers(batches, &gateway).layer(DefaultBodyLimit::max(batch_max_body)))
        .fallback(unknown_route)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(CatchPanicLayer::custom(crate::http::panic_response))
        // Outermost of the API's own: the request's dialect, its timeout, the envelope of
        // every error answer, the request metrics.
        .layer(axum::middleware::from_fn_with_state(gateway.clone(), guard::middleware))
        .with_state(gateway)
}

/// The layers of every matched route: `Idempotency-Key`, inside the control-character check
/// (so a key is never claimed for a request it refuses), which comes after routing and before
/// every extractor and handler.
fn with_request_layers(routes: Router<Gateway>, gateway: &Gateway) -> Router<Gateway> {
    routes
        .route_layer(axum::middleware::from_fn_with_state(
            gateway.clone(),
            idempotency::layer,
        ))
        .route_layer(axum::middleware::from_fn(printable::refuse_control_characters))
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
    ApiError::new(ErrorKind::NotFound, reason).render(Dialect::of(req.extensions()))
}

async fn method_not_allowed(req: Request) -> Response {
    let reason = format!("{} does not accept {}", req.uri().path(), req.method());
    ApiError::new(ErrorKind::MethodNotAllowed, reason).render(Dialect::of(req.extensions()))
}
