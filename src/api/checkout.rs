//! The BETA launch page: where a payer approves or declines a Sandbox BETA collection served by
//! the simulator (in Production the payer approves with the operator).
//!
//! `GET /checkout/{token}` shows the merchant, the amount and two buttons; the buttons post to
//! `/checkout/{token}/approve` or `/decline`, which settle the transaction first and then send
//! the payer (303) to the merchant's `urlSuccess` / `errorUrl`, or show the result. The token is
//! random and stored with the transaction: holding the reference (merchants, webhook receivers,
//! logs) is not enough to approve a payment.

use axum::extract::{Path, State};
use axum::http::header::LOCATION;
use axum::http::{HeaderValue, StatusCode};
use axum::response::{Html, IntoResponse, Response};
use maud::{html, Markup, DOCTYPE};

use super::error::{ApiError, Dialect, ErrorKind};

use crate::domain::{Status, Timestamp, TransactionRecord};
use crate::service::{CheckoutPayment, PayerDecision, Payments, ServiceError};

fn not_found() -> Response {
    ApiError::new(ErrorKind::NotFound, "no payment waits for approval at this address").render(Dialect::V1)
}

/// Errors answer in the v1 envelope, as every answer outside both prefixes does (DECISIONS):
/// only the page itself is HTML.
fn failure(e: ServiceError) -> Response {
    match e {
        ServiceError::NotFound(_) => not_found(),
        other => ApiError::from(other).render(Dialect::V1),
    }
}

/// A page: every text in `body` is escaped by maud, so what a merchant named itself cannot
/// become markup on the payer's screen. It carries the dashboard's headers (no framing of the
/// buttons, no sniffing, no referrer); its forms may lead on to `form_targets`.
fn page(title: &str, form_targets: &[String], body: Markup) -> Response {
    let html = html! {
        (DOCTYPE)
        html lang="fr" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width";
                title { (title) }
                style { "body{font-family:sans-serif;max-width:28em;margin:3em auto;padding:0 1em}\
                         button{font-size:1.1em;padding:.6em 1.4em;margin-right:1em}" }
            }
            body { (body) }
        }
    };
    let mut response = Html(html.into_string()).into_response();
    crate::http::security_headers::page_headers(response.headers_mut(), form_targets);
    response
}

/// The origins of the payment's return URLs, where approving or declining sends the payer.
fn return_origins(record: &TransactionRecord) -> Vec<String> {
    let t = &record.transaction;
    crate::net::origins(
        [t.purpose.return_url(true), t.purpose.return_url(false)]
            .into_iter()
            .flatten(),
    )
}

fn result_page(record: &TransactionRecord) -> Response {
    let text = match record.transaction.status {
        Status::Successful => "Payment approved. You can close this page.",
        Status::Failed => "Payment declined or failed. You can close this page.",
        Status::Pending => "Payment pending.",
    };
    page("BETA Money", &[], html! { h1 { "BETA Money" } p { (text) } })
}

pub async fn show(State(payments): State<Payments>, Path(token): Path<String>) -> Response {
    let CheckoutPayment {
        record,
        merchant_name: merchant,
    } = match payments.checkout_payment(&token).await {
        Ok(payment) => payment,
        Err(e) => return failure(e),
    };
    if record.transaction.status != Status::Pending {
        return result_page(&record);
    }
    let t = &record.transaction;
    page(
        "BETA Money: approve the payment",
        &return_origins(&record),
        html! {
            h1 { "BETA Money" }
            p {
                strong { (merchant) } " asks you to pay " strong { (t.amounts.amount_total) " XOF" }
                " from the number ending " (t.phone.last_two_digits()) "."
            }
            p { "Reference " (t.reference) }
            form method="post" action={ "/checkout/" (token) "/approve" } style="display:inline" {
                button { "Approve" }
            }
            form method="post" action={ "/checkout/" (token) "/decline" } style="display:inline" {
                button { "Decline" }
            }
        },
    )
}

pub async fn approve(State(payments): State<Payments>, Path(token): Path<String>) -> Response {
    decide(payments, token, PayerDecision::Approve).await
}

pub async fn decline(State(payments): State<Payments>, Path(token): Path<String>) -> Response {
    decide(payments, token, PayerDecision::Decline).await
}

async fn decide(payments: Payments, token: String, decision: PayerDecision) -> Response {
    let settled = match payments.decide_checkout(&token, decision, Timestamp::now()).await {
        Ok(settled) => settled,
        Err(e) => return failure(e),
    };
    let target = match settled.transaction.status {
        Status::Successful => settled.transaction.purpose.return_url(true).map(str::to_owned),
        Status::Failed => settled.transaction.purpose.return_url(false).map(str::to_owned),
        Status::Pending => None,
    };
    match target.as_deref().and_then(location) {
        Some(location) => (StatusCode::SEE_OTHER, [(LOCATION, location)]).into_response(),
        None => result_page(&settled),
    }
}

/// The merchant's return URL as a header, in its serialized form (ASCII, percent-encoded): the
/// payment is settled already, so a URL stored before control characters were refused shows
/// the result page instead of failing the payer with a 500.
fn location(url: &str) -> Option<HeaderValue> {
    let parsed = reqwest::Url::parse(url).ok()?;
    HeaderValue::from_str(parsed.as_str()).ok()
}
