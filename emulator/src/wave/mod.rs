//! `wave-checkout`: Wave's Checkout API (hosted sessions the payer completes in the Wave app,
//! reached through `wave_launch_url`, and refunded in full), Payout API (send to a mobile number, idempotent by the
//! `idempotency-key` header) and webhooks, as docs.wave.com describes them. One API key in
//! `Authorization: Bearer`; errors carry `{code, message}`. Payouts are found again by
//! `client_reference` (`GET /v1/payouts/search`), as sessions are.

mod auth;
mod checkout;
mod launch;
mod payout;
mod refund;
pub mod signature;
pub mod webhook;
pub mod wire;

use axum::http::HeaderMap;
use axum::response::Response;
use axum::routing::{get, post};
use axum::Router;

use super::guard::{Guard, Protocol, Refusal};
use super::listener::Connection;
use super::Ctx;

pub use checkout::view as session_view;
pub use payout::view as payout_view;
pub use refund::view as refund_view;

/// The routes of the API and of the payer's launch page.
pub fn routes() -> Router<Ctx> {
    Router::new()
        .route("/v1/checkout/sessions", post(checkout::create))
        .route("/v1/checkout/sessions/search", get(checkout::search))
        .route("/v1/checkout/sessions/{id}", get(checkout::get))
        .route("/v1/checkout/sessions/{id}/expire", post(checkout::expire))
        .route("/v1/checkout/sessions/{id}/refund", post(refund::refund))
        .route("/v1/payout", post(payout::create))
        .route("/v1/payout/{id}", get(payout::get))
        .route("/v1/payouts/search", get(payout::search))
        .route("/c/{id}", get(launch::page))
        .route("/c/{id}/approve", post(launch::approve))
        .route("/c/{id}/decline", post(launch::decline))
}

/// Runs `act` on the request behind the guard of `point`.
async fn guarded(
    ctx: &Ctx,
    point: &str,
    headers: &HeaderMap,
    conn: Connection,
    act: impl FnOnce(&Guard) -> Result<Response, Refusal>,
) -> Response {
    let guard = match Guard::enter(ctx, point, headers, conn, Protocol::Wave).await {
        Ok(guard) => guard,
        Err(refusal) => return refusal,
    };
    if let Some(refusal) = guard.refusal() {
        return refusal;
    }
    let answer = auth::authorize(ctx, headers)
        .and_then(|()| act(&guard))
        .unwrap_or_else(|refusal| *refusal);
    guard.leave(answer).await
}
