//! MoMo's refund (`POST /disbursement/v2_0/refund`, and `v1_0`): a disbursement that gives a
//! request to pay's money back to its payer, named by `referenceIdToRefund` (the request to
//! pay's `X-Reference-Id`). Answered 202 like a transfer, looked up at
//! `GET /disbursement/v1_0/refund/{referenceId}`, called back when it settles.
//!
//! A request to pay the emulator never received is 404. One that is not `SUCCESSFUL`, or a
//! refund for more than its refunds not `FAILED` leave of it, is accepted and fails at once
//! (`NOT_ALLOWED`), as the platform settles its business refusals. Otherwise the payer's number
//! decides, as for a transfer (the Sandbox table of `scenario.rs`).

use std::time::Duration;

use axum::body::Bytes;
use axum::extract::{ConnectInfo, Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use serde_json::Value;

use super::auth::{authorize, Product};
use super::handlers::{bad_request, callback_url, initiate, reference_id, status, target_environment};
use super::wire::Refund;
use super::{error, not_found};
use crate::callbacks::{self, Ticket};
use crate::fields::{fits, is_whole_amount};
use crate::guard::{Guard, Refusal};
use crate::listener::Connection;
use crate::scenario::{self, Plan};
use crate::state::{Flow, Outcome, Payment, Phase, Resolution, State as Memory};
use crate::{mint, Ctx};

/// Why the platform fails `refund` of `collection` at `now`, if it does.
fn refusal(memory: &Memory, collection: &Payment, refund: &Refund, now: std::time::Instant) -> Option<&'static str> {
    if !matches!(collection.phase(now), Phase::Succeeded { .. }) {
        return Some("The payment to refund is not successful.");
    }
    let francs = |text: &str| text.parse::<u64>().unwrap_or(u64::MAX);
    let given_back: u64 = memory
        .payments()
        .iter()
        .filter(|p| p.flow == Flow::Refund && !matches!(p.phase(now), Phase::Failed { .. }))
        .filter(|p| p.request.get("referenceIdToRefund").and_then(Value::as_str) == Some(collection.key.as_str()))
        .map(|p| francs(&p.amount))
        .sum();
    (given_back.saturating_add(francs(&refund.amount)) > francs(&collection.amount))
        .then_some("The refund is larger than what remains of the payment.")
}

fn accept(ctx: &Ctx, headers: &HeaderMap, body: &Bytes, guard: &Guard) -> Result<(), Refusal> {
    authorize(ctx, Product::Disbursement, headers)?;
    target_environment(ctx, headers)?;
    let reference = reference_id(headers)?;
    let callback_url = callback_url(ctx, headers)?;
    let request: Value =
        serde_json::from_slice(body).map_err(|e| bad_request(format!("The body is not valid JSON: {e}")))?;
    let refund: Refund = serde_json::from_value(request.clone())
        .map_err(|e| bad_request(format!("The body does not follow the specification: {e}")))?;
    if !is_whole_amount(&refund.amount) {
        return Err(bad_request("The amount must be a positive whole number, as a string.").into());
    }
    if [&refund.payer_message, &refund.payee_note]
        .iter()
        .any(|note| !fits(note, 160))
    {
        return Err(bad_request("payerMessage and payeeNote are limited to 160 characters.").into());
    }
    if refund.currency != ctx.settings.momo.currency {
        return Err(error(
            StatusCode::INTERNAL_SERVER_ERROR,
            "INVALID_CURRENCY",
            "Currency not supported.",
        )
        .into());
    }
    let now = ctx.clock.now();
    let ticket = {
        let mut memory = ctx.lock();
        if memory.by_key(Flow::Refund, reference).is_some() {
            return Err(error(
                StatusCode::CONFLICT,
                "RESOURCE_ALREADY_EXIST",
                "Duplicated reference id. Creation of resource failed.",
            )
            .into());
        }
        let collection = memory
            .by_key(Flow::Collection, &refund.reference_id_to_refund)
            .ok_or_else(not_found)?;
        let party = collection.party.clone();
        let plan = match refusal(&memory, collection, &refund, now) {
            Some(message) => Plan {
                outcome: Outcome::Failed {
                    code: "NOT_ALLOWED".to_string(),
                    message: message.to_string(),
                },
                after: Some(Duration::ZERO),
                notify: true,
            },
            None => scenario::plan(
                Flow::Refund,
                party.as_deref(),
                ctx.settings.delay,
                guard.approve_after(),
            ),
        };
        let payment = Payment {
            id: reference.to_string(),
            key: reference.to_string(),
            flow: Flow::Refund,
            party,
            amount: refund.amount,
            currency: refund.currency,
            request,
            created: now,
            created_at: ctx.clock.wall(),
            resolution: Resolution {
                outcome: plan.outcome,
                at: plan.after.map(|after| now + after),
                notify: plan.notify,
                generation: 0,
            },
            callback: guard.faults.callback.clone(),
            callback_url,
            expires: None,
            transaction_id: mint::financial_transaction_id(),
            refused: false,
            calls_back: super::callback::deliveries,
        };
        let ticket = Ticket::of(&payment);
        memory.insert(payment);
        ticket
    };
    callbacks::schedule(ctx, ticket);
    Ok(())
}

/// `POST /disbursement/v2_0/refund` and `POST /disbursement/v1_0/refund`.
pub async fn refund(
    State(ctx): State<Ctx>,
    ConnectInfo(conn): ConnectInfo<Connection>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    initiate(ctx, "momo.refund", conn, headers, body, accept).await
}

/// `GET /disbursement/v1_0/refund/{referenceId}`.
pub async fn refund_status(
    State(ctx): State<Ctx>,
    ConnectInfo(conn): ConnectInfo<Connection>,
    Path(reference): Path<String>,
    headers: HeaderMap,
) -> Response {
    status(ctx, Flow::Refund, conn, headers, reference).await
}
