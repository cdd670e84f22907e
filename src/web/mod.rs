//! The web pages, beside the API: the merchant dashboard (`dashboard/`, docs/dashboard.md).
//! HTML rendered on the server with maud, plain forms, no script; like the API it goes through
//! the use cases of `service`, never the store. (The payer's BETA page stays in the API,
//! `api::checkout`: DECISIONS has its errors answer in the v1 envelope.)
//!
//! Every answer is an HTML page, errors included, never the API's JSON envelope: the pages
//! have their own router, guard (`guard.rs`) and error pages. These routes are not API
//! operations: docs/openapi.yaml does not list them.

pub mod dashboard;
mod guard;

use axum::extract::DefaultBodyLimit;
use axum::Router;
use tower_http::catch_panic::CatchPanicLayer;

use crate::service::Gateway;

/// The pages: the dashboard under `/dashboard`.
pub fn router(gateway: Gateway) -> Router {
    let max_body = gateway.config().max_body_bytes;
    dashboard::routes()
        .layer(DefaultBodyLimit::max(max_body))
        .layer(CatchPanicLayer::custom(crate::http::panic_response))
        .layer(axum::middleware::from_fn_with_state(gateway.clone(), guard::middleware))
        .with_state(gateway)
}
