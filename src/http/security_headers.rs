//! The headers that keep a browser from misusing an answer: what every HTML page carries (the
//! dashboard's and the payer's BETA page), and HSTS on every answer when the gateway is
//! reached over https.

use axum::http::header::{
    CACHE_CONTROL, CONTENT_SECURITY_POLICY, REFERRER_POLICY, STRICT_TRANSPORT_SECURITY, X_CONTENT_TYPE_OPTIONS,
};
use axum::http::{HeaderMap, HeaderValue};
use axum::Router;
use tower_http::set_header::SetResponseHeaderLayer;

/// What every page forbids: scripts of any origin, being framed (clickjacking the buttons),
/// forms posting elsewhere; only its own inline style and SVG.
const PAGE_POLICY: &str = "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; \
     form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/// A year: browsers keep to https for that long after any answer, renewed by each.
const HSTS: &str = "max-age=31536000";

/// Sets the page headers on an HTML answer. `form_targets` are the origins (`https://shop.ci`)
/// a form's answer may redirect to beside this one: browsers hold a form's redirect to
/// `form-action` too, so the payer's page names its merchant's return URLs there.
pub fn page_headers(headers: &mut HeaderMap, form_targets: &[String]) {
    let policy = if form_targets.is_empty() {
        HeaderValue::from_static(PAGE_POLICY)
    } else {
        let policy = PAGE_POLICY.replace(
            "form-action 'self'",
            &format!("form-action 'self' {}", form_targets.join(" ")),
        );
        // An origin is a serialized scheme, host and port: nothing a header refuses.
        HeaderValue::from_str(&policy).unwrap_or(HeaderValue::from_static(PAGE_POLICY))
    };
    headers.insert(CONTENT_SECURITY_POLICY, policy);
    // Pages show balances, secrets and payments: never kept by a shared cache or the back
    // button's cache.
    headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    // A page's address may hold a secret (the payer's launch token): it never leaves the host.
    headers.insert(REFERRER_POLICY, HeaderValue::from_static("same-origin"));
}

/// How the gateway is reached, from its public URL (`MOMO_PUBLIC_URL`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transport {
    Http,
    Https,
}

impl Transport {
    pub fn of(public_url: &str) -> Transport {
        if public_url.starts_with("https://") {
            Transport::Https
        } else {
            Transport::Http
        }
    }
}

/// `router` with `Strict-Transport-Security` on every answer when it is reached over https:
/// a browser that once reached it keeps to https, whatever a link or a typed address says.
/// Over plain http the header would be ignored and a promise the gateway cannot keep.
pub fn with_hsts(router: Router, transport: Transport) -> Router {
    match transport {
        Transport::Http => router,
        Transport::Https => router.layer(SetResponseHeaderLayer::overriding(
            STRICT_TRANSPORT_SECURITY,
            HeaderValue::from_static(HSTS),
        )),
    }
}
