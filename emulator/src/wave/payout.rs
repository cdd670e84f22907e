//! Wave payouts: `POST /v1/payout` with an `idempotency-key` header (the same key and body give
//! back the same payout, never a second one; the same key with another body is refused 409
//! `idempotency-mismatch`), answered 200 with the payout (`processing`, `succeeded` or
//! `failed`) or refused outright (422 with a code, nothing sent); `GET /v1/payout/{id}`;
//! `GET /v1/payouts/search?client_reference=…` (`{"result": [...]}`, oldest first; refused
//! payouts are not listed, as they are not found by id either). Wave documents no payout
//! webhook: the status is polled.

use std::collections::HashMap;

use std::time::{Duration, Instant};

use axum::body::Bytes;
use axum::extract::{ConnectInfo, Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::Value;

use super::auth::authorize;
use super::guarded;
use super::wire::{error, invalid, CreatePayout, Payout, PayoutError, SearchResult};
use crate::fields::{fits, header, is_e164, is_whole_amount};
use crate::guard::{Guard, Protocol, Refusal};
use crate::listener::Connection;
use crate::state::{Flow, Outcome, Payment, Phase, Resolution};
use crate::{mint, scenario, Ctx};

/// Wave's payout fee in the emulator: 1 % of the amount, rounded up.
fn fee(amount: &str) -> String {
    amount
        .parse::<u64>()
        .map(|n| n.div_ceil(100).to_string())
        .unwrap_or_else(|_| "0".to_string())
}

/// The payout as Wave shows it at `now`.
pub fn view(payment: &Payment, now: Instant) -> Payout {
    let request: Option<CreatePayout> = serde_json::from_value(payment.request.clone()).ok();
    let field = |get: fn(&CreatePayout) -> &Option<String>| request.as_ref().and_then(|r| get(r).clone());
    let (status, payout_error) = match payment.phase(now) {
        Phase::Pending => ("processing", None),
        Phase::Succeeded { .. } => ("succeeded", None),
        Phase::Failed { code, message, .. } => (
            "failed",
            Some(PayoutError {
                error_code: code,
                error_message: message,
            }),
        ),
        Phase::Expired { .. } => ("failed", None),
    };
    Payout {
        id: payment.id.clone(),
        currency: payment.currency.clone(),
        receive_amount: payment.amount.clone(),
        fee: fee(&payment.amount),
        mobile: payment.party.clone().unwrap_or_default(),
        name: field(|r| &r.name),
        national_id: field(|r| &r.national_id),
        client_reference: field(|r| &r.client_reference),
        payment_reason: field(|r| &r.payment_reason),
        status,
        timestamp: mint::rfc3339(payment.created_at),
        payout_error,
        aggregated_merchant_id: field(|r| &r.aggregated_merchant_id),
    }
}

/// The answer to an initiation of `payment`: its refusal, or the payout.
fn answer(payment: &Payment, now: Instant) -> Response {
    match (&payment.resolution.outcome, payment.refused) {
        (Outcome::Failed { code, message }, true) => {
            error(StatusCode::UNPROCESSABLE_ENTITY, code.clone(), message.clone())
        }
        _ => Json(view(payment, now)).into_response(),
    }
}

fn check(ctx: &Ctx, body: &Bytes) -> Result<(Value, CreatePayout), Refusal> {
    let value: Value = serde_json::from_slice(body).map_err(|e| {
        error(
            StatusCode::BAD_REQUEST,
            "request-parsing-error",
            format!("The body is not JSON: {e}"),
        )
    })?;
    let request: CreatePayout = serde_json::from_value(value.clone()).map_err(|e| invalid("body", e.to_string()))?;
    if request.currency != ctx.settings.wave.currency {
        return Err(invalid("currency", format!("must be {}", ctx.settings.wave.currency)).into());
    }
    if !is_whole_amount(&request.receive_amount) {
        return Err(invalid(
            "receive_amount",
            "must be a positive whole number of francs, as a string",
        )
        .into());
    }
    if !is_e164(&request.mobile) {
        return Err(invalid("mobile", "must be an E.164 number, like +2250700000001").into());
    }
    let limits = [("name", &request.name, 255), ("national_id", &request.national_id, 255)];
    let limits = limits.into_iter().chain([
        ("payment_reason", &request.payment_reason, 40),
        ("client_reference", &request.client_reference, 255),
    ]);
    for (field, value, max) in limits {
        if !fits(value, max) {
            return Err(invalid(field, format!("is limited to {max} characters")).into());
        }
    }
    Ok((value, request))
}

fn accept(ctx: &Ctx, headers: &HeaderMap, body: &Bytes, guard: &Guard) -> Result<Response, Refusal> {
    authorize(ctx, headers)?;
    let key = header(headers, "idempotency-key")
        .filter(|k| !k.is_empty())
        .ok_or_else(|| invalid("idempotency-key", "this header is required"))?;
    let (value, request) = check(ctx, body)?;
    let now = ctx.clock.now();
    let mut state = ctx.lock();
    if let Some(existing) = state.by_key(Flow::Payout, key) {
        return if existing.request == value {
            Ok(answer(existing, now))
        } else {
            Err(error(
                StatusCode::CONFLICT,
                "idempotency-mismatch",
                "This idempotency key was used for another request.",
            )
            .into())
        };
    }
    let plan = scenario::plan(
        Flow::Payout,
        Some(&request.mobile),
        ctx.settings.delay,
        guard.approve_after(),
    );
    let refused = matches!(plan.outcome, Outcome::Failed { .. }) && plan.after == Some(Duration::ZERO);
    let payment = Payment {
        id: mint::payout_id(),
        key: key.to_string(),
        flow: Flow::Payout,
        party: Some(request.mobile),
        amount: request.receive_amount,
        currency: request.currency,
        request: value,
        created: now,
        created_at: ctx.clock.wall(),
        resolution: Resolution {
            outcome: plan.outcome,
            at: plan.after.map(|a| now + a),
            notify: false,
            generation: 0,
        },
        callback: guard.faults.callback.clone(),
        callback_url: None,
        expires: None,
        transaction_id: mint::wave_transaction_id(),
        refused,
        // Wave documents no payout webhook (payouts are polled), and refunds answer at once.
        calls_back: crate::callbacks::never,
    };
    let answer = answer(&payment, now);
    state.insert(payment);
    Ok(answer)
}

/// `POST /v1/payout`.
pub async fn create(
    State(ctx): State<Ctx>,
    ConnectInfo(conn): ConnectInfo<Connection>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let guard = match Guard::enter(&ctx, "wave.payout.create", &headers, conn, Protocol::Wave).await {
        Ok(guard) => guard,
        Err(refusal) => return refusal,
    };
    if let Some(key) = header(&headers, "idempotency-key").filter(|k| !k.is_empty()) {
        ctx.lock().received(key);
    }
    if let Some(refusal) = guard.refusal() {
        return refusal;
    }
    let answer = accept(&ctx, &headers, &body, &guard).unwrap_or_else(|refusal| *refusal);
    guard.leave(answer).await
}

/// `GET /v1/payout/{id}`.
pub async fn get(
    State(ctx): State<Ctx>,
    ConnectInfo(conn): ConnectInfo<Connection>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Response {
    guarded(&ctx, "wave.payout.get", &headers, conn, |guard| {
        let state = ctx.lock();
        let payout = state
            .get(&id)
            .filter(|p| p.flow == Flow::Payout && !p.refused && !guard.faults.not_found)
            .ok_or_else(|| error(StatusCode::NOT_FOUND, "payout-not-found", "The payout was not found."))?;
        Ok(Json(view(payout, ctx.clock.now())).into_response())
    })
    .await
}

/// `GET /v1/payouts/search?client_reference=…`: the payouts created with that reference. A
/// connector that lost a payout's id (a timeout on creation) finds it again here.
pub async fn search(
    State(ctx): State<Ctx>,
    ConnectInfo(conn): ConnectInfo<Connection>,
    Query(query): Query<HashMap<String, String>>,
    headers: HeaderMap,
) -> Response {
    guarded(&ctx, "wave.payout.search", &headers, conn, |guard| {
        let reference = query
            .get("client_reference")
            .ok_or_else(|| invalid("client_reference", "is required"))?;
        let state = ctx.lock();
        let now = ctx.clock.now();
        let result = state
            .payments()
            .iter()
            .filter(|p| p.flow == Flow::Payout && !p.refused && !guard.faults.not_found)
            .filter(|p| p.request.get("client_reference").and_then(Value::as_str) == Some(reference.as_str()))
            .map(|p| view(p, now))
            .collect();
        Ok(Json(SearchResult { result }).into_response())
    })
    .await
}
