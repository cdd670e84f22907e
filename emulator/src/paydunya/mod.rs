//! `paydunya`: PayDunya's public API as developers.paydunya.com and its open-source clients
//! show it, for Côte d'Ivoire's operators:
//!
//! - `POST /api/v1/checkout-invoice/create` (an invoice and its token), `POST
//!   /api/v1/softpay/{orange-money-ci|mtn-ci|moov-ci|wave-ci}` (the payer's operator pays the
//!   invoice; Orange's needs the payer's one-time code, `0000` is a wrong one), `GET
//!   /api/v1/checkout-invoice/confirm/{token}`;
//! - `POST /api/v2/disburse/get-invoice` (a disbursement and its token, `created`), `POST
//!   /api/v2/disburse/submit-invoice` (pays it, once, whatever the number of submissions),
//!   `POST /api/v2/disburse/check-status`;
//! - notifications: a form POST to the invoice's or disbursement's `callback_url`, whose
//!   `data[hash]` is the SHA-512 of the master key.
//!
//! Every call carries `PAYDUNYA-MASTER-KEY`, `PAYDUNYA-PRIVATE-KEY` and `PAYDUNYA-TOKEN`; a wrong
//! one is refused 401 before anything is done. Answers carry `response_code` (`"00"`: success).
//! The documentation shows no `currency` in the confirmation or the disbursement status: the
//! emulator adds `"XOF"`, so that a lie about it (`answer=other_currency`) can be told.
//! Initiations are counted under the gateway's `ref` (`custom_data.ref`, `disburse_id`).

mod disburse;
mod invoice;
mod notify;

pub use disburse::state_of as disbursement_view;
pub use invoice::view as invoice_view;

use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::json;
use sha2::{Digest, Sha512};

use super::fields::header;
use super::guard::{Guard, Protocol, Refusal};
use super::listener::Connection;
use super::Ctx;

pub fn routes() -> Router<Ctx> {
    Router::new()
        .route("/api/v1/checkout-invoice/create", post(invoice::create))
        .route("/api/v1/softpay/{operator}", post(invoice::softpay))
        .route("/api/v1/checkout-invoice/confirm/{token}", get(invoice::confirm))
        .route("/api/v2/disburse/get-invoice", post(disburse::get_invoice))
        .route("/api/v2/disburse/submit-invoice", post(disburse::submit))
        .route("/api/v2/disburse/check-status", post(disburse::check_status))
}

/// The hash a notification carries for `master_key`: its SHA-512, in hex.
pub fn notification_hash(master_key: &str) -> String {
    hex::encode(Sha512::digest(master_key.as_bytes()))
}

/// An answer PayDunya gives with `status`: a `response_code` and its text.
pub(crate) fn refusal(status: StatusCode, code: &str, text: impl Into<String>) -> Refusal {
    Box::new(
        (
            status,
            Json(json!({"response_code": code, "response_text": text.into()})),
        )
            .into_response(),
    )
}

/// The three keys, checked before anything is done.
fn authorize(ctx: &Ctx, headers: &HeaderMap) -> Result<(), Refusal> {
    let keys = &ctx.settings.paydunya;
    let given = |name| header(headers, name).unwrap_or("");
    if given("paydunya-master-key") != keys.master_key
        || given("paydunya-private-key") != keys.private_key
        || given("paydunya-token") != keys.token
    {
        return Err(refusal(
            StatusCode::UNAUTHORIZED,
            "1001",
            "Les clés d'API fournies sont invalides",
        ));
    }
    Ok(())
}

/// Runs `act` on the request behind the guard of `point`, after the keys; `arrived` is told
/// first, so that an initiation is counted even when a fault refuses it.
async fn guarded(
    ctx: &Ctx,
    point: &str,
    headers: &HeaderMap,
    conn: Connection,
    arrived: impl FnOnce(),
    act: impl FnOnce(&Guard) -> Result<Response, Refusal>,
) -> Response {
    let guard = match Guard::enter(ctx, point, headers, conn, Protocol::Paydunya).await {
        Ok(guard) => guard,
        Err(refusal) => return refusal,
    };
    arrived();
    if let Some(refusal) = guard.refusal() {
        return refusal;
    }
    let answer = authorize(ctx, headers)
        .and_then(|()| act(&guard))
        .unwrap_or_else(|refusal| *refusal);
    guard.leave(answer).await
}

/// A JSON body, or PayDunya's refusal of it.
fn json_body<T: serde::de::DeserializeOwned>(body: &[u8]) -> Result<T, Refusal> {
    serde_json::from_slice(body)
        .map_err(|e| refusal(StatusCode::BAD_REQUEST, "1002", format!("Requête invalide : {e}")))
}
