//! `GET /dashboard/payouts`: the form that uploads a CSV of transfers (to its preview, never
//! straight to payment), then the tenant's batches, newest first, fifty a page.

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use maud::{html, Markup};

use super::super::layout::Column::{Num, Plain};
use super::super::layout::{self, money, table_head, when, Flash, Spec};
use super::super::pager;
use super::super::session::Ctx;
use crate::service::Payouts;

pub async fn list(State(payouts): State<Payouts>, ctx: Ctx) -> Response {
    render(&payouts, &ctx, StatusCode::OK, Flash::None).await
}

/// The page answered with `status`, `flash` at its top (a file refused whole comes back here).
pub async fn render(payouts: &Payouts, ctx: &Ctx, status: StatusCode, flash: Flash) -> Response {
    let (found, next) = match pager::read(ctx, async |page| payouts.batches(&ctx.session.tenant, page).await).await {
        Ok(found) => found,
        Err(e) => return layout::service_error(ctx.lang(), e),
    };
    let t = ctx.t();
    let body = html! {
        p.hint #payouts-intro { (t.payouts_intro) }
        (upload_form(ctx))
        @if found.is_empty() {
            p #no-batches { (t.no_batches) }
        } @else {
            div.table-wrap {
                table #batches aria-describedby="batches-latest" {
                    (table_head(&[Plain(t.batch_label), Plain(t.status), Num(t.batch_accepted), Num(t.batch_paid), Num(t.batch_failed), Plain(t.created_at)]))
                    tbody {
                        @for batch in &found {
                            @let (status, said) = super::status(t, batch);
                            tr data-batch-id=(batch.id) {
                                td { a href=(super::path(batch)) { (batch.label.as_deref().unwrap_or(batch.id.as_str())) } }
                                td.status data-status=(status) { (said) }
                                td.num { (batch.accepted.count) " · " (money(batch.accepted.amount.get())) }
                                td.num { (batch.successful.count) }
                                td.num { (batch.failed.count) }
                                td { (when(batch.created_at)) }
                            }
                        }
                    }
                }
            }
            p.hint #batches-latest { (t.batches_latest) }
        }
        (pager::next_page(t, "/dashboard/payouts", "", next.as_ref()))
    };
    let spec = Spec {
        title: t.nav_payouts,
        main_id: "page-payouts",
        path: "/dashboard/payouts",
    };
    layout::answer(ctx, status, spec, flash, body)
}

/// The file, a label and all-or-nothing, sent to the preview.
fn upload_form(ctx: &Ctx) -> Markup {
    let t = ctx.t();
    html! {
        form #payouts-upload method="post" action="/dashboard/payouts/preview" enctype="multipart/form-data" {
            input type="hidden" name="csrf_token" value=(ctx.csrf);
            div.field {
                label for="payouts-file" { (t.payouts_file) }
                input #payouts-file type="file" name="file" accept=".csv,text/csv" required
                    aria-describedby="payouts-file-hint";
                p.hint #payouts-file-hint { (t.payouts_file_hint) }
            }
            div.field {
                label for="payouts-label" { (t.batch_label) }
                input #payouts-label type="text" name="label" maxlength="255" aria-describedby="payouts-label-hint";
                p.hint #payouts-label-hint { (t.batch_label_hint) }
            }
            div.field.check {
                input #payouts-all-or-nothing type="checkbox" name="all_or_nothing" value="yes";
                label for="payouts-all-or-nothing" { (t.all_or_nothing) }
            }
            button #payouts-preview type="submit" { (t.payouts_preview) }
        }
    }
}
