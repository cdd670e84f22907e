//! Transfers in both generations (`POST /v1/transfer/mobile-money`, `POST
//! /v2/transfers/mobile-money`, and `POST /v1/transfers/mobile-money` through `either`): each
//! generation keeps the reference's own body and answer, and the steps between them are one.

use crate::api::dialect::TransferBody;
use axum::extract::State;
use axum::response::Response;

use super::auth::RecheckedCaller;
use super::dialect::Generation;
use super::error::{ApiError, Rejection};
use super::extract::{parse_json, JsonBody};
use crate::domain::Timestamp;
use crate::service::Payments;

pub async fn create<G: Generation>(
    State(payments): State<Payments>,
    RecheckedCaller(caller): RecheckedCaller,
    JsonBody(body): JsonBody<G::Transfer>,
) -> Result<Response, G::Error> {
    let request = body.request(&payments.config().operator_aliases)?;
    let result = payments.create_payment_as(&caller, request, Timestamp::now()).await;
    Ok(G::payment_answer(&payments, result)?)
}

/// A transfer whose bytes were already read (by the router of `/v1/transfers/mobile-money`).
pub async fn from_bytes<G: Generation>(
    payments: &Payments,
    caller: &RecheckedCaller,
    bytes: &[u8],
) -> Result<Response, Rejection> {
    let reject = |e: ApiError| Rejection(G::DIALECT, e);
    let body: G::Transfer = parse_json(bytes).map_err(reject)?;
    let request = body.request(&payments.config().operator_aliases).map_err(reject)?;
    let result = payments.create_payment_as(&caller.0, request, Timestamp::now()).await;
    Ok(G::payment_answer(payments, result).unwrap_or_else(|e| e.render(G::DIALECT)))
}
