//! `momo-openapi`: MTN's MoMo Open API as its developer documentation describes it. Two products
//! with their own credentials, collection (request to pay) and disbursement (transfer, and the
//! refund of a request to pay); a token per product; initiations answered 202 and looked up by
//! the caller's `X-Reference-Id`; a callback when the payment settles. Errors carry
//! `{code, message}`.

pub mod auth;
pub mod callback;
mod handlers;
mod holder;
mod refund;
pub mod wire;

use std::time::Instant;

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::Value;

use super::state::{Flow, Payment, Phase};
use super::Ctx;
use wire::{ErrorReason, Party, Refund, RequestToPay, RequestToPayResult, Transfer, TransferResult};

/// The routes of both products.
pub fn routes() -> Router<Ctx> {
    Router::new()
        .route("/collection/token/", post(auth::collection_token))
        .route("/collection/token", post(auth::collection_token))
        .route("/disbursement/token/", post(auth::disbursement_token))
        .route("/disbursement/token", post(auth::disbursement_token))
        .route("/collection/v1_0/requesttopay", post(handlers::request_to_pay))
        .route(
            "/collection/v1_0/requesttopay/{reference}",
            get(handlers::request_to_pay_status),
        )
        .route("/disbursement/v1_0/transfer", post(handlers::transfer))
        .route(
            "/disbursement/v1_0/transfer/{reference}",
            get(handlers::transfer_status),
        )
        .route("/disbursement/v1_0/refund", post(refund::refund))
        .route("/disbursement/v2_0/refund", post(refund::refund))
        .route("/disbursement/v1_0/refund/{reference}", get(refund::refund_status))
        .route(
            "/collection/v1_0/accountholder/msisdn/{msisdn}/active",
            get(holder::collection_active),
        )
        .route(
            "/disbursement/v1_0/accountholder/msisdn/{msisdn}/active",
            get(holder::disbursement_active),
        )
        .route(
            "/collection/v1_0/accountholder/msisdn/{msisdn}/basicuserinfo",
            get(holder::basic_user_info),
        )
}

/// An API error with MoMo's `ErrorReason` body.
pub fn error(status: StatusCode, code: &'static str, message: impl Into<String>) -> Response {
    (
        status,
        Json(ErrorReason {
            code,
            message: message.into(),
        }),
    )
        .into_response()
}

/// 404 for a reference the platform never received.
pub fn not_found() -> Response {
    error(
        StatusCode::NOT_FOUND,
        "RESOURCE_NOT_FOUND",
        "Requested resource was not found.",
    )
}

/// The status of `payment` as MoMo reports it, in `phase`.
pub fn result(payment: &Payment, phase: &Phase) -> Value {
    let (status, reason, settled) = match phase {
        Phase::Pending => ("PENDING", None, false),
        Phase::Succeeded { .. } => ("SUCCESSFUL", None, true),
        Phase::Failed { code, .. } => ("FAILED", Some(code.clone()), false),
        Phase::Expired { .. } => ("FAILED", Some("EXPIRED".to_string()), false),
    };
    let financial_transaction_id = settled.then(|| payment.transaction_id.clone());
    let value = match payment.flow {
        Flow::Transfer => serde_json::from_value::<Transfer>(payment.request.clone())
            .ok()
            .map(|t| {
                serde_json::to_value(TransferResult {
                    amount: t.amount,
                    currency: t.currency,
                    financial_transaction_id,
                    external_id: t.external_id,
                    payee: t.payee,
                    payer_message: t.payer_message,
                    payee_note: t.payee_note,
                    status,
                    reason,
                })
            }),
        Flow::Refund => serde_json::from_value::<Refund>(payment.request.clone()).ok().map(|r| {
            serde_json::to_value(TransferResult {
                amount: r.amount,
                currency: r.currency,
                financial_transaction_id,
                external_id: r.external_id,
                payee: Party {
                    party_id_type: "MSISDN".to_string(),
                    party_id: payment.party.clone().unwrap_or_default(),
                },
                payer_message: r.payer_message,
                payee_note: r.payee_note,
                status,
                reason,
            })
        }),
        _ => serde_json::from_value::<RequestToPay>(payment.request.clone())
            .ok()
            .map(|r| {
                serde_json::to_value(RequestToPayResult {
                    amount: r.amount,
                    currency: r.currency,
                    financial_transaction_id,
                    external_id: r.external_id,
                    payer: r.payer,
                    payer_message: r.payer_message,
                    payee_note: r.payee_note,
                    status,
                    reason,
                })
            }),
    };
    value.and_then(Result::ok).unwrap_or(Value::Null)
}

/// The status of `payment` now.
pub fn result_now(payment: &Payment, now: Instant) -> Value {
    result(payment, &payment.phase(now))
}
