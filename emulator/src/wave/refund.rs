//! Wave's checkout refund (`POST /v1/checkout/sessions/{id}/refund`): a paid session's whole
//! amount back to its payer, answered at once with an empty 200. Wave refunds a session only in
//! full and once: a session not paid, or refunded before, is 400 `checkout-refund-failed`; an
//! unknown one is 404. The `idempotency-key` (optional) replays: the key of the refund already
//! made answers 200 again without refunding twice. The Sandbox table does not apply: a paid
//! session's refund succeeds.

use axum::extract::{ConnectInfo, Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{json, Value};

use super::auth::authorize;
use super::checkout::not_found;
use super::wire::error;
use crate::fields::header;
use crate::guard::{Guard, Protocol, Refusal};
use crate::listener::Connection;
use crate::state::{Flow, Outcome, Payment, Phase, Resolution};
use crate::{mint, Ctx};

/// The refund as the admin API shows it.
pub fn view(payment: &Payment) -> Value {
    json!({
        "id": payment.id,
        "checkout_session_id": payment.request.get("checkout_session_id"),
        "amount": payment.amount,
        "currency": payment.currency,
    })
}

fn failed(message: &str) -> Refusal {
    error(StatusCode::BAD_REQUEST, "checkout-refund-failed", message).into()
}

fn accept(ctx: &Ctx, id: &str, key: Option<&str>, guard: &Guard) -> Result<Response, Refusal> {
    let now = ctx.clock.now();
    let mut state = ctx.lock();
    let session = state
        .get(id)
        .filter(|p| p.flow == Flow::Checkout && !guard.faults.not_found)
        .ok_or_else(not_found)?;
    let earlier = state
        .payments()
        .iter()
        .find(|p| p.flow == Flow::CheckoutRefund && p.request["checkout_session_id"] == id);
    if let Some(earlier) = earlier {
        return match key {
            Some(key) if earlier.key == key => Ok(StatusCode::OK.into_response()),
            _ => Err(failed("The checkout session is already refunded.")),
        };
    }
    if !matches!(session.phase(now), Phase::Succeeded { .. }) {
        return Err(failed("Only a completed checkout session can be refunded."));
    }
    let refund_id = format!("rf-{}", session.id.trim_start_matches("cos-"));
    let refund = Payment {
        key: key.map_or_else(|| refund_id.clone(), str::to_string),
        id: refund_id,
        flow: Flow::CheckoutRefund,
        party: session.party.clone(),
        amount: session.amount.clone(),
        currency: session.currency.clone(),
        request: json!({ "checkout_session_id": id }),
        created: now,
        created_at: ctx.clock.wall(),
        resolution: Resolution {
            outcome: Outcome::Succeeded,
            at: Some(now),
            notify: false,
            generation: 0,
        },
        callback: guard.faults.callback.clone(),
        callback_url: None,
        expires: None,
        transaction_id: mint::wave_transaction_id(),
        refused: false,
        // Wave documents no payout webhook (payouts are polled), and refunds answer at once.
        calls_back: crate::callbacks::never,
    };
    state.insert(refund);
    Ok(StatusCode::OK.into_response())
}

/// `POST /v1/checkout/sessions/{id}/refund`.
pub async fn refund(
    State(ctx): State<Ctx>,
    ConnectInfo(conn): ConnectInfo<Connection>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Response {
    let guard = match Guard::enter(&ctx, "wave.checkout.refund", &headers, conn, Protocol::Wave).await {
        Ok(guard) => guard,
        Err(refusal) => return refusal,
    };
    let key = header(&headers, "idempotency-key").filter(|k| !k.is_empty());
    if let Some(key) = key {
        ctx.lock().received(key);
    }
    if let Some(refusal) = guard.refusal() {
        return refusal;
    }
    let answer = authorize(&ctx, &headers)
        .and_then(|()| accept(&ctx, &id, key, &guard))
        .unwrap_or_else(|refusal| *refusal);
    guard.leave(answer).await
}
