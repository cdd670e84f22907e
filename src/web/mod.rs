//! The web pages, beside the API: the merchant dashboard (`dashboard/`, docs/dashboard.md) and
//! the payer's page of a payment link (`pay/`, docs/payment-links.md).
//! HTML rendered on the server with maud, plain forms, no script; like the API it goes through
//! the use cases of `service`, never the store. (The payer's BETA page stays in the API,
//! `api::checkout`: DECISIONS has its errors answer in the v1 envelope.)
//!
//! Every answer is an HTML page, errors included, never the API's JSON envelope: the pages
//! have their own router, guard (`guard.rs`) and error pages. These routes are not API
//! operations: docs/openapi.yaml does not list them.

mod csrf;
pub mod dashboard;
mod guard;
pub mod pay;

use axum::extract::DefaultBodyLimit;
use axum::Router;
use tower_http::catch_panic::CatchPanicLayer;

use crate::service::Gateway;

/// `12 500`: francs grouped by thousands with narrow no-break spaces, as French writes them.
pub(crate) fn grouped(amount: i64) -> String {
    let digits = amount.unsigned_abs().to_string();
    let mut grouped = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            grouped.push('\u{202f}');
        }
        grouped.push(c);
    }
    let sign = if amount < 0 { "-" } else { "" };
    format!("{sign}{grouped}")
}

/// The pages: the dashboard under `/dashboard`, payment links' payer pages under `/pay`.
pub fn router(gateway: Gateway) -> Router {
    let max_body = gateway.config().max_body_bytes;
    let upload_max_body = gateway.config().payouts.max_body_bytes.max(max_body);
    dashboard::routes()
        .merge(pay::routes())
        .layer(DefaultBodyLimit::max(max_body))
        .merge(dashboard::upload_routes().layer(DefaultBodyLimit::max(upload_max_body)))
        .layer(CatchPanicLayer::custom(crate::http::panic_response))
        .layer(axum::middleware::from_fn_with_state(gateway.clone(), guard::middleware))
        .with_state(gateway)
}
