//! `GET /dashboard/webhooks`: the webhook URL (set through the same use case as the API, so
//! the same validation and private-address guard), "send a test event", the recent attempts,
//! and the signing secret's rotation, whose new secret is shown once, in the answer.

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use maud::{html, Markup};

use super::layout::Column::{Num, Plain};
use super::layout::{self, table_head, when, Flash, Spec};
use super::session::Ctx;
use crate::domain::Timestamp;
use crate::i18n::{refusals, Lang};
use crate::service::{Dashboard, Merchants, ServiceError, WebhookUrlError};
use crate::web::csrf::{CsrfForm, NoFields};

const RECENT: u32 = 20;

pub async fn show(State(dashboard): State<Dashboard>, ctx: Ctx) -> Response {
    render(&dashboard, &ctx, StatusCode::OK, Flash::None, None).await
}

/// The webhook URL's form.
#[derive(serde::Deserialize)]
pub struct UrlForm {
    url: Option<String>,
}

/// `POST /dashboard/webhooks/url`: an empty URL clears it.
pub async fn set_url(
    State(dashboard): State<Dashboard>,
    State(merchants): State<Merchants>,
    CsrfForm { ctx, form }: CsrfForm<UrlForm>,
) -> Response {
    let t = ctx.t();
    let url = form.url.as_deref().map(str::trim).filter(|u| !u.is_empty());
    let (status, flash) = match merchants.set_webhook_url(&ctx.session.tenant, url).await {
        Ok(()) if url.is_some() => (StatusCode::OK, Flash::Done(t.webhook_url_saved.to_owned())),
        Ok(()) => (StatusCode::OK, Flash::Done(t.webhook_url_cleared.to_owned())),
        Err(WebhookUrlError::Url(problem)) => (
            StatusCode::BAD_REQUEST,
            Flash::Failed(refusals::webhook_url(ctx.lang(), &problem)),
        ),
        Err(WebhookUrlError::Service(e)) => return layout::service_error(ctx.lang(), e),
    };
    render(&dashboard, &ctx, status, flash, None).await
}

/// `POST /dashboard/webhooks/test`.
pub async fn send_test(State(dashboard): State<Dashboard>, CsrfForm { ctx, .. }: CsrfForm<NoFields>) -> Response {
    let t = ctx.t();
    let (status, flash) = match dashboard.send_test_webhook(&ctx.session.tenant, Timestamp::now()).await {
        Ok(a) => {
            let outcome = match (a.status_code, &a.error) {
                (Some(code), _) => format!("HTTP {code}, {} ms", a.latency_ms),
                // The transport's own words are English: a French page says the attempt failed.
                (None, Some(error)) => match ctx.lang() {
                    Lang::En => format!("{error} ({} ms)", a.latency_ms),
                    Lang::Fr => format!("{} ({} ms)", t.test_event_failed, a.latency_ms),
                },
                (None, None) => format!("{} ms", a.latency_ms),
            };
            (StatusCode::OK, Flash::Done(format!("{} {outcome}", t.test_event_sent)))
        }
        // The one refusal here: no URL to send to.
        Err(ServiceError::Invalid(_)) => (StatusCode::BAD_REQUEST, Flash::Failed(t.test_event_no_url.to_owned())),
        Err(e) => return layout::service_error(ctx.lang(), e),
    };
    render(&dashboard, &ctx, status, flash, None).await
}

/// `POST /dashboard/webhooks/rotate-secret`: the new secret is on this answer only.
pub async fn rotate_secret(
    State(dashboard): State<Dashboard>,
    State(merchants): State<Merchants>,
    CsrfForm { ctx, .. }: CsrfForm<NoFields>,
) -> Response {
    match merchants
        .rotate_webhook_secret(&ctx.session.tenant, Timestamp::now())
        .await
    {
        Ok(rotated) => {
            let flash = Flash::Done(format!(
                "{} ({})",
                ctx.t().webhook_secret_rotated,
                when(rotated.previous_valid_until)
            ));
            render(&dashboard, &ctx, StatusCode::OK, flash, Some(&rotated.webhook_secret)).await
        }
        Err(e) => layout::service_error(ctx.lang(), e),
    }
}

async fn render(
    dashboard: &Dashboard,
    ctx: &Ctx,
    status: StatusCode,
    flash: Flash,
    new_secret: Option<&str>,
) -> Response {
    let tenant = &ctx.session.tenant;
    let now = Timestamp::now();
    let endpoint = match dashboard.webhook_endpoint(tenant, now).await {
        Ok(endpoint) => endpoint,
        Err(e) => return layout::service_error(ctx.lang(), e),
    };
    let attempts = match dashboard.recent_webhook_attempts(tenant, RECENT).await {
        Ok(attempts) => attempts,
        Err(e) => return layout::service_error(ctx.lang(), e),
    };
    let t = ctx.t();
    let body = html! {
        form #webhook-url method="post" action="/dashboard/webhooks/url" {
            input type="hidden" name="csrf_token" value=(ctx.csrf);
            div.field {
                label for="url" { (t.webhook_url) }
                input #url type="url" name="url" value=(endpoint.url.as_deref().unwrap_or(""))
                    aria-describedby="url-hint" inputmode="url" spellcheck="false";
                p.hint #url-hint { (t.webhook_url_hint) }
            }
            @if endpoint.disabled { p #webhook-disabled { (t.webhook_disabled) } }
            button #webhook-url-submit type="submit" { (t.save) }
        }
        form #webhook-test method="post" action="/dashboard/webhooks/test" {
            input type="hidden" name="csrf_token" value=(ctx.csrf);
            p.hint { (t.test_event_hint) }
            button #webhook-test-submit type="submit" { (t.send_test_event) }
        }
        h2 { (t.recent_attempts) }
        (attempts_table(ctx, &attempts))
        h2 { (t.signing_secret) }
        @if let Some(secret) = new_secret {
            p { (t.new_secret_once) }
            code #new-secret { (secret) }
        } @else {
            p.hint { (t.signing_secret_hint) }
        }
        form #rotate-webhook-secret method="post" action="/dashboard/webhooks/rotate-secret" {
            input type="hidden" name="csrf_token" value=(ctx.csrf);
            button #rotate-webhook-secret-submit type="submit" { (t.rotate_webhook_secret) }
        }
    };
    let spec = Spec {
        title: t.webhooks,
        main_id: "page-webhooks",
        path: "/dashboard/webhooks",
    };
    layout::answer(ctx, status, spec, flash, body)
}

fn attempts_table(ctx: &Ctx, attempts: &[crate::domain::RecentAttempt]) -> Markup {
    let t = ctx.t();
    html! {
        div.table-wrap {
            table #recent-attempts {
                (table_head(&[Plain(t.at), Plain(t.event), Plain("URL"), Plain(t.status_code), Num(t.latency), Plain(t.error)]))
                tbody {
                    @for r in attempts {
                        tr.attempt data-kind=(if r.transaction_id.is_some() { "event" } else { "test" }) {
                            td { (when(r.attempt.at)) }
                            td {
                                @match (&r.transaction_id, r.event_status) {
                                    (Some(id), Some(status)) => {
                                        a href={ "/dashboard/transactions/" (layout::segment(id)) } { (id) }
                                        " · " (status.as_str())
                                    }
                                    _ => { (t.test_delivery) }
                                }
                            }
                            td { (r.attempt.url) }
                            td.status-code { @if let Some(code) = r.attempt.status_code { (code) } @else { "—" } }
                            td.latency.num { (r.attempt.latency_ms) " ms" }
                            td { (r.attempt.error.as_deref().unwrap_or("")) }
                        }
                    }
                }
            }
        }
        @if attempts.is_empty() { p #no-attempts { (t.no_attempts) } }
    }
}
