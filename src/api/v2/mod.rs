//! The v2 dialect: snake_case bodies and the `code_status` / `status` / `message` envelope.

pub mod envelope;
pub mod generation;
pub mod payments;
pub mod transactions;
pub mod wire;

use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;

pub use self::generation::V2;

use super::error::ApiError;
use super::{links, recipients, refunds};
use crate::service::{Gateway, ServiceError};

/// Every v2 route.
pub fn routes() -> Router<Gateway> {
    Router::new()
        .route("/v2/collecte/mobile-money", post(payments::collect))
        .route("/v2/transfers/mobile-money", post(payments::transfer))
        .route("/v2/refunds", post(refunds::create::<V2>))
        .route("/v2/account-holders/lookups", get(recipients::lookups::<V2>))
        .route("/v2/account-holders/{operator}/{phone}", get(recipients::show::<V2>))
        .route("/v2/payment-links", post(links::create::<V2>).get(links::list::<V2>))
        .route("/v2/payment-links/{id}", get(links::fetch::<V2>))
        .route("/v2/payment-links/{id}/deactivate", post(links::deactivate::<V2>))
        .route("/v2/get-status-payment/{id}", get(transactions::status))
}

/// An error answered in the v2 envelope.
#[derive(Debug)]
pub struct Error(pub ApiError);

impl IntoResponse for Error {
    fn into_response(self) -> Response {
        envelope::error(self.0)
    }
}

impl From<ApiError> for Error {
    fn from(e: ApiError) -> Self {
        Error(e)
    }
}

impl From<ServiceError> for Error {
    fn from(e: ServiceError) -> Self {
        Error(e.into())
    }
}
