//! The payer's side of a checkout: the page `wave_launch_url` opens (the Wave app, in the real
//! world). `POST /c/{id}/approve` pays the session and sends the payer (303) to `success_url`;
//! `POST /c/{id}/decline` is a failed attempt (the session stays open, as Wave keeps it) and
//! sends the payer to `error_url`. A paid session answers 409, an expired one 410.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Redirect, Response};

use super::checkout::view;
use crate::callbacks::{self, Ticket};
use crate::state::{Flow, Outcome, Phase, Resolution};
use crate::Ctx;

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn page_of(status: StatusCode, body: String) -> Response {
    let html = format!(
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>Wave (emulator)</title></head><body>{body}</body></html>"
    );
    (status, Html(html)).into_response()
}

/// `GET /c/{id}`.
pub async fn page(State(ctx): State<Ctx>, Path(id): Path<String>) -> Response {
    let state = ctx.lock();
    let Some(payment) = state.get(&id).filter(|p| p.flow == Flow::Checkout) else {
        return page_of(StatusCode::NOT_FOUND, "<p>Unknown checkout session.</p>".to_string());
    };
    let session = view(&ctx, payment, ctx.clock.now());
    let id = escape(&session.id);
    let body = format!(
        "<h1>{}</h1><p>{} {}</p><p>Status: {} / {}</p>\
         <form method=\"post\" action=\"/c/{id}/approve\"><button>Approve</button></form>\
         <form method=\"post\" action=\"/c/{id}/decline\"><button>Decline</button></form>",
        escape(&session.business_name),
        escape(&session.amount),
        escape(&session.currency),
        session.checkout_status,
        session.payment_status,
    );
    page_of(StatusCode::OK, body)
}

/// The payer acts on session `id`: pays, or fails an attempt.
fn act(ctx: &Ctx, id: &str, outcome: Outcome) -> Response {
    let mut state = ctx.lock();
    let Some(payment) = state.get_mut(id).filter(|p| p.flow == Flow::Checkout) else {
        return page_of(StatusCode::NOT_FOUND, "<p>Unknown checkout session.</p>".to_string());
    };
    let now = ctx.clock.now();
    match payment.phase(now) {
        Phase::Succeeded { .. } => return page_of(StatusCode::CONFLICT, "<p>Already paid.</p>".to_string()),
        Phase::Expired { .. } => return page_of(StatusCode::GONE, "<p>This checkout has expired.</p>".to_string()),
        Phase::Pending | Phase::Failed { .. } => {}
    }
    let paid = outcome == Outcome::Succeeded;
    let generation = payment.resolution.generation + 1;
    payment.resolution = Resolution {
        outcome,
        at: Some(now),
        notify: true,
        generation,
    };
    let ticket = Ticket::of(payment);
    let session = view(ctx, payment, now);
    drop(state);
    callbacks::schedule(ctx, ticket);
    Redirect::to(if paid { &session.success_url } else { &session.error_url }).into_response()
}

/// `POST /c/{id}/approve`.
pub async fn approve(State(ctx): State<Ctx>, Path(id): Path<String>) -> Response {
    act(&ctx, &id, Outcome::Succeeded)
}

/// `POST /c/{id}/decline`.
pub async fn decline(State(ctx): State<Ctx>, Path(id): Path<String>) -> Response {
    let declined = Outcome::Failed {
        code: "payer-declined".to_string(),
        message: "The payer declined on the emulator's launch page".to_string(),
    };
    act(&ctx, &id, declined)
}
