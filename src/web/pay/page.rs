//! The payer's pages, rendered: the link's form, the payment's status, and the plain pages of a
//! link that is unknown or closed. Every text is escaped by maud, so what a merchant wrote in a
//! description cannot become markup on a payer's screen. Sized for a phone (a single column,
//! large targets), labelled fields in reading order, the dashboard's contrast.

use axum::http::{HeaderValue, StatusCode};
use axum::response::{Html, IntoResponse, Response};
use maud::{html, Markup, PreEscaped, DOCTYPE};

use super::words::Words;
use crate::domain::{LinkAmount, PaymentLink, Status, TransactionRecord};

const STYLE: &str = "body{font-family:system-ui,sans-serif;max-width:26em;margin:1.5em auto;padding:0 1em;\
    color:#1a1a1a;background:#fff;line-height:1.45}\
    h1{font-size:1.4em}label{display:block;font-weight:600;margin-top:1em}\
    input,button{font-size:1.1em;width:100%;box-sizing:border-box;padding:.6em;margin-top:.3em}\
    fieldset{border:1px solid #767676;margin-top:1em}fieldset label{font-weight:400;margin:.4em 0}\
    fieldset input{width:auto;margin-right:.5em}\
    button{background:#0b57d0;color:#fff;border:0;border-radius:.3em;margin-top:1.4em;cursor:pointer}\
    .hint{color:#4a4a4a;font-size:.9em;margin:.2em 0 0}.amount{font-size:1.6em;font-weight:700}\
    #error{color:#a50e0e;font-weight:600;border-left:.3em solid #a50e0e;padding-left:.6em}\
    nav{text-align:right;font-size:.9em}a{color:#0b57d0}";

/// A whole page, with the dashboard's headers (no framing, no sniffing, no referrer).
/// `refresh`: seconds and target of a `<meta http-equiv="refresh">`, which follows the payment
/// without a script.
/// Its form, if any, may lead the browser on to `form_targets` (origins) beside the gateway.
pub fn page(
    w: &Words,
    status: StatusCode,
    title: &str,
    refresh: Option<(u32, &str)>,
    form_targets: &[String],
    body: Markup,
) -> Response {
    let html = html! {
        (DOCTYPE)
        html lang=(w.lang) {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                @if let Some((seconds, url)) = refresh {
                    meta http-equiv="refresh" content={ (seconds) "; url=" (url) };
                }
                title { (title) }
                style { (PreEscaped(STYLE)) }
            }
            body { main #pay { (body) } }
        }
    };
    let mut response = (status, Html(html.into_string())).into_response();
    crate::http::security_headers::page_headers(response.headers_mut(), form_targets);
    response
        .headers_mut()
        .insert("cache-control", HeaderValue::from_static("no-store"));
    response
}

/// A page that only says something: an unknown or closed link, a refusal.
pub fn plain(w: &Words, status: StatusCode, title: &str, text: &str) -> Response {
    page(
        w,
        status,
        title,
        None,
        &[],
        html! { h1 { (title) } p #message { (text) } },
    )
}

/// What the form was filled with, to show it again with an error.
#[derive(Debug, Default, Clone)]
pub struct Filled {
    pub operator: String,
    pub phone: String,
    pub amount: String,
}

use crate::web::grouped as money;

/// The link's form. `action` is where it posts (with the language); `error` is shown above it.
pub fn form(
    w: &Words,
    status: StatusCode,
    merchant: &str,
    link: &PaymentLink,
    csrf: &str,
    filled: &Filled,
    error: Option<&str>,
) -> Response {
    let id = link.id.as_str();
    let action = format!("/pay/{id}?lang={}", w.lang);
    let body = html! {
        nav { a #switch-language href={ "/pay/" (id) "?lang=" (w.other.0) } lang=(w.other.0) { (w.other.1) } }
        p { (w.pay_to) }
        h1 #merchant { (merchant) }
        p #description { (link.terms.description) }
        @if let Some(error) = error {
            p #error role="alert" { (error) }
        }
        form method="post" action=(action) {
            input type="hidden" name="csrf_token" value=(csrf);
            @match link.terms.amount {
                LinkAmount::Fixed(amount) => {
                    p.amount #amount { (money(amount)) " XOF" }
                }
                LinkAmount::Open { min, max } => {
                    label for="amount" { (w.amount) }
                    input #amount name="amount" type="text" inputmode="numeric" required
                        value=(filled.amount) aria-describedby="amount-hint";
                    p.hint #amount-hint {
                        (w.amount_hint.replace("{min}", &money(min)).replace("{max}", &money(max)))
                    }
                }
            }
            fieldset {
                legend { (w.operator) }
                @for op in &link.terms.operators {
                    label {
                        input type="radio" name="operator" value=(op.name()) required
                            checked[filled.operator == op.name() || link.terms.operators.len() == 1];
                        (op.name())
                    }
                }
            }
            label for="phone" { (w.phone) }
            input #phone name="phone" type="tel" inputmode="tel" autocomplete="tel" required
                value=(filled.phone) aria-describedby="phone-hint";
            p.hint #phone-hint { (w.phone_hint) }
            @if link.terms.operators.iter().any(|o| o.name() == "ALPHA") {
                label for="otp_code" { (w.otp) }
                input #otp_code name="otp_code" type="text" inputmode="numeric" autocomplete="one-time-code"
                    aria-describedby="otp-hint";
                p.hint #otp-hint { (w.otp_hint) }
            }
            button #pay-submit type="submit" { (w.pay) }
        }
    };
    // A payment that succeeds or fails at once sends the payer on to the link's return URL as
    // the answer to this form: browsers hold that redirect to `form-action` too.
    let returns = crate::net::origins(
        [&link.terms.success_url, &link.terms.error_url]
            .into_iter()
            .flatten()
            .map(String::as_str),
    );
    page(w, status, &format!("{} · {merchant}", w.pay), None, &returns, body)
}

/// Where a payment stands, for its payer. Pending: the page reloads itself every few seconds
/// (or goes on at once to the operator's page where the payer approves).
pub fn status(w: &Words, link_id: &str, record: &TransactionRecord, here: &str, payer_page: Option<&str>) -> Response {
    let t = &record.transaction;
    let reference = html! { p { (w.reference) " " strong #reference { (t.reference) } } };
    let amount = html! { p.amount #amount { (money(t.amounts.amount.get())) " XOF" } };
    match t.status {
        Status::Pending => {
            let refresh = match payer_page {
                Some(url) => (0, url),
                None => (3, here),
            };
            page(
                w,
                StatusCode::OK,
                w.pending_title,
                Some(refresh),
                &[],
                html! {
                    h1 #state data-status="PENDING" { (w.pending_title) }
                    (amount)
                    p { (w.pending) }
                    @if let Some(url) = payer_page {
                        p { a #go-on href=(url) { (w.go_on) } }
                    }
                    (reference)
                },
            )
        }
        Status::Successful => page(
            w,
            StatusCode::OK,
            w.paid_title,
            None,
            &[],
            html! { h1 #state data-status="SUCCESSFUL" { (w.paid_title) } (amount) p { (w.paid) } (reference) },
        ),
        Status::Failed => page(
            w,
            StatusCode::OK,
            w.failed_title,
            None,
            &[],
            html! {
                h1 #state data-status="FAILED" { (w.failed_title) }
                p { (w.failed) }
                (reference)
                p { a #try-again href={ "/pay/" (link_id) "?lang=" (w.lang) } { (w.try_again) } }
            },
        ),
    }
}
