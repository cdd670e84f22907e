//! `GET /dashboard/transactions/{id}`: one transaction (by the merchant's id or the
//! reference) with its amounts, customer, refunds (`refund.rs`), timeline of transitions, and
//! webhook attempts; and `POST …/resend-webhook`, which sends its webhook again through the
//! existing redelivery.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use maud::{html, Markup};

use super::layout::Column::{Num, Plain};
use super::layout::{self, kind_name, money, segment, table_head, when, Flash, Spec};
use super::refund;
use super::session::Ctx;
use crate::domain::{Timestamp, TransactionRef};
use crate::i18n::refusals;
use crate::service::{Dashboard, ServiceError, Timeline};
use crate::web::csrf::{CsrfForm, NoFields};

pub async fn show(State(dashboard): State<Dashboard>, ctx: Ctx, Path(id): Path<String>) -> Response {
    render(&dashboard, &ctx, &TransactionRef::from(id), StatusCode::OK, Flash::None).await
}

pub async fn resend(
    State(dashboard): State<Dashboard>,
    Path(id): Path<String>,
    CsrfForm { ctx, .. }: CsrfForm<NoFields>,
) -> Response {
    let id = TransactionRef::from(id);
    let t = ctx.t();
    let (status, flash) = match dashboard
        .resend_webhooks(&ctx.session.tenant, &id, Timestamp::now())
        .await
    {
        Ok(_) => (StatusCode::OK, Flash::Done(t.webhook_resent.to_owned())),
        Err(ServiceError::NotFound("webhook event")) => {
            (StatusCode::CONFLICT, Flash::Failed(t.no_webhook_yet.to_owned()))
        }
        Err(e) => return layout::service_error(ctx.lang(), e),
    };
    render(&dashboard, &ctx, &id, status, flash).await
}

/// The page of transaction `id` answered with `status`, `flash` at its top.
pub(super) async fn render(
    dashboard: &Dashboard,
    ctx: &Ctx,
    id: &TransactionRef,
    status: StatusCode,
    flash: Flash,
) -> Response {
    let timeline = match dashboard.timeline(&ctx.session.tenant, id).await {
        Ok(timeline) => timeline,
        Err(e) => return layout::service_error(ctx.lang(), e),
    };
    let path = format!(
        "/dashboard/transactions/{}",
        segment(&timeline.record.transaction.transaction_id)
    );
    let title = format!("{} {}", ctx.t().transaction, timeline.record.transaction.transaction_id);
    let spec = Spec {
        title: &title,
        main_id: "page-transaction",
        path: &path,
    };
    layout::answer(ctx, status, spec, flash, body(ctx, &timeline, &path))
}

fn body(ctx: &Ctx, timeline: &Timeline, path: &str) -> Markup {
    let t = ctx.t();
    let tx = &timeline.record.transaction;
    let customer = &timeline.record.customer;
    html! {
        dl.facts {
            dt { (t.status) } dd #status data-status=(tx.status.as_str()) { (tx.status.as_str()) }
            dt { (t.transaction_id) } dd #transaction-id { (tx.transaction_id) }
            dt { (t.reference) } dd #reference { (tx.reference) }
            dt { (t.kind) } dd { (kind_name(t, tx.kind())) }
            dt { (t.operator) } dd { (tx.operator.v1_code()) }
            dt { (t.phone) } dd { (tx.phone.as_str()) }
            dt { (t.amount) } dd #amount { (money(tx.amounts.amount.get())) }
            dt { (t.fees) } dd #fees { (money(tx.amounts.fees.get())) }
            dt { (t.amount_receive) } dd { (money(tx.amounts.amount_receive.get())) }
            dt { (t.amount_total) } dd #amount-total { (money(tx.amounts.amount_total.get())) }
            dt { (t.created_at) } dd { (when(tx.created_at)) }
            (refund::facts(t, timeline))
            @if let Some(link) = tx.purpose.link() {
                dt { (t.payment_link) }
                dd #payment-link { a href={ "/dashboard/links/" (link) } { (link) } }
            }
            @if tx.failure_reason.is_some() || tx.failure_code.is_some() {
                dt { (t.failure) }
                dd #failure-reason { (refusals::failure(ctx.lang(), tx.failure_code, tx.failure_reason.as_deref())) }
            }
            dt { (t.customer) }
            dd #customer {
                a href={ "/dashboard/customers/" (segment(&customer.id)) } {
                    (customer.first_name) " " (customer.last_name)
                }
                @if let Some(email) = &customer.email { " · " (email) }
            }
        }
        (refund::section(ctx, timeline, path))
        h2 { (t.timeline) }
        ol #timeline {
            @for step in &timeline.transitions {
                li data-to=(step.to.as_str()) data-cause=(step.cause) {
                    time { (when(step.at)) } " — "
                    @if let Some(from) = step.from { (from.as_str()) " → " }
                    strong { (step.to.as_str()) } " (" (step.cause) ")"
                    @if let Some(detail) = &step.detail { " : " (detail) }
                }
            }
        }
        h2 { (t.webhook_attempts) }
        div.table-wrap {
            table #webhook-attempts {
                (table_head(&[Plain(t.event), Plain(t.attempt), Plain(t.at), Plain(t.status_code), Num(t.latency), Plain(t.error)]))
                tbody {
                    @for (event, attempts) in &timeline.events {
                        @for a in attempts {
                            tr.attempt data-event-id=(event.id) {
                                td { (event.transaction_status.as_str()) " · " (event.state.as_str()) }
                                td { (a.attempt) }
                                td { (when(a.at)) }
                                td.status-code { @if let Some(code) = a.status_code { (code) } @else { "—" } }
                                td.latency.num { (a.latency_ms) " ms" }
                                td { (a.error.as_deref().unwrap_or("")) }
                            }
                        }
                    }
                }
            }
        }
        @if timeline.events.iter().all(|(_, attempts)| attempts.is_empty()) {
            p #no-attempts { (t.no_attempts) }
        }
        form #resend-webhook method="post" action={ (path) "/resend-webhook" } {
            input type="hidden" name="csrf_token" value=(ctx.csrf);
            button #resend-webhook-submit type="submit" { (t.resend_webhook) }
        }
    }
}
