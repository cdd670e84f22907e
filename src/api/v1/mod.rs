//! The v1 dialect: camelCase bodies and the `statusCode` / `message` / `reason` envelope.

pub mod auth;
pub mod customers;
pub mod envelope;
pub mod generation;
pub mod payments;
pub mod report_views;
pub mod reports;
pub mod transactions;
pub mod webhooks;
pub mod wire;

use axum::routing::{get, post};
use axum::Router;

pub use self::generation::V1;

use super::error::dialect_error;
use super::error::Rejection;
use super::invented;
use super::transfer;
use crate::service::Gateway;

/// Every v1 route, with its path variants, but for those answered in either generation
/// (`super::either`).
pub fn routes() -> Router<Gateway> {
    Router::new()
        .route("/v1/auth", post(auth::create_token))
        .route("/v1/customer", post(customers::create))
        .route("/v1/customers/create", post(customers::create))
        .route("/v1/customer/{id}", get(customers::fetch))
        .route("/v1/customers/fetch-data/{id}", get(customers::fetch))
        .route("/v1/customers", get(customers::list))
        .route("/v1/collecte/mobile-money", post(payments::collect))
        .route("/v1/collecte/card/create", post(payments::card_not_offered))
        .route("/v1/transfer/mobile-money", post(transfer::create::<V1>))
        .route("/v1/transactions", get(transactions::list))
        .route("/v1/get-all-transactions", get(transactions::list))
        .route("/v1/balance", get(transactions::balance))
        .route("/v1/ledger/entries", get(reports::statement))
        .route("/v1/reports/settlement", get(reports::settlement))
        .route("/v1/webhooks/events", get(webhooks::list))
        .route("/v1/webhooks/events/{id}", get(webhooks::show))
        .route("/v1/webhooks/events/{id}/redeliver", post(webhooks::redeliver))
        .route("/v1/webhooks/redeliver", post(webhooks::redeliver_range))
        .route("/v1/webhooks/secret/rotate", post(webhooks::rotate_secret))
        .merge(invented::routes::<V1>("/v1"))
}

dialect_error!(v1);

impl From<Rejection> for Error {
    fn from(r: Rejection) -> Self {
        Error(r.1)
    }
}
