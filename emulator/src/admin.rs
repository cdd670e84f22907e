//! The admin API under `/_emulator/`, for tests and for people: what the emulator received and
//! executed, the payments and callbacks, the default faults, and forced settlements. It speaks
//! the emulator's own JSON (snake_case), not either protocol's, and takes no credentials.
//!
//! - `GET /_emulator/initiations` and `GET /_emulator/initiations/{reference}`:
//!   `{"reference", "received", "executed"}` per MoMo `X-Reference-Id` or Wave `idempotency-key`
//!   (else checkout `client_reference`); `executed` never exceeds 1 for a key.
//! - `GET /_emulator/payments`, `GET /_emulator/payments/{reference}` (id or key).
//! - `POST /_emulator/payments/{reference}/settle` with
//!   `{"outcome": "succeeded"|"failed"|"pending", "code"?, "message"?, "after_ms"?, "callback"?}`.
//! - `GET`, `POST` (replace: `{"rules": [{"on", "fault", "times"?}]}` or one rule) and `DELETE`
//!   `/_emulator/faults`.
//! - `GET /_emulator/callbacks`: every callback and webhook made (or dropped), in order.
//! - `GET /_emulator/clock` and `POST /_emulator/clock` with `{"advance_ms": N}`: the emulator's
//!   clock, and moving it forward (`clock.rs`); the advance answers once the callbacks it made
//!   due are made.

use std::time::{Duration, Instant};

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::callbacks::{self, Ticket};
use super::faults::FaultRule;
use super::state::{Flow, Outcome, Payment, Phase, Resolution};
use super::{mint, momo, paydunya, wave, Ctx};

pub fn routes() -> Router<Ctx> {
    Router::new()
        .route("/_emulator/initiations", get(initiations))
        .route("/_emulator/initiations/{reference}", get(initiation))
        .route("/_emulator/payments", get(payments))
        .route("/_emulator/payments/{reference}", get(payment))
        .route("/_emulator/payments/{reference}/settle", post(settle))
        .route("/_emulator/faults", get(faults).post(set_faults).delete(clear_faults))
        .route("/_emulator/callbacks", get(callbacks_made))
        .route("/_emulator/clock", get(clock).post(advance))
}

fn problem(status: StatusCode, message: impl Into<String>) -> Response {
    (status, Json(json!({"emulator_error": message.into()}))).into_response()
}

/// A payment in the emulator's terms, with the protocol's own view beside it.
#[derive(Debug, Serialize)]
struct PaymentView {
    protocol: &'static str,
    flow: &'static str,
    id: String,
    key: String,
    party: Option<String>,
    amount: String,
    currency: String,
    /// `pending`, `succeeded`, `failed` or `expired`.
    status: &'static str,
    code: Option<String>,
    created_at: String,
    settled_at: Option<String>,
    callback_url: Option<String>,
    /// The body the protocol's status lookup would answer now.
    wire: Value,
}

fn view(ctx: &Ctx, payment: &Payment, now: Instant) -> PaymentView {
    let (status, code, settled) = match payment.phase(now) {
        Phase::Pending => ("pending", None, None),
        Phase::Succeeded { at } => ("succeeded", None, Some(at)),
        Phase::Failed { at, code, .. } => ("failed", Some(code), Some(at)),
        Phase::Expired { at } => ("expired", None, Some(at)),
    };
    let wire = match payment.flow {
        Flow::Collection | Flow::Transfer | Flow::Refund => momo::result_now(payment, now),
        Flow::Checkout => serde_json::to_value(wave::session_view(ctx, payment, now)).unwrap_or_default(),
        Flow::Payout => serde_json::to_value(wave::payout_view(payment, now)).unwrap_or_default(),
        Flow::CheckoutRefund => wave::refund_view(payment),
        Flow::Invoice => paydunya::invoice_view(payment, now),
        Flow::Disburse => paydunya::disbursement_view(payment, now),
    };
    PaymentView {
        protocol: payment.flow.protocol(),
        flow: payment.flow.name(),
        id: payment.id.clone(),
        key: payment.key.clone(),
        party: payment.party.clone(),
        amount: payment.amount.clone(),
        currency: payment.currency.clone(),
        status,
        code,
        created_at: mint::rfc3339(payment.created_at),
        settled_at: settled.map(|at| mint::rfc3339(payment.wall(at))),
        callback_url: payment.callback_url.clone(),
        wire,
    }
}

async fn initiations(State(ctx): State<Ctx>) -> Response {
    let state = ctx.lock();
    let all: Vec<Value> = state
        .initiations()
        .iter()
        .map(|(reference, i)| json!({"reference": reference, "received": i.received, "executed": i.executed}))
        .collect();
    Json(all).into_response()
}

async fn initiation(State(ctx): State<Ctx>, Path(reference): Path<String>) -> Response {
    let state = ctx.lock();
    let counts = state.initiation(&reference).cloned().unwrap_or_default();
    Json(json!({"reference": reference, "received": counts.received, "executed": counts.executed})).into_response()
}

async fn payments(State(ctx): State<Ctx>) -> Response {
    let state = ctx.lock();
    let now = ctx.clock.now();
    Json(state.payments().iter().map(|p| view(&ctx, p, now)).collect::<Vec<_>>()).into_response()
}

async fn payment(State(ctx): State<Ctx>, Path(reference): Path<String>) -> Response {
    let state = ctx.lock();
    match state.find(&reference) {
        Some(payment) => Json(view(&ctx, payment, ctx.clock.now())).into_response(),
        None => problem(StatusCode::NOT_FOUND, format!("no payment {reference}")),
    }
}

/// A forced settlement.
#[derive(Debug, Deserialize)]
struct Settle {
    /// `succeeded`, `failed` or `pending` (MoMo's `SUCCESSFUL` / `FAILED` / `PENDING` too).
    outcome: String,
    /// The failure code; the Sandbox's refusal code of the flow when absent.
    code: Option<String>,
    message: Option<String>,
    /// Settles that long from now (a late approval); at once when absent.
    #[serde(default)]
    after_ms: u64,
    /// Whether the operator calls back (default: yes).
    callback: Option<bool>,
}

async fn settle(State(ctx): State<Ctx>, Path(reference): Path<String>, Json(order): Json<Settle>) -> Response {
    let now = ctx.clock.now();
    let mut state = ctx.lock();
    let Some(id) = state.find(&reference).map(|p| p.id.clone()) else {
        return problem(StatusCode::NOT_FOUND, format!("no payment {reference}"));
    };
    let Some(payment) = state.get_mut(&id) else {
        return problem(StatusCode::NOT_FOUND, format!("no payment {reference}"));
    };
    let outcome = match order.outcome.to_ascii_lowercase().as_str() {
        "succeeded" | "successful" => Outcome::Succeeded,
        "pending" => Outcome::Pending,
        "failed" => match order.code {
            Some(code) => Outcome::Failed {
                message: order.message.unwrap_or_else(|| code.clone()),
                code,
            },
            None => match super::scenario::refusal(payment.flow, false) {
                Outcome::Failed { code, message } => Outcome::Failed {
                    code,
                    message: order.message.unwrap_or(message),
                },
                other => other,
            },
        },
        other => {
            return problem(
                StatusCode::BAD_REQUEST,
                format!("outcome {other:?}: use succeeded, failed or pending"),
            )
        }
    };
    let at = (outcome != Outcome::Pending).then(|| now + Duration::from_millis(order.after_ms));
    let generation = payment.resolution.generation + 1;
    payment.resolution = Resolution {
        outcome,
        at,
        notify: order.callback.unwrap_or(true),
        generation,
    };
    payment.refused = false;
    let ticket = Ticket::of(payment);
    let shown = view(&ctx, payment, now);
    drop(state);
    callbacks::schedule(&ctx, ticket);
    Json(shown).into_response()
}

#[derive(Debug, Serialize, Deserialize)]
struct Rules {
    rules: Vec<FaultRule>,
}

async fn faults(State(ctx): State<Ctx>) -> Response {
    Json(Rules {
        rules: ctx.lock().rules.clone(),
    })
    .into_response()
}

async fn set_faults(State(ctx): State<Ctx>, Json(body): Json<Value>) -> Response {
    let rules = match serde_json::from_value::<Rules>(body.clone()) {
        Ok(rules) => rules.rules,
        Err(_) => match serde_json::from_value::<FaultRule>(body) {
            Ok(rule) => vec![rule],
            Err(e) => {
                return problem(
                    StatusCode::BAD_REQUEST,
                    format!("expected {{\"rules\": [...]}} or one rule: {e}"),
                )
            }
        },
    };
    if let Some((rule, e)) = rules.iter().find_map(|rule| rule.check().err().map(|e| (rule, e))) {
        return problem(StatusCode::BAD_REQUEST, format!("fault {:?}: {e}", rule.fault));
    }
    ctx.lock().rules = rules.clone();
    Json(Rules { rules }).into_response()
}

async fn clear_faults(State(ctx): State<Ctx>) -> Response {
    ctx.lock().rules.clear();
    StatusCode::NO_CONTENT.into_response()
}

async fn callbacks_made(State(ctx): State<Ctx>) -> Response {
    Json(ctx.lock().callbacks().cloned().collect::<Vec<_>>()).into_response()
}

/// How far the clock may be ahead of the wall clock: a century.
const MAX_OFFSET: Duration = Duration::from_secs(100 * 366 * 86_400);

/// An advance of the clock.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Advance {
    advance_ms: u64,
}

/// The clock as the admin API shows it; `callbacks_in_flight`: callbacks due and still being
/// made (0 unless a receiver is slower than the wait allows).
fn clock_view(ctx: &Ctx, callbacks_in_flight: usize) -> Response {
    let offset = ctx.clock.offset();
    Json(json!({
        "offset_ms": u64::try_from(offset.as_millis()).unwrap_or(u64::MAX),
        "now": mint::rfc3339(ctx.clock.wall()),
        "callbacks_in_flight": callbacks_in_flight,
    }))
    .into_response()
}

async fn clock(State(ctx): State<Ctx>) -> Response {
    let in_flight = ctx.lock().callbacks_due(ctx.clock.now());
    clock_view(&ctx, in_flight)
}

/// Moves the clock forward: what falls due by the new time happens at once. Answers when the
/// callbacks that fell due have been made (each waits for its receiver's answer, up to the
/// callback timeout), so that a test reads their effects, or their absence, right after.
async fn advance(State(ctx): State<Ctx>, body: axum::body::Bytes) -> Response {
    let order: Advance = match serde_json::from_slice(&body) {
        Ok(order) => order,
        Err(e) => return problem(StatusCode::BAD_REQUEST, format!("expected {{\"advance_ms\": N}}: {e}")),
    };
    let by = Duration::from_millis(order.advance_ms);
    if ctx.clock.offset().saturating_add(by) > MAX_OFFSET {
        return problem(StatusCode::BAD_REQUEST, "the clock goes a century ahead at most");
    }
    ctx.clock.advance(by);
    // Each payment's callbacks go one after the other: a duplicate or a stale one after the first.
    let limit = ctx.settings.callback_timeout * 3 + Duration::from_secs(1);
    let in_flight = callbacks::made_by(&ctx, ctx.clock.now(), limit).await;
    clock_view(&ctx, in_flight)
}
