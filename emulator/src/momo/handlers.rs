//! MoMo's initiations (`requesttopay`, `transfer`: 202 and an empty body, 409 for a reference
//! already received, which is then not executed again) and status lookups (200 with the
//! `…Result`, 404 for a reference never received), with their checks in the platform's order:
//! subscription key and token, target environment, reference, callback host, body, currency.

use axum::body::Bytes;
use axum::extract::{ConnectInfo, Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use reqwest::Url;
use serde_json::Value;

use super::auth::{authorize, Product};
use super::wire::{Party, RequestToPay, Transfer};
use super::{error, not_found, result_now};
use crate::callbacks::{self, Ticket};
use crate::fields::{fits, header, is_msisdn, is_whole_amount};
use crate::guard::{Guard, Protocol, Refusal};
use crate::listener::Connection;
use crate::state::{Flow, Payment, Resolution};
use crate::{mint, scenario, Ctx};

/// The fields the checks look at, whichever the flow.
struct Initiation {
    amount: String,
    currency: String,
    party: Party,
    notes: [Option<String>; 2],
}

fn parse(flow: Flow, body: &Bytes) -> Result<(Value, Initiation), String> {
    let value: Value = serde_json::from_slice(body).map_err(|e| format!("The body is not valid JSON: {e}"))?;
    let initiation = match flow {
        Flow::Transfer => serde_json::from_value::<Transfer>(value.clone()).map(|t| Initiation {
            amount: t.amount,
            currency: t.currency,
            party: t.payee,
            notes: [t.payer_message, t.payee_note],
        }),
        _ => serde_json::from_value::<RequestToPay>(value.clone()).map(|r| Initiation {
            amount: r.amount,
            currency: r.currency,
            party: r.payer,
            notes: [r.payer_message, r.payee_note],
        }),
    }
    .map_err(|e| format!("The body does not follow the specification: {e}"))?;
    Ok((value, initiation))
}

pub(super) fn bad_request(message: impl Into<String>) -> Response {
    error(StatusCode::BAD_REQUEST, "BAD_REQUEST", message)
}

/// The target environment check shared by every operation.
pub(super) fn target_environment(ctx: &Ctx, headers: &HeaderMap) -> Result<(), Refusal> {
    match header(headers, "x-target-environment") {
        None => Err(bad_request("The X-Target-Environment header is required.").into()),
        Some(env) if env == ctx.settings.momo.target_environment => Ok(()),
        Some(_) => Err(error(
            StatusCode::INTERNAL_SERVER_ERROR,
            "NOT_ALLOWED_TARGET_ENVIRONMENT",
            "Access to target environment is forbidden.",
        )
        .into()),
    }
}

/// The `X-Reference-Id` of an initiation: a UUID v4.
pub(super) fn reference_id(headers: &HeaderMap) -> Result<&str, Refusal> {
    Ok(header(headers, "x-reference-id")
        .filter(|r| uuid::Uuid::parse_str(r).is_ok_and(|u| u.get_version_num() == 4))
        .ok_or_else(|| bad_request("X-Reference-Id must be a UUID version 4."))?)
}

/// The `X-Callback-Url` of an initiation, if any, on the host configured for the API user.
pub(super) fn callback_url(ctx: &Ctx, headers: &HeaderMap) -> Result<Option<String>, Refusal> {
    match header(headers, "x-callback-url") {
        None | Some("") => Ok(None),
        Some(raw) => {
            let url = Url::parse(raw).map_err(|_| bad_request("X-Callback-Url is not a valid URL."))?;
            if let Some(host) = &ctx.settings.momo.callback_host {
                if url.host_str() != Some(host.as_str()) {
                    return Err(error(
                        StatusCode::INTERNAL_SERVER_ERROR,
                        "INVALID_CALLBACK_URL_HOST",
                        "Callback URL with different host name than configured for API User.",
                    )
                    .into());
                }
            }
            Ok(Some(raw.to_string()))
        }
    }
}

/// Checks and records an initiation; `Err` is the refusal.
fn accept(ctx: &Ctx, flow: Flow, headers: &HeaderMap, body: &Bytes, guard: &Guard) -> Result<(), Refusal> {
    authorize(ctx, Product::of(flow), headers)?;
    target_environment(ctx, headers)?;
    let reference = reference_id(headers)?;
    let callback_url = callback_url(ctx, headers)?;
    let (request, initiation) = parse(flow, body).map_err(bad_request)?;
    if initiation.party.party_id_type != "MSISDN" || !is_msisdn(&initiation.party.party_id) {
        return Err(bad_request("The party must be an MSISDN with its country code, digits only.").into());
    }
    if !is_whole_amount(&initiation.amount) {
        return Err(bad_request("The amount must be a positive whole number, as a string.").into());
    }
    if initiation.notes.iter().any(|note| !fits(note, 160)) {
        return Err(bad_request("payerMessage and payeeNote are limited to 160 characters.").into());
    }
    if initiation.currency != ctx.settings.momo.currency {
        return Err(error(
            StatusCode::INTERNAL_SERVER_ERROR,
            "INVALID_CURRENCY",
            "Currency not supported.",
        )
        .into());
    }
    let plan = scenario::plan(
        flow,
        Some(&initiation.party.party_id),
        ctx.settings.delay,
        guard.approve_after(),
    );
    let now = ctx.clock.now();
    let payment = Payment {
        id: reference.to_string(),
        key: reference.to_string(),
        flow,
        party: Some(initiation.party.party_id),
        amount: initiation.amount,
        currency: initiation.currency,
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
    {
        let mut state = ctx.lock();
        if state.by_key(flow, reference).is_some() {
            return Err(error(
                StatusCode::CONFLICT,
                "RESOURCE_ALREADY_EXIST",
                "Duplicated reference id. Creation of resource failed.",
            )
            .into());
        }
        state.insert(payment);
    }
    callbacks::schedule(ctx, ticket);
    Ok(())
}

/// An initiation at fault point `point`: counted as received under its `X-Reference-Id`, then
/// checked and recorded by `accept`; 202 and an empty body when it is.
pub(super) async fn initiate(
    ctx: Ctx,
    point: &str,
    conn: Connection,
    headers: HeaderMap,
    body: Bytes,
    accept: impl FnOnce(&Ctx, &HeaderMap, &Bytes, &Guard) -> Result<(), Refusal>,
) -> Response {
    let guard = match Guard::enter(&ctx, point, &headers, conn, Protocol::Momo).await {
        Ok(guard) => guard,
        Err(refusal) => return refusal,
    };
    if let Some(reference) = header(&headers, "x-reference-id").filter(|r| !r.is_empty()) {
        ctx.lock().received(reference);
    }
    if let Some(refusal) = guard.refusal() {
        return refusal;
    }
    let answer = match accept(&ctx, &headers, &body, &guard) {
        Ok(()) => StatusCode::ACCEPTED.into_response(),
        Err(refusal) => *refusal,
    };
    guard.leave(answer).await
}

pub(super) async fn status(ctx: Ctx, flow: Flow, conn: Connection, headers: HeaderMap, reference: String) -> Response {
    let point = match flow {
        Flow::Transfer => "momo.transfer.status",
        Flow::Refund => "momo.refund.status",
        _ => "momo.requesttopay.status",
    };
    let guard = match Guard::enter(&ctx, point, &headers, conn, Protocol::Momo).await {
        Ok(guard) => guard,
        Err(refusal) => return refusal,
    };
    if let Some(refusal) = guard.refusal() {
        return refusal;
    }
    let answer = (|| {
        authorize(&ctx, Product::of(flow), &headers)?;
        target_environment(&ctx, &headers)?;
        if guard.faults.not_found {
            return Err(not_found().into());
        }
        let state = ctx.lock();
        let payment = state.by_key(flow, &reference).ok_or_else(not_found)?;
        Ok(Json(result_now(payment, ctx.clock.now())).into_response())
    })()
    .unwrap_or_else(|refusal: Refusal| *refusal);
    guard.leave(answer).await
}

/// `POST /collection/v1_0/requesttopay`.
pub async fn request_to_pay(
    State(ctx): State<Ctx>,
    ConnectInfo(conn): ConnectInfo<Connection>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let accept = |ctx: &Ctx, headers: &HeaderMap, body: &Bytes, guard: &Guard| {
        accept(ctx, Flow::Collection, headers, body, guard)
    };
    initiate(ctx, "momo.requesttopay", conn, headers, body, accept).await
}

/// `POST /disbursement/v1_0/transfer`.
pub async fn transfer(
    State(ctx): State<Ctx>,
    ConnectInfo(conn): ConnectInfo<Connection>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let accept =
        |ctx: &Ctx, headers: &HeaderMap, body: &Bytes, guard: &Guard| accept(ctx, Flow::Transfer, headers, body, guard);
    initiate(ctx, "momo.transfer", conn, headers, body, accept).await
}

/// `GET /collection/v1_0/requesttopay/{referenceId}`.
pub async fn request_to_pay_status(
    State(ctx): State<Ctx>,
    ConnectInfo(conn): ConnectInfo<Connection>,
    Path(reference): Path<String>,
    headers: HeaderMap,
) -> Response {
    status(ctx, Flow::Collection, conn, headers, reference).await
}

/// `GET /disbursement/v1_0/transfer/{referenceId}`.
pub async fn transfer_status(
    State(ctx): State<Ctx>,
    ConnectInfo(conn): ConnectInfo<Connection>,
    Path(reference): Path<String>,
    headers: HeaderMap,
) -> Response {
    status(ctx, Flow::Transfer, conn, headers, reference).await
}
