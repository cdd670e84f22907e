//! `GET /dashboard/links/new`, the form that makes a payment link with the API's fields (a
//! fixed amount or bounds, a description, paid once or reusable with an optional cap, an
//! optional expiry, the operators it accepts, optional return URLs), and `POST
//! /dashboard/links`, which makes it through `Links::create` and sends the browser to the new
//! link's page (303), so that reloading that page makes nothing more. A refused form comes
//! back filled as sent, with what is wrong on top and nothing made.

use crate::i18n::refusals;
use std::collections::HashMap;

use axum::extract::State;
use axum::http::header::LOCATION;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use maud::{html, Markup};

use super::super::i18n::Text;
use super::super::layout::{self, Flash, Spec};
use super::super::session::Ctx;
use crate::domain::link::MAX_DESCRIPTION_CHARS;
use crate::domain::text::checked_text;
use crate::domain::LinkTerms;
use crate::domain::{Amount, LinkAmount, LinkProblem, OperatorCode, Timestamp};
use crate::service::{Links, ServiceError};
use crate::web::csrf::CsrfForm;

/// A refusal, in the page's language.
type Problem = fn(&Text) -> &'static str;

pub async fn new(ctx: Ctx) -> Response {
    page(&ctx, &HashMap::new(), StatusCode::OK, Flash::None)
}

/// The form's fields by name: it names a checkbox per operator, and a refused form comes back
/// as it was sent, so it stays a map of what was sent; `parse` reads it as the API would.
pub async fn create(State(links): State<Links>, CsrfForm { ctx, form }: CsrfForm<HashMap<String, String>>) -> Response {
    let now = Timestamp::now();
    let asked = match parse(&form, now) {
        Ok(asked) => asked,
        Err(problem) => {
            let flash = Flash::Failed(problem(ctx.t()).to_owned());
            return page(&ctx, &form, StatusCode::BAD_REQUEST, flash);
        }
    };
    match links.create(&ctx.session.tenant, asked, now).await {
        Ok(link) => {
            let location = format!("{}?created=1", super::path(&link));
            (StatusCode::SEE_OTHER, [(LOCATION, location)]).into_response()
        }
        // The domain's last word on a field this form checked already: its own text.
        Err(ServiceError::Invalid(why)) => {
            let flash = Flash::Failed(refusals::invalid(ctx.lang(), &why));
            page(&ctx, &form, StatusCode::BAD_REQUEST, flash)
        }
        Err(e) => layout::service_error(ctx.lang(), e),
    }
}

/// The words for what the domain refuses of a link.
fn link_problem(problem: LinkProblem) -> Problem {
    match problem {
        LinkProblem::AmountAndBounds => |t| t.link_amount_and_bounds,
        LinkProblem::BoundsReversed => |t| t.link_bounds_reversed,
        LinkProblem::Description(_) => |t| t.link_description_invalid,
        LinkProblem::NoPayments => |t| t.link_max_payments_invalid,
        LinkProblem::Expired => |t| t.link_expires_invalid,
    }
}

/// The checkbox of an operator.
fn operator_field(operator: OperatorCode) -> String {
    format!("operator-{}", operator.name())
}

/// The link the form asks for, each field read as the API reads it.
fn parse(form: &HashMap<String, String>, now: Timestamp) -> Result<LinkTerms, Problem> {
    let field = |name: &str| form.get(name).map(|v| v.trim()).unwrap_or("");
    let amount = |name: &str| -> Result<Option<Amount>, Problem> {
        // "5 000" as a French speaker writes it: spaces (narrow ones too) group the thousands.
        let raw: String = field(name).chars().filter(|c| !c.is_whitespace()).collect();
        match raw.as_str() {
            "" => Ok(None),
            raw => Amount::parse_text(raw)
                .map(Some)
                .map_err(|_| -> Problem { |t| t.link_amount_invalid }),
        }
    };
    let amount =
        LinkAmount::new(amount("amount")?, amount("min_amount")?, amount("max_amount")?).map_err(link_problem)?;
    let description = checked_text(field("description"), MAX_DESCRIPTION_CHARS)
        .map_err(|e| link_problem(LinkProblem::Description(e)))?;
    let max_payments = match (field("usage"), field("max_payments")) {
        ("reusable", "") => None,
        ("reusable", raw) => match raw.parse::<i64>() {
            Ok(n) if n >= 1 => Some(n),
            _ => return Err(|t| t.link_max_payments_invalid),
        },
        (_, "" | "1") => Some(1),
        (_, _) => return Err(|t| t.link_max_payments_invalid),
    };
    let expires_at = match field("expires_at") {
        "" => None,
        raw => match expiry(raw) {
            Some(at) if at > now => Some(at),
            _ => return Err(|t| t.link_expires_invalid),
        },
    };
    let operators: Vec<OperatorCode> = OperatorCode::ALL
        .into_iter()
        .filter(|o| form.contains_key(&operator_field(*o)))
        .collect();
    if operators.is_empty() {
        return Err(|t| t.link_no_operator);
    }
    Ok(LinkTerms {
        amount,
        description,
        max_payments,
        expires_at,
        operators,
        success_url: return_url(field("success_url"))?,
        error_url: return_url(field("error_url"))?,
    })
}

/// A `datetime-local` value (`2026-12-31T23:59`, seconds optional), read as UTC as the
/// dashboard writes every time, or an RFC 3339 instant.
fn expiry(raw: &str) -> Option<Timestamp> {
    Timestamp::parse_iso8601(&format!("{raw}:00Z"))
        .or_else(|| Timestamp::parse_iso8601(&format!("{raw}Z")))
        .or_else(|| Timestamp::parse_iso8601(raw))
}

/// An optional return URL, by the rule the API keeps (`net::return_url`).
fn return_url(raw: &str) -> Result<Option<String>, Problem> {
    crate::net::return_url(raw).map_err(|_| -> Problem { |t| t.link_url_invalid })
}

/// The form's page: fresh (every operator ticked, paid once), or as sent.
fn page(ctx: &Ctx, sent: &HashMap<String, String>, status: StatusCode, flash: Flash) -> Response {
    let t = ctx.t();
    let spec = Spec {
        title: t.new_link,
        main_id: "page-new-link",
        path: "/dashboard/links/new",
    };
    layout::answer(ctx, status, spec, flash, form(ctx, sent))
}

/// A text field with its label and, when given, its hint.
fn input(id: &str, name: &str, label: &str, hint: Hint<'_>, value: &str, attrs: InputKind) -> Markup {
    let own_id = format!("{id}-hint");
    let described_by = match hint {
        Hint::Own(_) => Some(own_id.as_str()),
        Hint::Shared(id) => Some(id),
    };
    let (kind, mode) = match attrs {
        InputKind::Number => ("text", Some("numeric")),
        InputKind::DateTime => ("datetime-local", None),
    };
    html! {
        div.field {
            label for=(id) { (label) }
            input #(id) type=(kind) name=(name) value=(value) inputmode=[mode] autocomplete="off"
                aria-describedby=[described_by];
            @if let Hint::Own(hint) = hint { p.hint #(own_id) { (hint) } }
        }
    }
}

/// A field's hint: its own, shown under it, or one it shares with others (by its id).
#[derive(Clone, Copy)]
enum Hint<'a> {
    Own(&'a str),
    Shared(&'a str),
}

/// What a field holds.
#[derive(Clone, Copy)]
enum InputKind {
    Number,
    DateTime,
}

/// The fields in reading order, which is the keyboard's: amount, description, use, expiry,
/// operators, return URLs, the button.
fn form(ctx: &Ctx, sent: &HashMap<String, String>) -> Markup {
    let t = ctx.t();
    let fresh = sent.is_empty();
    let value = |name: &str| sent.get(name).map(String::as_str).unwrap_or("");
    let reusable = value("usage") == "reusable";
    html! {
        form #link-form method="post" action="/dashboard/links" {
            input type="hidden" name="csrf_token" value=(ctx.csrf);
            fieldset {
                legend { (t.amount) }
                (input("link-amount", "amount", t.link_amount_fixed, Hint::Own(t.link_amount_hint), value("amount"), InputKind::Number))
                div.pair {
                    (input("link-min", "min_amount", t.link_min, Hint::Shared("link-bounds-hint"), value("min_amount"), InputKind::Number))
                    (input("link-max", "max_amount", t.link_max, Hint::Shared("link-bounds-hint"), value("max_amount"), InputKind::Number))
                }
                p.hint #link-bounds-hint { (t.link_bounds_hint) }
            }
            div.field {
                label for="link-description" { (t.description) }
                input #link-description type="text" name="description" value=(value("description"))
                    maxlength="255" required autocomplete="off" aria-describedby="link-description-hint";
                p.hint #link-description-hint { (t.link_description_hint) }
            }
            fieldset {
                legend { (t.link_usage) }
                div.field.check {
                    input #link-once type="radio" name="usage" value="once" checked[!reusable];
                    label for="link-once" { (t.link_once) }
                }
                div.field.check {
                    input #link-reusable type="radio" name="usage" value="reusable" checked[reusable];
                    label for="link-reusable" { (t.link_reusable) }
                }
                (input("link-max-payments", "max_payments", t.link_max_payments, Hint::Own(t.link_max_payments_hint), value("max_payments"), InputKind::Number))
            }
            (input("link-expires", "expires_at", t.link_expires, Hint::Own(t.link_expires_hint), value("expires_at"), InputKind::DateTime))
            fieldset #link-operators {
                legend { (t.link_operators) }
                @for operator in OperatorCode::ALL {
                    @let name = operator_field(operator);
                    @let id = format!("link-{}", name.to_lowercase());
                    div.field.check {
                        input #(id) type="checkbox" name=(name) value="yes" checked[fresh || sent.contains_key(&name)];
                        label for=(id) { (operator.v1_code()) }
                    }
                }
            }
            @for (id, name, label) in [("link-success-url", "success_url", t.link_success_url), ("link-error-url", "error_url", t.link_error_url)] {
                div.field {
                    label for=(id) { (label) }
                    input #(id) type="url" name=(name) value=(value(name)) autocomplete="off" aria-describedby="link-urls-hint";
                }
            }
            p.hint #link-urls-hint { (t.link_urls_hint) }
            button #link-submit type="submit" { (t.link_create) }
        }
    }
}
