//! The merchant dashboard (`/dashboard`, docs/dashboard.md), one of the web pages (`web`).
//!
//! Every answer is an HTML page, errors included (404, 403, 401, 429, 503); a request without a
//! valid session is sent (303) to the sign-in page.

mod api_keys;
mod customers;
pub(in crate::web) mod i18n;
pub(in crate::web) mod layout;
mod links;
mod login;
mod overview;
mod pager;
mod payouts;
mod refund;
pub mod session;
mod transaction;
mod transactions;
mod webhooks;

use axum::extract::State;
use axum::response::Response;
use axum::routing::{get, post};
use axum::Router;

use crate::service::Gateway;

/// The dashboard's routes, all under `/dashboard`.
pub fn routes() -> Router<Gateway> {
    Router::new()
        .route("/dashboard", get(overview::show))
        .route("/dashboard/", get(overview::show))
        .route("/dashboard/login", get(login::show).post(login::submit))
        .route("/dashboard/logout", post(login::logout))
        .route("/dashboard/transactions", get(transactions::list))
        .route("/dashboard/transactions.csv", get(transactions::export))
        .route("/dashboard/transactions/{id}", get(transaction::show))
        .route("/dashboard/transactions/{id}/resend-webhook", post(transaction::resend))
        .route("/dashboard/transactions/{id}/refund", post(refund::submit))
        .route("/dashboard/customers", get(customers::list))
        .route("/dashboard/customers/{id}", get(customers::show))
        .route("/dashboard/links", get(links::list::list).post(links::form::create))
        .route("/dashboard/links/new", get(links::form::new))
        .route("/dashboard/links/{id}", get(links::page::show))
        .route("/dashboard/links/{id}/deactivate", post(links::page::deactivate))
        .route("/dashboard/payouts", get(payouts::list::list))
        .route("/dashboard/payouts/{id}", get(payouts::page::show))
        .route("/dashboard/webhooks", get(webhooks::show))
        .route("/dashboard/webhooks/url", post(webhooks::set_url))
        .route("/dashboard/webhooks/test", post(webhooks::send_test))
        .route("/dashboard/webhooks/rotate-secret", post(webhooks::rotate_secret))
        .route("/dashboard/api-keys", get(api_keys::show))
        .route("/dashboard/api-keys/rotate", post(api_keys::rotate))
        .route(
            "/dashboard/api-keys/recipient-check",
            post(api_keys::switch_recipient_check),
        )
        .route("/dashboard/{*rest}", get(not_found).post(not_found))
}

/// The routes that take a payout batch's file: up to `MOMO_PAYOUT_BATCH_MAX_BODY_BYTES`, where
/// every other form is bounded by `MOMO_MAX_BODY_BYTES`.
pub fn upload_routes() -> Router<Gateway> {
    Router::new()
        .route("/dashboard/payouts", post(payouts::page::create))
        .route("/dashboard/payouts/preview", post(payouts::preview::preview))
}

/// Any other address under `/dashboard`: the HTML 404 page, once signed in (before, like
/// every page, the sign-in page).
async fn not_found(State(_): State<Gateway>, ctx: session::Ctx) -> Response {
    layout::not_found(ctx.lang())
}

pub use layout::bare_error;
