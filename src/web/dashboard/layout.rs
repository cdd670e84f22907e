//! The page around every dashboard page (header, navigation, environment switch, language,
//! sign-out), the error pages, and how amounts and times are written.

use crate::i18n::refusals;
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use maud::{html, Markup, PreEscaped, DOCTYPE};

use super::i18n::{Lang, Text};
use super::session::Ctx;
use crate::domain::{Environment, Kind, Timestamp};
use crate::service::ServiceError;

const STYLE: &str = include_str!("style.css");

/// What an action says it did: shown at the top of the answer page.
pub enum Flash {
    None,
    /// It worked: `p#flash[role=status]`.
    Done(String),
    /// It did not: `p#error[role=alert]`.
    Failed(String),
}

/// What a page is: its title, `main`'s id, and its own address (for the language switch).
pub struct Spec<'a> {
    pub title: &'a str,
    pub main_id: &'a str,
    pub path: &'a str,
}

fn shell(lang: Lang, title: &str, header: Markup, main_id: &str, flash: &Flash, body: Markup) -> Markup {
    let t = lang.text();
    html! {
        (DOCTYPE)
        html lang=(lang.code()) {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                meta name="referrer" content="same-origin";
                title { (title) " · " (t.title) }
                style { (PreEscaped(STYLE)) }
            }
            body {
                a.skip href={ "#" (main_id) } { (t.skip_to_content) }
                (header)
                main #(main_id) tabindex="-1" {
                    h1 { (title) }
                    @match flash {
                        Flash::None => {}
                        Flash::Done(text) => p #flash role="status" { (text) },
                        Flash::Failed(text) => p #error role="alert" { (text) },
                    }
                    (body)
                }
            }
        }
    }
}

fn other(environment: Environment) -> Environment {
    match environment {
        Environment::Sandbox => Environment::Production,
        Environment::Production => Environment::Sandbox,
    }
}

/// A page of a signed-in merchant.
pub fn page(ctx: &Ctx, spec: Spec<'_>, flash: Flash, body: Markup) -> Markup {
    let t = ctx.t();
    let environment = ctx.session.tenant.environment;
    let switch_lang = ctx.lang().other();
    let header = html! {
        header {
            a.brand href="/dashboard" { "momo-gateway · " (t.title) }
            nav aria-label=(t.nav_label) {
                ul {
                    li { a href="/dashboard" { (t.nav_overview) } }
                    li { a href="/dashboard/transactions" { (t.nav_transactions) } }
                    li { a href="/dashboard/customers" { (t.nav_customers) } }
                    li { a href="/dashboard/links" { (t.nav_links) } }
                    li { a href="/dashboard/payouts" { (t.nav_payouts) } }
                    li { a href="/dashboard/webhooks" { (t.nav_webhooks) } }
                    li { a href="/dashboard/api-keys" { (t.nav_api_keys) } }
                }
            }
            nav #environment-switch aria-label=(t.environment) {
                span.label { (t.environment) (t.colon) }
                span #current-environment { (environment.as_str()) }
                a #switch-environment href={ "/dashboard/login?environment=" (other(environment).as_str()) } {
                    (t.switch_to) " " (other(environment).as_str())
                }
            }
            a #switch-language href={ (spec.path) "?lang=" (switch_lang.code()) } lang=(switch_lang.code()) {
                (t.language_name)
            }
            form #logout-form method="post" action="/dashboard/logout" {
                input type="hidden" name="csrf_token" value=(ctx.csrf);
                button #logout-submit type="submit" { (t.sign_out) }
            }
        }
    };
    shell(ctx.lang(), spec.title, header, spec.main_id, &flash, body)
}

/// A page without a session (sign-in, errors before sign-in).
pub fn public_page(lang: Lang, spec: Spec<'_>, flash: Flash, body: Markup) -> Markup {
    let t = lang.text();
    let other = lang.other();
    let header = html! {
        header {
            a.brand href="/dashboard" { "momo-gateway · " (t.title) }
            a #switch-language href={ (spec.path) "?lang=" (other.code()) } lang=(other.code()) { (t.language_name) }
        }
    };
    shell(lang, spec.title, header, spec.main_id, &flash, body)
}

/// A signed-in merchant's page answered with `status`, remembering a language `?lang=` chose.
pub fn answer(ctx: &Ctx, status: StatusCode, spec: Spec<'_>, flash: Flash, body: Markup) -> Response {
    ctx.remember(html_response(status, page(ctx, spec, flash, body)))
}

pub fn html_response(status: StatusCode, markup: Markup) -> Response {
    let mut response = (status, Html(markup.into_string())).into_response();
    crate::http::security_headers::page_headers(response.headers_mut(), &[]);
    response
}

/// The page of an error answered before or around the dashboard's handlers (a method not
/// allowed, a body over the limit, a panic, a timeout), in place of the API's envelope.
pub fn bare_error(status: StatusCode) -> Response {
    let lang = Lang::Fr;
    if status == StatusCode::NOT_FOUND {
        return not_found(lang);
    }
    if status.is_server_error() {
        return unavailable_with(lang, status);
    }
    let t = lang.text();
    let spec = Spec {
        title: t.bad_request,
        main_id: "page-error",
        path: "/dashboard",
    };
    let body = html! { p #error role="alert" { (t.bad_request) " (" (status.as_u16()) ")" } };
    html_response(status, public_page(lang, spec, Flash::None, body))
}

/// 404: another merchant's, another environment's or an unknown record, or no such page.
pub fn not_found(lang: Lang) -> Response {
    let t = lang.text();
    error_page(
        lang,
        StatusCode::NOT_FOUND,
        t.not_found,
        "page-not-found",
        t.not_found_text.to_owned(),
    )
}

/// 403: a POST without this session's CSRF token.
pub fn forbidden(lang: Lang) -> Response {
    let t = lang.text();
    error_page(
        lang,
        StatusCode::FORBIDDEN,
        t.bad_request,
        "page-forbidden",
        t.forbidden_text.to_owned(),
    )
}

/// 503 (or 500): the database or a bug; the cause is in the log, never on the page.
pub fn unavailable(lang: Lang) -> Response {
    unavailable_with(lang, StatusCode::SERVICE_UNAVAILABLE)
}

fn unavailable_with(lang: Lang, status: StatusCode) -> Response {
    let t = lang.text();
    let id = crate::http::request_id::current();
    error_page(
        lang,
        status,
        t.bad_request,
        "page-error",
        format!("{} ({id})", t.unavailable_text),
    )
}

/// An error page: its `message` in `p#error`, and the way back to the overview.
fn error_page(lang: Lang, status: StatusCode, title: &'static str, main_id: &'static str, message: String) -> Response {
    let t = lang.text();
    let spec = Spec {
        title,
        main_id,
        path: "/dashboard",
    };
    let body = html! {
        p #error role="alert" { (message) }
        p { a href="/dashboard" { (t.back_to_overview) } }
    };
    html_response(status, public_page(lang, spec, Flash::None, body))
}

/// The page for a request the page cannot take: `why` says so in the page's language.
pub fn bad_request(lang: Lang, why: String) -> Response {
    let t = lang.text();
    let spec = Spec {
        title: t.bad_request,
        main_id: "page-error",
        path: "/dashboard",
    };
    html_response(
        StatusCode::BAD_REQUEST,
        public_page(
            lang,
            spec,
            Flash::Failed(why),
            html! { p { a href="/dashboard" { (t.back_to_overview) } } },
        ),
    )
}

/// The page for a use case that failed outside the page's own handling.
pub fn service_error(lang: Lang, e: ServiceError) -> Response {
    match e {
        ServiceError::NotFound(_) => not_found(lang),
        ServiceError::Unauthorized(_) => (
            StatusCode::SEE_OTHER,
            [(axum::http::header::LOCATION, "/dashboard/login")],
        )
            .into_response(),
        ServiceError::Invalid(why) => bad_request(lang, refusals::invalid(lang, &why)),
        ServiceError::Unavailable(cause) => {
            tracing::warn!(cause = %cause, "dashboard: database unavailable");
            unavailable(lang)
        }
        ServiceError::Internal(cause) => {
            tracing::error!(cause = %cause, "dashboard: internal fault");
            unavailable_with(lang, StatusCode::INTERNAL_SERVER_ERROR)
        }
    }
}

/// A column of a table, by its heading.
pub enum Column<'a> {
    Plain(&'a str),
    /// Numbers and amounts: aligned right (`th.num`, as their cells), so their digits line up.
    Num(&'a str),
}

/// A table's `thead`: one `th scope="col"` a column.
pub fn table_head(columns: &[Column<'_>]) -> Markup {
    html! {
        thead { tr {
            @for column in columns {
                @match column {
                    Column::Plain(heading) => th scope="col" { (heading) },
                    Column::Num(heading) => th.num scope="col" { (heading) },
                }
            }
        } }
    }
}

/// A transaction's kind in the page's language.
pub fn kind_name(t: &Text, kind: Kind) -> &'static str {
    t.kinds[kind.index()]
}

/// `12 500 F CFA`: francs grouped by thousands.
pub fn money(amount: i64) -> String {
    format!("{} F CFA", crate::web::grouped(amount))
}

/// `2026-11-24 07:01:00 UTC`.
pub fn when(at: Timestamp) -> String {
    let iso = at.iso8601_millis();
    format!("{} UTC", iso.get(..19).unwrap_or(&iso).replace('T', " "))
}

/// A path segment, percent-encoded (merchants' transaction ids may hold any printable text).
pub fn segment(raw: &str) -> String {
    percent_encoding::utf8_percent_encode(raw, percent_encoding::NON_ALPHANUMERIC).to_string()
}

#[cfg(test)]
mod tests {
    #[test]
    fn amounts_are_grouped_by_thousands() {
        assert_eq!(super::money(0), "0 F CFA");
        assert_eq!(super::money(12_500), "12\u{202f}500 F CFA");
        assert_eq!(super::money(-1_000_000), "-1\u{202f}000\u{202f}000 F CFA");
    }
}
