//! `GET /dashboard/api-keys`: the environment's API key, and its rotation. Rotating revokes
//! the old key with its tokens and every dashboard session opened with it, this one
//! included: the answer shows the new key and secret once, then the merchant signs in again.

use axum::extract::State;
use axum::http::header::SET_COOKIE;
use axum::http::StatusCode;
use axum::response::Response;
use maud::html;

use super::layout::{self, html_response, Flash, Spec};
use super::session::{fields, Ctx, FormFields};
use crate::domain::Timestamp;
use crate::service::{Dashboard, Merchants};

pub async fn show(State(dashboard): State<Dashboard>, ctx: Ctx) -> Response {
    let api_key = match dashboard.dashboard_api_key(&ctx.session).await {
        Ok(key) => key,
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
    };
    let spec = Spec {
        title: t.api_keys,
        main_id: "page-api-keys",
        path: "/dashboard/api-keys",
    };
    let page = layout::page(&ctx, spec, Flash::None, body);
    ctx.remember(html_response(StatusCode::OK, page))
}

/// `POST /dashboard/api-keys/rotate`.
pub async fn rotate(State(merchants): State<Merchants>, ctx: Ctx, form: FormFields) -> Response {
    if !ctx.csrf_ok(&fields(form)) {
        return layout::forbidden(ctx.lang());
    }
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
