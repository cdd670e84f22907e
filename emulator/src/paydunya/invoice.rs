//! Checkout invoices and SOFTPAY. An invoice moves no money: SOFTPAY does, once per invoice
//! (a second SOFTPAY of a paid invoice answers as the first did, executing nothing). The
//! payer's number picks the outcome from the Sandbox table (`scenario.rs`); row 04 is refused
//! in SOFTPAY's answer (`success: false`), the others are accepted and settle on the table's
//! time. The confirmation shows `pending` until then, then `completed`, `failed` or
//! `cancelled` (expired).

use std::time::Instant;

use axum::body::Bytes;
use axum::extract::{ConnectInfo, Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::{json, Map, Value};

use super::{guarded, json_body, notify, refusal};
use crate::callbacks::{self, Ticket};
use crate::fields::is_msisdn;
use crate::guard::Guard;
use crate::guard::Refusal;
use crate::listener::Connection;
use crate::state::{Flow, Outcome, Payment, Phase, Resolution};
use crate::{mint, scenario, Ctx};

/// The one-time code Orange refuses as wrong.
const WRONG_OTP: &str = "0000";

/// A positive whole number of francs, as a number or a string of digits.
pub(super) fn whole_amount(value: Option<&Value>) -> Option<u64> {
    match value? {
        Value::Number(n) => n.as_u64(),
        Value::String(s) if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) => s.parse().ok(),
        _ => None,
    }
    .filter(|n| *n > 0)
}

/// A fresh invoice or disbursement token.
pub(super) fn token() -> String {
    uuid::Uuid::new_v4().simple().to_string()[..20].to_string()
}

/// A PayDunya payment not yet asked to move money: an invoice, or a disbursement.
pub(super) fn prepared(
    ctx: &Ctx,
    guard: &Guard,
    flow: Flow,
    token: &str,
    key: String,
    amount: u64,
    request: Value,
) -> Payment {
    Payment {
        id: token.to_owned(),
        key,
        flow,
        party: None,
        amount: amount.to_string(),
        currency: "XOF".to_string(),
        request,
        created: ctx.clock.now(),
        created_at: ctx.clock.wall(),
        resolution: Resolution {
            outcome: Outcome::Pending,
            at: None,
            notify: false,
            generation: 0,
        },
        callback: guard.faults.callback.clone(),
        callback_url: None,
        expires: None,
        transaction_id: mint::wave_transaction_id(),
        refused: false,
        calls_back: notify::deliveries,
    }
}

/// `POST /api/v1/checkout-invoice/create`.
pub async fn create(
    State(ctx): State<Ctx>,
    ConnectInfo(conn): ConnectInfo<Connection>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    guarded(
        &ctx,
        "paydunya.invoice.create",
        &headers,
        conn,
        || {},
        |guard| {
            let value: Value = json_body(&body)?;
            let amount = whole_amount(value.pointer("/invoice/total_amount"))
                .ok_or_else(|| refusal(StatusCode::BAD_REQUEST, "1003", "invoice.total_amount est obligatoire"))?;
            if value.pointer("/store/name").and_then(Value::as_str).is_none() {
                return Err(refusal(StatusCode::BAD_REQUEST, "1003", "store.name est obligatoire"));
            }
            let token = token();
            let text = |pointer| value.pointer(pointer).and_then(Value::as_str).map(str::to_owned);
            let key = text("/custom_data/ref").unwrap_or_else(|| token.clone());
            let mut invoice = prepared(&ctx, guard, Flow::Invoice, &token, key, amount, value.clone());
            invoice.callback_url = text("/actions/callback_url");
            ctx.lock().insert_prepared(invoice);
            Ok(Json(json!({
                "response_code": "00",
                "response_text": format!("{}/checkout/invoice/{token}", ctx.base_url),
                "description": "Checkout Invoice Created",
                "token": token,
            }))
            .into_response())
        },
    )
    .await
}

/// Where each operator's SOFTPAY body names the invoice and the payer's number.
fn fields_of(operator: &str) -> Option<(&'static str, &'static str)> {
    Some(match operator {
        "orange-money-ci" => ("payment_token", "orange_money_ci_phone_number"),
        "mtn-ci" => ("payment_token", "mtn_ci_phone_number"),
        "moov-ci" => ("payment_token", "moov_ci_phone_number"),
        "wave-ci" => ("wave_ci_payment_token", "wave_ci_phone"),
        _ => return None,
    })
}

fn softpay_answer(success: bool, message: &str, url: Option<String>) -> Response {
    let mut body = json!({"success": success, "message": message});
    if let Some(url) = url {
        body["url"] = json!(url);
    }
    Json(body).into_response()
}

/// `POST /api/v1/softpay/{operator}`.
pub async fn softpay(
    State(ctx): State<Ctx>,
    ConnectInfo(conn): ConnectInfo<Connection>,
    Path(operator): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let fields = fields_of(&operator);
    let sent: Map<String, Value> = serde_json::from_slice(&body).unwrap_or_default();
    let text = |name: &str| sent.get(name).and_then(Value::as_str).unwrap_or("").to_owned();
    let token = fields.map(|(token, _)| text(token)).unwrap_or_default();
    let key = ctx.lock().get(&token).map(|p| p.key.clone());
    let arrived = || {
        if let Some(key) = &key {
            ctx.lock().received(key);
        }
    };
    guarded(&ctx, "paydunya.softpay", &headers, conn, arrived, |guard| {
        let (_, phone_field) =
            fields.ok_or_else(|| refusal(StatusCode::NOT_FOUND, "1004", format!("{operator} n'existe pas")))?;
        let phone = text(phone_field);
        let url = (operator == "wave-ci").then(|| format!("{}/paydunya/wave/{token}", ctx.base_url));
        let now = ctx.clock.now();
        let mut state = ctx.lock();
        let invoice = state
            .get_mut(&token)
            .filter(|p| p.flow == Flow::Invoice)
            .ok_or_else(|| refusal(StatusCode::NOT_FOUND, "1005", "Facture introuvable"))?;
        if invoice.party.is_some() {
            // Paid once: answered again, never executed again.
            return Ok(softpay_answer(true, "Paiement déjà soumis", url));
        }
        if !is_msisdn(&phone) {
            return Err(refusal(
                StatusCode::BAD_REQUEST,
                "1003",
                format!("{phone_field} est invalide"),
            ));
        }
        if operator == "orange-money-ci" {
            match text("orange_money_ci_otp").as_str() {
                "" => return Ok(softpay_answer(false, "Le code OTP est obligatoire", None)),
                WRONG_OTP => return Ok(softpay_answer(false, "Le code OTP saisi est invalide ou expiré", None)),
                _ => {}
            }
        }
        let plan = scenario::plan(Flow::Invoice, Some(&phone), ctx.settings.delay, guard.approve_after());
        invoice.party = Some(phone);
        // Faults of its notifications may come with the call that pays it, too.
        if guard.faults.callback != Default::default() {
            invoice.callback = guard.faults.callback.clone();
        }
        invoice.request["softpay"] = Value::Object(sent.clone());
        invoice.resolution = Resolution {
            outcome: plan.outcome.clone(),
            at: plan.after.map(|after| now + after),
            notify: plan.notify,
            generation: invoice.resolution.generation + 1,
        };
        let refused_at_once = matches!(plan.outcome, Outcome::Failed { .. }) && plan.after == Some(Default::default());
        let ticket = Ticket::of(invoice);
        let key = invoice.key.clone();
        state.executed(&key);
        drop(state);
        callbacks::schedule(&ctx, ticket);
        Ok(match plan.outcome {
            Outcome::Failed { message, .. } if refused_at_once => softpay_answer(false, &message, None),
            _ => softpay_answer(true, "Votre paiement est en cours de traitement", url),
        })
    })
    .await
}

/// The confirmation of `invoice` at `now`.
pub fn view(invoice: &Payment, now: Instant) -> Value {
    let (status, fail_reason) = match invoice.phase(now) {
        Phase::Pending => ("pending", None),
        Phase::Succeeded { .. } => ("completed", None),
        Phase::Failed { message, .. } => ("failed", Some(message)),
        Phase::Expired { .. } => ("cancelled", None),
    };
    let mut answer = json!({
        "response_code": "00",
        "response_text": "Transaction Found",
        "hash": "",
        "invoice": {
            "token": invoice.id,
            "total_amount": invoice.amount,
            "currency": invoice.currency,
            "description": invoice.request.pointer("/invoice/description"),
        },
        "custom_data": invoice.request.get("custom_data"),
        "status": status,
    });
    if let Some(reason) = fail_reason {
        answer["fail_reason"] = json!(reason);
    }
    answer
}

/// `GET /api/v1/checkout-invoice/confirm/{token}`.
pub async fn confirm(
    State(ctx): State<Ctx>,
    ConnectInfo(conn): ConnectInfo<Connection>,
    Path(token): Path<String>,
    headers: HeaderMap,
) -> Response {
    guarded(
        &ctx,
        "paydunya.invoice.confirm",
        &headers,
        conn,
        || {},
        |guard| {
            let state = ctx.lock();
            let invoice: Result<&Payment, Refusal> = state
                .get(&token)
                .filter(|p| p.flow == Flow::Invoice && !guard.faults.not_found)
                .ok_or_else(|| refusal(StatusCode::OK, "1006", "Invoice Not Found"));
            Ok(Json(view(invoice?, ctx.clock.now())).into_response())
        },
    )
    .await
}
