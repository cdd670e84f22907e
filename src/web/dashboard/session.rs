//! Who is looking at a dashboard page: the language, and for every page but sign-in the
//! session behind the `momo_session` cookie, `__Host-momo_session` over https (no valid
//! session: 303 to the sign-in page). POST handlers check the form's `csrf_token` against the
//! session before doing anything.

use std::collections::HashMap;

use axum::extract::{FromRequestParts, Query};
use axum::http::header::{COOKIE, LOCATION, SET_COOKIE};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};

use super::i18n::{Lang, Text};
use super::layout;
use crate::domain::{DashboardSession, Timestamp};
use crate::http::security_headers::Transport;
use crate::service::{Dashboard, Gateway};

/// The session cookie's name over plain http.
pub const SESSION_COOKIE: &str = "momo_session";
/// Its name over https: a browser takes a `__Host-` cookie only when it is Secure, for the
/// whole host (`Path=/`) and without `Domain`, so neither a sibling subdomain nor an answer
/// over plain http can plant a session of its choosing. Browsers refuse it without Secure,
/// hence the plain name over http.
pub const HOST_SESSION_COOKIE: &str = "__Host-momo_session";
pub const LANG_COOKIE: &str = "momo_lang";
/// The double-submit cookie of the sign-in form, which has no session to derive a token from.
pub const LOGIN_CSRF_COOKIE: &str = "momo_login_csrf";

/// The value of cookie `name`, if the request carries it.
pub fn cookie<'h>(headers: &'h HeaderMap, name: &str) -> Option<&'h str> {
    headers
        .get_all(COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(key, _)| *key == name)
        .map(|(_, value)| value.trim())
}

/// A `Set-Cookie` value scoped to the dashboard (a `__Host-` cookie to the host, as its prefix
/// requires): HttpOnly, SameSite=Strict, and Secure when the gateway is served over https
/// (`MOMO_PUBLIC_URL`). `max_age` 0 deletes it.
fn set_cookie(secure: bool, name: &str, value: &str, max_age_s: u64) -> HeaderValue {
    let secure = if secure { "; Secure" } else { "" };
    let path = if name.starts_with("__Host-") { "/" } else { "/dashboard" };
    let text = format!("{name}={value}; HttpOnly; SameSite=Strict; Path={path}; Max-Age={max_age_s}{secure}");
    HeaderValue::from_str(&text).unwrap_or_else(|_| HeaderValue::from_static("momo_invalid=; Max-Age=0"))
}

/// The language and query of a request: `?lang=` first (and then remembered), else the cookie.
pub struct Visitor {
    pub lang: Lang,
    /// Set when `?lang=` chose the language: the answer remembers it in a cookie.
    pub chosen: bool,
    pub query: HashMap<String, String>,
    pub headers: HeaderMap,
    /// Whether the gateway is served over https, so its cookies are `Secure`.
    secure: bool,
}

impl Visitor {
    fn of(parts: &Parts, gateway: &Gateway) -> Visitor {
        let query: HashMap<String, String> = Query::<HashMap<String, String>>::try_from_uri(&parts.uri)
            .map(|q| q.0)
            .unwrap_or_default();
        let asked = query.get("lang").and_then(|l| Lang::parse(l));
        let remembered = cookie(&parts.headers, LANG_COOKIE).and_then(Lang::parse);
        Visitor {
            lang: asked.or(remembered).unwrap_or(Lang::Fr),
            chosen: asked.is_some(),
            query,
            headers: parts.headers.clone(),
            secure: Transport::of(&gateway.config().public_url) == Transport::Https,
        }
    }

    pub fn t(&self) -> &'static Text {
        self.lang.text()
    }

    /// The session cookie's name where this gateway is served: `__Host-momo_session` over
    /// https, `momo_session` otherwise.
    pub fn session_cookie(&self) -> &'static str {
        if self.secure {
            HOST_SESSION_COOKIE
        } else {
            SESSION_COOKIE
        }
    }

    /// A `Set-Cookie` value for this visitor (see [`set_cookie`]); `max_age` 0 deletes it.
    pub fn cookie(&self, name: &str, value: &str, max_age_s: u64) -> HeaderValue {
        set_cookie(self.secure, name, value, max_age_s)
    }

    /// `response` with the language cookie when `?lang=` chose it.
    pub fn remember(&self, mut response: Response) -> Response {
        if self.chosen {
            let value = self.cookie(LANG_COOKIE, self.lang.code(), 365 * 86_400);
            response.headers_mut().append(SET_COOKIE, value);
        }
        response
    }
}

impl FromRequestParts<Gateway> for Visitor {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, gateway: &Gateway) -> Result<Self, Self::Rejection> {
        Ok(Visitor::of(parts, gateway))
    }
}

/// A signed-in merchant: its session, the cookie's token (to derive the CSRF token), and the
/// language.
pub struct Ctx {
    pub visitor: Visitor,
    pub session: DashboardSession,
    token: String,
    pub csrf: String,
    /// Checks the form's CSRF token against the session's.
    dashboard: Dashboard,
}

impl Ctx {
    pub fn t(&self) -> &'static Text {
        self.visitor.t()
    }

    pub fn lang(&self) -> Lang {
        self.visitor.lang
    }

    /// Whether `presented` is this session's CSRF token (constant-time comparison); asked by
    /// the form extractors of `web::csrf` only.
    pub(in crate::web) fn csrf_matches(&self, presented: &str) -> bool {
        self.dashboard.dashboard_csrf_matches(&self.token, presented)
    }

    /// `response` with the language cookie when `?lang=` chose it.
    pub fn remember(&self, response: Response) -> Response {
        self.visitor.remember(response)
    }

    /// The session cookie's token, for sign-out.
    pub fn token(&self) -> &str {
        &self.token
    }
}

/// Not signed in (or the session ended): to the sign-in page; the database failing: an error
/// page.
pub enum NoSession {
    SignIn,
    Unavailable(Lang),
}

impl IntoResponse for NoSession {
    fn into_response(self) -> Response {
        match self {
            NoSession::SignIn => (
                StatusCode::SEE_OTHER,
                [(LOCATION, HeaderValue::from_static("/dashboard/login"))],
            )
                .into_response(),
            NoSession::Unavailable(lang) => layout::unavailable(lang),
        }
    }
}

impl FromRequestParts<Gateway> for Ctx {
    type Rejection = NoSession;

    async fn from_request_parts(parts: &mut Parts, gateway: &Gateway) -> Result<Self, Self::Rejection> {
        let visitor = Visitor::of(parts, gateway);
        let lang = visitor.lang;
        let token = cookie(&parts.headers, visitor.session_cookie())
            .ok_or(NoSession::SignIn)?
            .to_owned();
        let session = match gateway.dashboard.dashboard_session(&token, Timestamp::now()).await {
            Ok(Some(session)) => session,
            Ok(None) => return Err(NoSession::SignIn),
            Err(e) => {
                tracing::warn!(error = %e, "dashboard session lookup failed");
                return Err(NoSession::Unavailable(lang));
            }
        };
        tracing::Span::current().record("merchant", session.tenant.merchant_id.as_str());
        let csrf = gateway.dashboard.dashboard_csrf_token(&token);
        Ok(Ctx {
            visitor,
            session,
            token,
            csrf,
            dashboard: gateway.dashboard.clone(),
        })
    }
}
