//! `GET /dashboard/api-keys`: the environment's API key, and its rotation. Rotating revokes
//! the old key with its tokens and every dashboard session opened with it, this one
//! included: the answer shows the new key and secret once, then the merchant signs in again.
//! The page also switches the recipient check (`service::recipients`) on or off for the
//! environment: what the API may ask besides payments.

use axum::extract::State;
use axum::http::header::{LOCATION, SET_COOKIE};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use maud::html;

use super::layout::{self, html_response, Flash, Spec};
use super::session::Ctx;
use crate::domain::Timestamp;
use crate::service::{Dashboard, Merchants, Recipients};
use crate::web::csrf::{CsrfForm, NoFields};

pub async fn show(State(dashboard): State<Dashboard>, State(recipients): State<Recipients>, ctx: Ctx) -> Response {
    let api_key = match dashboard.dashboard_api_key(&ctx.session).await {
        Ok(key) => key,
        Err(e) => return layout::service_error(ctx.lang(), e),
    };
    let checks = match recipients.allowed(&ctx.session.tenant).await {
        Ok(allowed) => allowed,
        Err(e) => return layout::service_error(ctx.lang(), e),
    };
    let t = ctx.t();
    let body = html! {
        dl.facts {
            dt { (t.environment) } dd { (ctx.session.tenant.environment.as_str()) }
            dt { (t.current_api_key) } dd { code #api-key { (api_key) } }
        }
        p.hint { (t.api_keys_hint) }
        form #rotate-api-key method="post" action="/dashboard/api-keys/rotate" {
            input type="hidden" name="csrf_token" value=(ctx.csrf);
            button #rotate-api-key-submit type="submit" { (t.rotate_api_key) }
        }
        h2 { (t.recipient_check) }
        p #recipient-check data-state=(if checks { "on" } else { "off" }) {
            (if checks { t.recipient_check_on } else { t.recipient_check_off })
        }
        p.hint { (t.recipient_check_hint) }
        form #recipient-check-switch method="post" action="/dashboard/api-keys/recipient-check" {
            input type="hidden" name="csrf_token" value=(ctx.csrf);
            input type="hidden" name="allowed" value=(if checks { "off" } else { "on" });
            button #recipient-check-submit type="submit" {
                (if checks { t.recipient_check_turn_off } else { t.recipient_check_turn_on })
            }
        }
    };
    let spec = Spec {
        title: t.api_keys,
        main_id: "page-api-keys",
        path: "/dashboard/api-keys",
    };
    layout::answer(&ctx, StatusCode::OK, spec, Flash::None, body)
}

/// The recipient check's switch.
#[derive(serde::Deserialize)]
pub struct SwitchForm {
    allowed: Option<String>,
}

/// `POST /dashboard/api-keys/recipient-check`: `allowed` is `on` or `off`; back to the page.
pub async fn switch_recipient_check(
    State(recipients): State<Recipients>,
    CsrfForm { ctx, form }: CsrfForm<SwitchForm>,
) -> Response {
    let allowed = match form.allowed.as_deref() {
        Some("on") => true,
        Some("off") => false,
        _ => return layout::forbidden(ctx.lang()),
    };
    if let Err(e) = recipients.set_allowed(&ctx.session.tenant, allowed).await {
        return layout::service_error(ctx.lang(), e);
    }
    (StatusCode::SEE_OTHER, [(LOCATION, "/dashboard/api-keys")]).into_response()
}

/// `POST /dashboard/api-keys/rotate`.
pub async fn rotate(State(merchants): State<Merchants>, CsrfForm { ctx, .. }: CsrfForm<NoFields>) -> Response {
    let (api_key, api_secret) = match merchants.rotate_secret(&ctx.session.tenant, Timestamp::now()).await {
        Ok(pair) => pair,
        Err(e) => return layout::service_error(ctx.lang(), e),
    };
    let t = ctx.t();
    let body = html! {
        dl.facts {
            dt { (t.environment) } dd { (ctx.session.tenant.environment.as_str()) }
            dt { (t.new_api_key) } dd { code #new-api-key { (api_key) } }
            dt { (t.api_secret) } dd { code #new-secret { (api_secret) } }
        }
        p { strong { (t.new_secret_once) } }
        p { a.button #sign-in-again href="/dashboard/login" { (t.sign_in_again) } }
    };
    let spec = Spec {
        title: t.api_keys,
        main_id: "page-api-keys",
        path: "/dashboard/api-keys",
    };
    // The header's forms still carry this (now ended) session's token; they lead to sign-in.
    let page = layout::page(&ctx, spec, Flash::Done(t.api_key_rotated.to_owned()), body);
    let mut response = html_response(StatusCode::OK, page);
    response
        .headers_mut()
        .append(SET_COOKIE, ctx.visitor.cookie(ctx.visitor.session_cookie(), "", 0));
    response
}
