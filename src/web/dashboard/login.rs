//! Sign-in and sign-out.
//!
//! Sign-in takes one environment's API key and secret; the session opens the environment the
//! key belongs to (a Sandbox key never opens Production). It is rate-limited like `/v1/auth`,
//! with the same buckets: per client address, then per API key. Its form has no session yet,
//! so its CSRF token is a double-submit cookie (`momo_login_csrf`) set with the form.

use std::net::SocketAddr;
use std::time::Instant;

use axum::extract::{ConnectInfo, State};
use axum::http::header::{LOCATION, RETRY_AFTER, SET_COOKIE};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Extension;
use maud::html;

use super::layout::{self, html_response, Flash, Spec};
use super::session::{cookie, Visitor, LOGIN_CSRF_COOKIE};
use crate::domain::{Environment, Timestamp};
use crate::http::client_address::client_address;
use crate::service::credentials::random_token;
use crate::service::rate_limit::retry_after_seconds;
use crate::service::{Dashboard, Gateway, ServiceError};
use crate::web::csrf::{CookieCsrfForm, CookieForm, CsrfForm, CsrfRefused, NoFields};

/// The sign-in page; `status` 401 after wrong credentials, 429 when limited.
fn login_page(visitor: &Visitor, status: StatusCode, flash: Flash) -> Response {
    let t = visitor.t();
    let lang = visitor.lang;
    // The token already set in this browser is kept, so two open sign-in pages both work.
    let csrf = cookie(&visitor.headers, LOGIN_CSRF_COOKIE)
        .filter(|c| c.len() == 32 && c.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'))
        .map(str::to_owned)
        .unwrap_or_else(random_token::<24>);
    let environment = visitor
        .query
        .get("environment")
        .and_then(|e| e.parse::<Environment>().ok());
    let spec = Spec {
        title: t.sign_in,
        main_id: "page-login",
        path: "/dashboard/login",
    };
    let body = html! {
        div.login {
            p { (t.sign_in_intro) }
            @if let Some(environment) = environment {
                p.hint #environment-hint { (t.sign_in_environment_hint) " " strong { (environment.as_str()) } }
            }
            form #login-form method="post" action="/dashboard/login" {
                input type="hidden" name="csrf_token" value=(csrf);
                div.field {
                    label for="api_key" { (t.api_key) }
                    input #api_key type="text" name="api_key" required autocomplete="username"
                        autocapitalize="none" spellcheck="false";
                }
                div.field {
                    label for="api_secret" { (t.api_secret) }
                    input #api_secret type="password" name="api_secret" required autocomplete="current-password";
                }
                button #login-submit type="submit" { (t.sign_in) }
            }
        }
    };
    let mut response = html_response(status, layout::public_page(lang, spec, flash, body));
    response
        .headers_mut()
        .append(SET_COOKIE, visitor.cookie(LOGIN_CSRF_COOKIE, &csrf, 3_600));
    visitor.remember(response)
}

pub async fn show(visitor: Visitor) -> Response {
    login_page(&visitor, StatusCode::OK, Flash::None)
}

/// Slows guessing with the limits of `/v1/auth` (`SignInLimits`), counted apart.
fn limited(gateway: &Gateway, address: Option<std::net::IpAddr>, api_key: &str) -> Option<std::time::Duration> {
    let limits = gateway.limits().sign_in.as_ref()?;
    let refused = limits.admit("dashboard", address, api_key, Instant::now()).err()?;
    gateway.metrics().rate_limited(refused.limit);
    Some(refused.wait)
}

/// The sign-in form: an API key and its secret, of either environment.
#[derive(serde::Deserialize)]
pub struct SignInForm {
    #[serde(default)]
    api_key: String,
    #[serde(default)]
    api_secret: String,
}

impl CookieForm for SignInForm {
    const COOKIE: &'static str = LOGIN_CSRF_COOKIE;
}

pub async fn submit(
    State(gateway): State<Gateway>,
    address: Option<Extension<ConnectInfo<SocketAddr>>>,
    headers: HeaderMap,
    visitor: Visitor,
    form: Result<CookieCsrfForm<SignInForm>, CsrfRefused>,
) -> Response {
    let lang = visitor.lang;
    let Ok(CookieCsrfForm(form)) = form else {
        return layout::forbidden(lang);
    };
    let (api_key, api_secret) = (form.api_key.trim(), form.api_secret.trim());
    let trusted = &gateway.config().http.trusted_proxies;
    let client = address.map(|peer| client_address(peer.0 .0.ip(), &headers, trusted));
    if let Some(wait) = limited(&gateway, client, api_key) {
        let mut response = login_page(
            &visitor,
            StatusCode::TOO_MANY_REQUESTS,
            Flash::Failed(visitor.t().too_many_attempts.to_owned()),
        );
        if let Ok(value) = HeaderValue::from_str(&retry_after_seconds(wait).to_string()) {
            response.headers_mut().insert(RETRY_AFTER, value);
        }
        return response;
    }
    let wrong = || {
        gateway.metrics().auth_failure("dashboard");
        if let Some(limits) = &gateway.limits().sign_in {
            limits.failed("dashboard", client, api_key, Instant::now());
        }
        login_page(
            &visitor,
            StatusCode::UNAUTHORIZED,
            Flash::Failed(visitor.t().wrong_credentials.to_owned()),
        )
    };
    if api_key.is_empty() || api_secret.is_empty() || api_key.chars().chain(api_secret.chars()).any(char::is_control) {
        return wrong();
    }
    let signed_in = match gateway
        .dashboard
        .dashboard_sign_in(api_key, api_secret, Timestamp::now())
        .await
    {
        Ok(signed_in) => signed_in,
        Err(ServiceError::Unauthorized(_)) => return wrong(),
        Err(e) => return layout::service_error(lang, e),
    };
    // A session this browser had before (the other environment's) ends now.
    if let Some(previous) = cookie(&headers, visitor.session_cookie()) {
        if let Err(e) = gateway.dashboard.dashboard_sign_out(previous).await {
            tracing::warn!(error = %e, "dashboard: the previous session could not be ended");
        }
    }
    let lifetime = gateway.config().dashboard.session_max.as_secs();
    let mut response = (StatusCode::SEE_OTHER, [(LOCATION, "/dashboard")]).into_response();
    let headers = response.headers_mut();
    headers.append(
        SET_COOKIE,
        visitor.cookie(visitor.session_cookie(), &signed_in.token, lifetime),
    );
    headers.append(SET_COOKIE, visitor.cookie(LOGIN_CSRF_COOKIE, "", 0));
    visitor.remember(response)
}

/// Ends the session, then to the sign-in page.
pub async fn logout(State(dashboard): State<Dashboard>, CsrfForm { ctx, .. }: CsrfForm<NoFields>) -> Response {
    if let Err(e) = dashboard.dashboard_sign_out(ctx.token()).await {
        return layout::service_error(ctx.lang(), e);
    }
    signed_out(&ctx.visitor)
}

/// 303 to the sign-in page, the session cookie deleted.
pub fn signed_out(visitor: &Visitor) -> Response {
    let mut response = (StatusCode::SEE_OTHER, [(LOCATION, "/dashboard/login")]).into_response();
    response
        .headers_mut()
        .append(SET_COOKIE, visitor.cookie(visitor.session_cookie(), "", 0));
    response
}
