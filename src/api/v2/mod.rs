//! The v2 dialect: snake_case bodies and the `code_status` / `status` / `message` envelope.

pub mod envelope;
pub mod generation;
pub mod payments;
pub mod transactions;
pub mod wire;

use axum::routing::{get, post};
use axum::Router;

pub use self::generation::V2;

use super::error::dialect_error;
use super::invented;
use super::transfer;
use crate::service::Gateway;

/// Every v2 route.
pub fn routes() -> Router<Gateway> {
    Router::new()
        .route("/v2/collecte/mobile-money", post(payments::collect))
        .route("/v2/transfers/mobile-money", post(transfer::create::<V2>))
        .route("/v2/get-status-payment/{id}", get(transactions::status::<V2>))
        .merge(invented::routes::<V2>("/v2"))
}

dialect_error!(v2);
