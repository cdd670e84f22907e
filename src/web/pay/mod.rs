//! The payer's page of a payment link (docs/payment-links.md): `GET /pay/{id}` shows who is
//! paid, for what, and a form (operator, number, the amount of an open link, ALPHA's one-time
//! code); `POST /pay/{id}` starts the collection and sends the payer (303) to the payment's
//! status page, `GET /pay/{id}/payments/{ref}/{token}`, which follows it without a script
//! until it is final, then sends the payer to the link's return URL or shows the result. A BETA
//! payment goes on from there to the page where its payer approves.
//!
//! The form carries a double-submit CSRF token (a cookie and a field that must match), since a
//! payer has no session. Each link and each client address start only so many payments a minute
//! (`MOMO_LINK_PAYMENTS_PER_MIN`, `MOMO_LINK_PAYMENTS_PER_ADDRESS_PER_MIN`). A status page's
//! token is a keyed hash of the link and the payment, so a payer sees only their own payment.
//! An unknown or closed link answers a plain page; every answer is a page, never an error trace.

mod page;
mod words;

use std::collections::HashMap;
use std::net::SocketAddr;
use std::time::Instant;

use axum::extract::{ConnectInfo, Path, Query, State};
use axum::http::header::{LOCATION, RETRY_AFTER, SET_COOKIE};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Extension, Router};

use self::page::Filled;
use self::words::Words;
use super::csrf::{CookieCsrfForm, CookieForm, CsrfRefused};
use super::dashboard::session::cookie;
use crate::domain::{Amount, LinkAmount, LinkClosed, LinkId, Msisdn, OperatorCode, Reference, Status, Timestamp};
use crate::http::client_address::client_address;
use crate::http::security_headers::Transport;
use crate::service::rate_limit::{address_group, retry_after_seconds};
use crate::service::{Gateway, LinkPayment, LinkPaymentError, Links, PublicLink, ServiceError};

/// The double-submit cookie of the payer's form.
const CSRF_COOKIE: &str = "momo_pay_csrf";

pub fn routes() -> Router<Gateway> {
    Router::new()
        .route("/pay/{id}", get(show).post(submit))
        .route("/pay/{id}/payments/{reference}/{token}", get(status))
}

type Lang = Query<HashMap<String, String>>;

fn words(query: &Lang) -> &'static Words {
    Words::of(query.get("lang").map(String::as_str))
}

/// The link behind `raw`, or the plain page saying it is unknown.
async fn find(links: &Links, w: &Words, raw: &str) -> Result<PublicLink, Response> {
    let unknown = || page::plain(w, StatusCode::NOT_FOUND, w.unknown_title, w.unknown);
    let Some(id) = LinkId::parse(raw) else {
        return Err(unknown());
    };
    match links.public_link(&id).await {
        Ok(Some(found)) => Ok(found),
        Ok(None) => Err(unknown()),
        Err(e) => Err(failure(w, e)),
    }
}

fn failure(w: &Words, e: ServiceError) -> Response {
    match e {
        ServiceError::NotFound(_) => page::plain(w, StatusCode::NOT_FOUND, w.unknown_title, w.unknown),
        other => {
            tracing::warn!(error = %other, "a payment link's page could not be served");
            page::plain(w, StatusCode::SERVICE_UNAVAILABLE, w.pending_title, w.unavailable)
        }
    }
}

/// The form's CSRF token: the one the payer's cookie holds, else a new one to set.
fn csrf(headers: &HeaderMap) -> (String, bool) {
    match cookie(headers, CSRF_COOKIE).filter(|t| t.len() == 32) {
        Some(token) => (token.to_owned(), false),
        None => (crate::service::credentials::random_token::<24>(), true),
    }
}

fn with_csrf_cookie(gateway: &Gateway, mut response: Response, token: &str) -> Response {
    let secure = if Transport::of(&gateway.config().public_url) == Transport::Https {
        "; Secure"
    } else {
        ""
    };
    let text = format!("{CSRF_COOKIE}={token}; HttpOnly; SameSite=Strict; Path=/pay; Max-Age=86400{secure}");
    if let Ok(value) = HeaderValue::from_str(&text) {
        response.headers_mut().append(SET_COOKIE, value);
    }
    response
}

pub async fn show(
    State(gateway): State<Gateway>,
    State(links): State<Links>,
    Path(raw): Path<String>,
    query: Lang,
    headers: HeaderMap,
) -> Response {
    let w = words(&query);
    let found = match find(&links, w, &raw).await {
        Ok(found) => found,
        Err(page) => return page,
    };
    if let Err(closed) = found.link.open_at(Timestamp::now()) {
        return closed_page(&gateway, w, closed);
    }
    let (token, new) = csrf(&headers);
    let form = page::form(
        w,
        StatusCode::OK,
        &found.merchant_name,
        &found.link,
        &token,
        &Filled::default(),
        None,
    );
    if new {
        with_csrf_cookie(&gateway, form, &token)
    } else {
        form
    }
}

/// The page of a link that takes no payment now: 410, or 409 with `Retry-After` while its
/// every place is held by payments still pending, which free it if they expire
/// (`MOMO_LINK_PAYMENT_TTL_S`).
fn closed_page(gateway: &Gateway, w: &'static Words, closed: LinkClosed) -> Response {
    if closed != LinkClosed::Busy {
        return page::plain(w, StatusCode::GONE, w.closed_title, w.closed(closed));
    }
    let hold = gateway.config().reconcile.collection_lifetime(true);
    let minutes = hold.as_secs().div_ceil(60).max(1);
    let text = w.closed(closed).replace("{minutes}", &minutes.to_string());
    let mut response = page::plain(w, StatusCode::CONFLICT, w.busy_title, &text);
    if let Ok(value) = HeaderValue::from_str(&hold.as_secs().max(1).to_string()) {
        response.headers_mut().insert(RETRY_AFTER, value);
    }
    response
}

/// Whether this link, this address and this payer number may start a payment now; else how
/// long to wait. An address counts by its group (an IPv6 one by its /64); a number is limited
/// whoever types it, so a stranger cannot have it sent prompts under the merchant's name.
fn admitted(
    gateway: &Gateway,
    link: &LinkId,
    address: Option<std::net::IpAddr>,
    phone: &Msisdn,
) -> Result<(), std::time::Duration> {
    let limits = gateway.limits();
    let now = Instant::now();
    if let (Some(payers), Some(address)) = (&limits.link_payers, address) {
        payers.take(address_group(address), now)?;
    }
    if let Some(numbers) = &limits.link_numbers {
        numbers.take(phone.as_str(), now)?;
    }
    if let Some(per_link) = &limits.link_payments {
        per_link.take(link.as_str(), now)?;
    }
    Ok(())
}

/// The payer's form; every field may be blank.
#[derive(serde::Deserialize)]
pub struct PayForm {
    #[serde(default)]
    operator: String,
    #[serde(default)]
    phone: String,
    #[serde(default)]
    amount: String,
    #[serde(default)]
    otp_code: String,
}

impl CookieForm for PayForm {
    const COOKIE: &'static str = CSRF_COOKIE;
}

pub async fn submit(
    State(gateway): State<Gateway>,
    State(links): State<Links>,
    Path(raw): Path<String>,
    query: Lang,
    address: Option<Extension<ConnectInfo<SocketAddr>>>,
    headers: HeaderMap,
    form: Result<CookieCsrfForm<PayForm>, CsrfRefused>,
) -> Response {
    let w = words(&query);
    let found = match find(&links, w, &raw).await {
        Ok(found) => found,
        Err(page) => return page,
    };
    let link = &found.link;
    let Ok(CookieCsrfForm(form)) = form else {
        return page::plain(w, StatusCode::FORBIDDEN, w.closed_title, w.expired_form);
    };
    // The token the form was checked against, for the form served again.
    let expected = cookie(&headers, CSRF_COOKIE).unwrap_or("");
    if let Err(closed) = link.open_at(Timestamp::now()) {
        return closed_page(&gateway, w, closed);
    }
    let filled = Filled {
        operator: form.operator.trim().to_owned(),
        phone: form.phone.trim().to_owned(),
        amount: form.amount.trim().to_owned(),
    };
    let refuse = |error: &str| {
        page::form(
            w,
            StatusCode::BAD_REQUEST,
            &found.merchant_name,
            link,
            expected,
            &filled,
            Some(error),
        )
    };
    let Some(operator) = OperatorCode::from_name(&filled.operator).filter(|o| link.accepts_operator(*o)) else {
        return refuse(w.bad_operator);
    };
    let Ok(phone) = Msisdn::parse(&filled.phone) else {
        return refuse(w.bad_phone);
    };
    let amount = match link.terms.amount {
        LinkAmount::Fixed(_) => None,
        LinkAmount::Open { .. } => {
            let typed: String = filled.amount.chars().filter(|c| !c.is_whitespace()).collect();
            match Amount::parse_text(&typed) {
                Ok(amount) if link.terms.amount.accepts(amount.francs()) => Some(amount),
                _ => return refuse(w.bad_amount),
            }
        }
    };
    let otp_code = match form.otp_code.trim() {
        "" => None,
        code if code.chars().count() <= 16 && code.chars().all(|c| c.is_ascii_alphanumeric()) => Some(code.to_owned()),
        _ => return refuse(w.bad_otp),
    };
    let trusted = &gateway.config().http.trusted_proxies;
    let client = address.map(|peer| client_address(peer.0 .0.ip(), &headers, trusted));
    if let Err(wait) = admitted(&gateway, &link.id, client, &phone) {
        gateway.metrics().rate_limited("payment_link");
        let mut response = page::plain(w, StatusCode::TOO_MANY_REQUESTS, w.pending_title, w.too_many);
        if let Ok(value) = HeaderValue::from_str(&retry_after_seconds(wait).to_string()) {
            response.headers_mut().insert(RETRY_AFTER, value);
        }
        return response;
    }
    let payment = LinkPayment {
        operator,
        phone,
        phone_as_sent: filled.phone.clone(),
        amount,
        otp_code,
    };
    let record = match links.pay_link(link, payment, Timestamp::now()).await {
        Ok(record) => record,
        Err(LinkPaymentError::Failed(record)) => *record,
        Err(LinkPaymentError::Closed(closed)) => return closed_page(&gateway, w, closed),
        Err(LinkPaymentError::NotOffered(_)) => return refuse(w.bad_operator),
        Err(LinkPaymentError::Service(ServiceError::Invalid(_))) => return refuse(w.bad_amount),
        Err(LinkPaymentError::Service(e)) => return failure(w, e),
    };
    let reference = &record.transaction.reference;
    let target = format!(
        "/pay/{}/payments/{reference}/{}?lang={}",
        link.id,
        links.status_token(&link.id, reference),
        w.lang
    );
    (StatusCode::SEE_OTHER, [(LOCATION, target)]).into_response()
}

pub async fn status(
    State(links): State<Links>,
    Path((raw, reference, token)): Path<(String, String, String)>,
    query: Lang,
) -> Response {
    let w = words(&query);
    let unknown = || page::plain(w, StatusCode::NOT_FOUND, w.unknown_title, w.unknown);
    let Some(id) = LinkId::parse(&raw) else {
        return unknown();
    };
    let reference = Reference::from(reference.as_str());
    let record = match links.payment(&id, &reference, &token).await {
        Ok(Some(record)) => record,
        Ok(None) => return unknown(),
        Err(e) => return failure(w, e),
    };
    let t = &record.transaction;
    let back = match t.status {
        Status::Successful => t.purpose.return_url(true),
        Status::Failed => t.purpose.return_url(false),
        Status::Pending => None,
    };
    if let Some(location) = back.and_then(|url| reqwest::Url::parse(url).ok()) {
        if let Ok(value) = HeaderValue::from_str(location.as_str()) {
            return (StatusCode::SEE_OTHER, [(LOCATION, value)]).into_response();
        }
    }
    let here = format!("/pay/{id}/payments/{reference}/{token}?lang={}", w.lang);
    let payer_page = links.payer_page(&record);
    page::status(w, id.as_str(), &record, &here, payer_page.as_deref())
}
