//! Disbursements (API v2): `get-invoice` makes one (`created`: nothing moves), `submit-invoice`
//! pays it, once: a second submission of the same token answers as the first did and executes
//! nothing, whatever its `disburse_id`. The recipient's number picks the outcome from the
//! Sandbox table; row 04 is refused at submission (`response_code` `"4001"`, nothing paid).
//! `check-status` shows `created`, `pending`, `success` or `failed`.

use std::time::Instant;

use axum::body::Bytes;
use axum::extract::{ConnectInfo, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::{json, Value};

use super::invoice::{prepared, token, whole_amount};
use super::{guarded, json_body, refusal};
use crate::callbacks::{self, Ticket};
use crate::fields::is_msisdn;
use crate::listener::Connection;
use crate::state::{Flow, Outcome, Payment, Phase, Resolution};
use crate::{scenario, Ctx};

const WITHDRAW_MODES: [&str; 4] = ["orange-money-ci", "mtn-ci", "moov-ci", "wave-ci"];

/// Whether `payment` was submitted.
pub(super) fn submitted(payment: &Payment) -> bool {
    payment.request.get("disburse_id").is_some()
}

/// `POST /api/v2/disburse/get-invoice`.
pub async fn get_invoice(
    State(ctx): State<Ctx>,
    ConnectInfo(conn): ConnectInfo<Connection>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    guarded(&ctx, "paydunya.disburse.create", &headers, conn, || {}, |guard| {
        let value: Value = json_body(&body)?;
        let text = |name: &str| value.get(name).and_then(Value::as_str).unwrap_or("").to_owned();
        let alias = text("account_alias");
        if !is_msisdn(&alias) {
            return Err(refusal(StatusCode::OK, "4002", "account_alias est invalide"));
        }
        if !WITHDRAW_MODES.contains(&text("withdraw_mode").as_str()) {
            return Err(refusal(StatusCode::OK, "4003", "withdraw_mode est invalide"));
        }
        let amount = whole_amount(value.get("amount"))
            .ok_or_else(|| refusal(StatusCode::OK, "4004", "amount est invalide"))?;
        let token = token();
        let mut payment = prepared(&ctx, guard, Flow::Disburse, &token, token.clone(), amount, value.clone());
        payment.party = Some(alias);
        payment.callback_url = Some(text("callback_url")).filter(|u| !u.is_empty());
        ctx.lock().insert_prepared(payment);
        Ok(Json(json!({"response_code": "00", "response_text": "Disbursement Invoice Created", "disburse_token": token}))
            .into_response())
    })
    .await
}

/// `POST /api/v2/disburse/submit-invoice`.
pub async fn submit(
    State(ctx): State<Ctx>,
    ConnectInfo(conn): ConnectInfo<Connection>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let sent: Value = serde_json::from_slice(&body).unwrap_or_default();
    let text = |name: &str| sent.get(name).and_then(Value::as_str).unwrap_or("").to_owned();
    let (token, disburse_id) = (text("disburse_invoice"), text("disburse_id"));
    let arrived = || {
        if !disburse_id.is_empty() {
            ctx.lock().received(&disburse_id);
        }
    };
    guarded(&ctx, "paydunya.disburse.submit", &headers, conn, arrived, |guard| {
        if disburse_id.is_empty() {
            return Err(refusal(StatusCode::OK, "4005", "disburse_id est obligatoire"));
        }
        let now = ctx.clock.now();
        let mut state = ctx.lock();
        let payment = state
            .get_mut(&token)
            .filter(|p| p.flow == Flow::Disburse)
            .ok_or_else(|| refusal(StatusCode::OK, "4006", "Disbursement invoice not found"))?;
        if submitted(payment) {
            // Paid once: answered again, never executed again.
            return Ok(Json(state_of(payment, now)).into_response());
        }
        let phone = payment.party.clone().unwrap_or_default();
        let plan = scenario::plan(Flow::Disburse, Some(&phone), ctx.settings.delay, guard.approve_after());
        if let (Outcome::Failed { message, .. }, Some(after)) = (&plan.outcome, plan.after) {
            if after.is_zero() {
                // Refused before anything is paid; the token may be submitted again.
                return Err(refusal(StatusCode::OK, "4001", message.clone()));
            }
        }
        payment.key = disburse_id.clone();
        // Faults of its notification may come with the call that pays it, too.
        if guard.faults.callback != Default::default() {
            payment.callback = guard.faults.callback.clone();
        }
        payment.request["disburse_id"] = json!(disburse_id);
        payment.resolution = Resolution {
            outcome: plan.outcome,
            at: plan.after.map(|after| now + after),
            notify: plan.notify,
            generation: payment.resolution.generation + 1,
        };
        let ticket = Ticket::of(payment);
        let answer = state_of(payment, now);
        state.executed(&disburse_id);
        drop(state);
        callbacks::schedule(&ctx, ticket);
        Ok(Json(answer).into_response())
    })
    .await
}

/// A disbursement's state at `now`.
pub fn state_of(payment: &Payment, now: Instant) -> Value {
    let status = match (submitted(payment), payment.phase(now)) {
        (false, _) => "created",
        (true, Phase::Pending) => "pending",
        (true, Phase::Succeeded { .. }) => "success",
        (true, Phase::Failed { .. } | Phase::Expired { .. }) => "failed",
    };
    let mut answer = json!({
        "response_code": "00",
        "response_text": "Disbursement found",
        "status": status,
        "disburse_invoice": payment.id,
        "amount": payment.amount,
        "currency": payment.currency,
        "withdraw_mode": payment.request.get("withdraw_mode"),
    });
    if let Phase::Failed { message, .. } = payment.phase(now) {
        answer["description"] = json!(message);
    }
    answer
}

/// `POST /api/v2/disburse/check-status`.
pub async fn check_status(
    State(ctx): State<Ctx>,
    ConnectInfo(conn): ConnectInfo<Connection>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    guarded(
        &ctx,
        "paydunya.disburse.status",
        &headers,
        conn,
        || {},
        |guard| {
            let value: Value = json_body(&body)?;
            let token = value.get("disburse_invoice").and_then(Value::as_str).unwrap_or("");
            let state = ctx.lock();
            let payment = state
                .get(token)
                .filter(|p| p.flow == Flow::Disburse && !guard.faults.not_found)
                .ok_or_else(|| refusal(StatusCode::OK, "4006", "Disbursement invoice not found"))?;
            Ok(Json(state_of(payment, ctx.clock.now())).into_response())
        },
    )
    .await
}
