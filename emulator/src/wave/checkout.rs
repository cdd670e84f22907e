//! Wave checkout sessions: create (200 and the session, `open` / `processing`), retrieve, search
//! by `client_reference` (`{"result": [...]}`), expire (200, empty). A session completes when
//! its payer pays (the Sandbox row of `restrict_payer_mobile`, or the launch page); a failed
//! attempt leaves it open with `last_payment_error`; unpaid at `when_expires` (or when expired
//! through the API) it is `expired` / `cancelled`.

use std::collections::HashMap;
use std::time::Instant;

use axum::body::Bytes;
use axum::extract::{ConnectInfo, Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use reqwest::Url;
use serde_json::Value;

use super::auth::authorize;
use super::guarded;
use super::wire::{error, invalid, CheckoutSession, CreateCheckoutSession, LastPaymentError, SearchResult};
use crate::callbacks::{self, Ticket};
use crate::fields::{fits, header, is_e164, is_whole_amount};
use crate::guard::{Guard, Protocol, Refusal};
use crate::listener::Connection;
use crate::state::{Flow, Outcome, Payment, Phase, Resolution};
use crate::{mint, scenario, Ctx};

/// The session as Wave shows it at `now`.
pub fn view(ctx: &Ctx, payment: &Payment, now: Instant) -> CheckoutSession {
    let request: Option<CreateCheckoutSession> = serde_json::from_value(payment.request.clone()).ok();
    let field = |get: fn(&CreateCheckoutSession) -> &Option<String>| request.as_ref().and_then(|r| get(r).clone());
    let phase = payment.phase(now);
    let last_payment_error = match (&payment.resolution.outcome, payment.resolution.at) {
        (Outcome::Failed { code, message }, Some(at)) if at <= now && payment.expires.is_none_or(|e| at < e) => {
            Some(LastPaymentError {
                code: code.clone(),
                message: message.clone(),
            })
        }
        _ => None,
    };
    let (checkout_status, payment_status, completed) = match phase {
        Phase::Pending | Phase::Failed { .. } => ("open", "processing", None),
        Phase::Succeeded { at } => ("complete", "succeeded", Some(at)),
        Phase::Expired { at } => ("expired", "cancelled", Some(at)),
    };
    let business = &ctx.settings.wave.business_name;
    let launch = format!("{}/c/{}", ctx.base_url, payment.id);
    let query = [
        ("a", payment.amount.as_str()),
        ("c", payment.currency.as_str()),
        ("m", business.as_str()),
    ];
    let wave_launch_url = Url::parse_with_params(&launch, query)
        .map(String::from)
        .unwrap_or(launch);
    CheckoutSession {
        id: payment.id.clone(),
        amount: payment.amount.clone(),
        checkout_status,
        client_reference: field(|r| &r.client_reference),
        currency: payment.currency.clone(),
        error_url: request.as_ref().map(|r| r.error_url.clone()).unwrap_or_default(),
        last_payment_error,
        business_name: business.clone(),
        payment_status,
        restrict_payer_mobile: field(|r| &r.restrict_payer_mobile),
        aggregated_merchant_id: field(|r| &r.aggregated_merchant_id),
        success_url: request.as_ref().map(|r| r.success_url.clone()).unwrap_or_default(),
        transaction_id: (payment_status == "succeeded").then(|| payment.transaction_id.clone()),
        wave_launch_url,
        when_completed: completed.map(|at| mint::rfc3339(payment.wall(at))),
        when_created: mint::rfc3339(payment.created_at),
        when_expires: mint::rfc3339(payment.created_at + ctx.settings.wave.session_ttl),
    }
}

fn check(ctx: &Ctx, body: &Bytes) -> Result<(Value, CreateCheckoutSession), Refusal> {
    let value: Value = serde_json::from_slice(body).map_err(|e| {
        error(
            StatusCode::BAD_REQUEST,
            "request-parsing-error",
            format!("The body is not JSON: {e}"),
        )
    })?;
    let request: CreateCheckoutSession =
        serde_json::from_value(value.clone()).map_err(|e| invalid("body", e.to_string()))?;
    if !is_whole_amount(&request.amount) {
        return Err(invalid("amount", "must be a positive whole number of francs, as a string").into());
    }
    if request.currency != ctx.settings.wave.currency {
        return Err(invalid("currency", format!("must be {}", ctx.settings.wave.currency)).into());
    }
    for (name, url) in [("success_url", &request.success_url), ("error_url", &request.error_url)] {
        if !Url::parse(url).is_ok_and(|u| matches!(u.scheme(), "http" | "https")) {
            return Err(invalid(name, "must be an absolute URL").into());
        }
    }
    if !fits(&request.client_reference, 255) {
        return Err(invalid("client_reference", "is limited to 255 characters").into());
    }
    if request.restrict_payer_mobile.as_deref().is_some_and(|m| !is_e164(m)) {
        return Err(invalid("restrict_payer_mobile", "must be an E.164 number, like +2250700000001").into());
    }
    Ok((value, request))
}

fn accept(ctx: &Ctx, headers: &HeaderMap, body: &Bytes, guard: &Guard) -> Result<Response, Refusal> {
    authorize(ctx, headers)?;
    let (value, request) = check(ctx, body)?;
    let idempotency_key = header(headers, "idempotency-key").filter(|k| !k.is_empty());
    let now = ctx.clock.now();
    let id = mint::checkout_id();
    let key = idempotency_key
        .or(request.client_reference.as_deref())
        .unwrap_or(&id)
        .to_string();
    let plan = scenario::plan(
        Flow::Checkout,
        request.restrict_payer_mobile.as_deref(),
        ctx.settings.delay,
        guard.approve_after(),
    );
    let payment = Payment {
        id,
        key,
        flow: Flow::Checkout,
        party: request.restrict_payer_mobile.clone(),
        amount: request.amount.clone(),
        currency: request.currency.clone(),
        request: value,
        created: now,
        created_at: ctx.clock.wall(),
        resolution: Resolution {
            outcome: plan.outcome,
            at: plan.after.map(|a| now + a),
            notify: plan.notify,
            generation: 0,
        },
        callback: guard.faults.callback.clone(),
        callback_url: None,
        expires: Some(now + ctx.settings.wave.session_ttl),
        transaction_id: mint::wave_transaction_id(),
        refused: false,
        calls_back: super::webhook::deliveries,
    };
    let ticket = Ticket::of(&payment);
    let session = {
        let mut state = ctx.lock();
        if let Some(key) = idempotency_key {
            if let Some(existing) = state.by_key(Flow::Checkout, key) {
                return if existing.request == payment.request {
                    Ok(Json(view(ctx, existing, now)).into_response())
                } else {
                    Err(error(
                        StatusCode::CONFLICT,
                        "idempotency-mismatch",
                        "This idempotency key was used for another request.",
                    )
                    .into())
                };
            }
        }
        if payment.key == payment.id {
            state.received(&payment.key);
        }
        // A session is always created open, even one its payer pays at once.
        let mut fresh = payment.clone();
        fresh.resolution.at = None;
        let session = view(ctx, &fresh, now);
        state.insert(payment);
        session
    };
    callbacks::schedule(ctx, ticket);
    Ok(Json(session).into_response())
}

/// `POST /v1/checkout/sessions`.
pub async fn create(
    State(ctx): State<Ctx>,
    ConnectInfo(conn): ConnectInfo<Connection>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let guard = match Guard::enter(&ctx, "wave.checkout.create", &headers, conn, Protocol::Wave).await {
        Ok(guard) => guard,
        Err(refusal) => return refusal,
    };
    let client_reference = serde_json::from_slice::<Value>(&body)
        .ok()
        .and_then(|v| v.get("client_reference").and_then(Value::as_str).map(str::to_string));
    if let Some(key) = header(&headers, "idempotency-key")
        .filter(|k| !k.is_empty())
        .map(str::to_string)
        .or(client_reference)
    {
        ctx.lock().received(&key);
    }
    if let Some(refusal) = guard.refusal() {
        return refusal;
    }
    let answer = accept(&ctx, &headers, &body, &guard).unwrap_or_else(|refusal| *refusal);
    guard.leave(answer).await
}

pub(super) fn not_found() -> Response {
    error(
        StatusCode::NOT_FOUND,
        "checkout-session-not-found",
        "The checkout session was not found.",
    )
}

/// `GET /v1/checkout/sessions/{id}`.
pub async fn get(
    State(ctx): State<Ctx>,
    ConnectInfo(conn): ConnectInfo<Connection>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Response {
    guarded(&ctx, "wave.checkout.get", &headers, conn, |guard| {
        let state = ctx.lock();
        let session = state
            .get(&id)
            .filter(|p| p.flow == Flow::Checkout && !guard.faults.not_found)
            .ok_or_else(not_found)?;
        Ok(Json(view(&ctx, session, ctx.clock.now())).into_response())
    })
    .await
}

/// `GET /v1/checkout/sessions/search?client_reference=…`.
pub async fn search(
    State(ctx): State<Ctx>,
    ConnectInfo(conn): ConnectInfo<Connection>,
    Query(query): Query<HashMap<String, String>>,
    headers: HeaderMap,
) -> Response {
    guarded(&ctx, "wave.checkout.search", &headers, conn, |guard| {
        let reference = query
            .get("client_reference")
            .ok_or_else(|| invalid("client_reference", "is required"))?;
        let state = ctx.lock();
        let now = ctx.clock.now();
        let result = state
            .payments()
            .iter()
            .filter(|p| p.flow == Flow::Checkout && !guard.faults.not_found)
            .filter(|p| p.request.get("client_reference").and_then(Value::as_str) == Some(reference.as_str()))
            .map(|p| view(&ctx, p, now))
            .collect();
        Ok(Json(SearchResult { result }).into_response())
    })
    .await
}

/// `POST /v1/checkout/sessions/{id}/expire`.
pub async fn expire(
    State(ctx): State<Ctx>,
    ConnectInfo(conn): ConnectInfo<Connection>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Response {
    guarded(&ctx, "wave.checkout.expire", &headers, conn, |guard| {
        let mut state = ctx.lock();
        let session = state
            .get_mut(&id)
            .filter(|p| p.flow == Flow::Checkout && !guard.faults.not_found)
            .ok_or_else(not_found)?;
        let now = ctx.clock.now();
        match session.phase(now) {
            Phase::Succeeded { .. } => Err(error(
                StatusCode::CONFLICT,
                "checkout-session-already-completed",
                "The checkout session is already complete.",
            )
            .into()),
            Phase::Expired { .. } => Ok(StatusCode::OK.into_response()),
            Phase::Pending | Phase::Failed { .. } => {
                session.expires = Some(now);
                Ok(StatusCode::OK.into_response())
            }
        }
    })
    .await
}
