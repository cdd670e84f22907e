//! `POST /dashboard/payouts/preview`: the uploaded CSV read as a batch, and what it would do,
//! written nowhere: each line to pay with its amount, each line refused with its reason, each
//! transaction id used before; the total beside the available balance. A confirmation form
//! carries the file on to `POST /dashboard/payouts` (`page.rs`); a file that is no batch comes
//! back to the upload form with what is wrong.

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use maud::{html, Markup};

use super::super::layout::Column::{Num, Plain};
use super::super::layout::{self, money, table_head, Flash, Spec};
use super::super::session::Ctx;
use super::list;
use crate::domain::{Francs, Timestamp, Transaction};
use crate::i18n::refusals;
use crate::service::payouts::{csv, ItemOutcome, Previewed};
use crate::service::Payouts;
use crate::web::csrf::{CsrfUpload, Upload};

pub async fn preview(State(payouts): State<Payouts>, CsrfUpload { ctx, upload }: CsrfUpload) -> Response {
    let t = ctx.t();
    // No form part, no file part and an empty file are the same mistake to the merchant.
    let (file, form) = match upload {
        Some(Upload {
            file: Some(file),
            fields,
        }) if !file.is_empty() => (file, fields),
        _ => {
            let flash = Flash::Failed(t.file_missing.to_owned());
            return list::render(&payouts, &ctx, StatusCode::BAD_REQUEST, flash).await;
        }
    };
    let Ok(text) = String::from_utf8(file) else {
        let why = format!("{}{} UTF-8?", t.csv_invalid, t.colon);
        return list::render(&payouts, &ctx, StatusCode::BAD_REQUEST, Flash::Failed(why)).await;
    };
    let label = form.get("label").map(|l| l.trim().to_owned()).filter(|l| !l.is_empty());
    let all_or_nothing = form.contains_key("all_or_nothing");
    render(&payouts, &ctx, &text, label.as_deref(), all_or_nothing, Flash::None).await
}

/// The preview of the CSV `text`, or the upload form again with why it is no batch.
pub async fn render(
    payouts: &Payouts,
    ctx: &Ctx,
    text: &str,
    label: Option<&str>,
    all_or_nothing: bool,
    flash: Flash,
) -> Response {
    let t = ctx.t();
    let aliases = &payouts.payments().config().operator_aliases;
    let items = match csv::read(text.as_bytes(), aliases) {
        Ok(items) => items,
        Err(e) => {
            let why = format!("{}{} {}", t.csv_invalid, t.colon, refusals::csv_problem(ctx.lang(), &e));
            return list::render(payouts, ctx, StatusCode::BAD_REQUEST, Flash::Failed(why)).await;
        }
    };
    let tenant = &ctx.session.tenant;
    let previewed = match payouts.preview(tenant, items, Timestamp::now()).await {
        Ok(previewed) => previewed,
        Err(e) => return layout::service_error(ctx.lang(), e),
    };
    let available = match payouts.payments().balances().balance(tenant).await {
        Ok(balance) => balance.available,
        Err(e) => return layout::service_error(ctx.lang(), e),
    };
    let body = html! {
        (summary(ctx, &previewed, available))
        (lines(ctx, &previewed))
        @if previewed.iter().any(|p| matches!(p, Previewed::Sent { .. })) {
            (confirm_form(ctx, text, label, all_or_nothing))
        } @else {
            p #preview-nothing { (t.preview_nothing) }
        }
        p { a #payouts-back href="/dashboard/payouts" { "← " (t.nav_payouts) } }
    };
    let spec = Spec {
        title: t.preview_title,
        main_id: "page-payouts-preview",
        path: "/dashboard/payouts",
    };
    let status = match flash {
        Flash::Failed(_) => StatusCode::UNPROCESSABLE_ENTITY,
        Flash::None | Flash::Done(_) => StatusCode::OK,
    };
    layout::answer(ctx, status, spec, flash, body)
}

/// How many lines would be paid and refused, the total, and the balance it comes from.
fn summary(ctx: &Ctx, previewed: &[Previewed], available: Francs) -> Markup {
    let t = ctx.t();
    let total: Francs = previewed
        .iter()
        .map(|p| match p {
            Previewed::Sent { total, .. } => *total,
            Previewed::Not(_) => Francs::ZERO,
        })
        .sum();
    let paid = previewed.iter().filter(|p| matches!(p, Previewed::Sent { .. })).count();
    html! {
        dl.facts #preview-summary {
            dt { (t.preview_lines_paid) } dd #preview-paid { (paid) }
            dt { (t.preview_lines_refused) } dd #preview-refused { (previewed.len() - paid) }
            dt { (t.preview_total) } dd #preview-total { (money(total.get())) }
            dt { (t.balance_available) } dd #preview-available { (money(available.get())) }
        }
        @if total > available { p #preview-over-balance role="alert" { (t.preview_over_balance) } }
    }
}

/// Each line of the file and what would become of it.
fn lines(ctx: &Ctx, previewed: &[Previewed]) -> Markup {
    let t = ctx.t();
    html! {
        div.table-wrap {
            table #preview {
                (table_head(&[Num(t.line), Plain(t.transaction_id), Plain(t.operator), Plain(t.phone), Num(t.amount), Plain(t.status)]))
                tbody {
                    @for (i, p) in previewed.iter().enumerate() {
                        @let line = i + 2;
                        @match p {
                            Previewed::Sent { request, .. } => tr data-line=(line) data-outcome="paid" {
                                td.num { (line) }
                                td { (request.transaction_id.as_str()) }
                                td { (request.operator.v1_code()) }
                                td { (request.phone.as_str()) }
                                td.num { (money(request.amount.francs())) }
                                td { (t.preview_paid) }
                            },
                            Previewed::Not(ItemOutcome::Duplicate(r)) => (recorded_row(line, "duplicate", &r.transaction, t.preview_duplicate)),
                            Previewed::Not(ItemOutcome::Refused(r)) => tr data-line=(line) data-outcome="refused" {
                                td.num { (line) }
                                td colspan="4" { }
                                td { (t.preview_refused) (t.colon) " " (refusals::batch_line(ctx.lang(), r)) }
                            },
                            Previewed::Not(ItemOutcome::Accepted(r)) => (recorded_row(line, "paid", &r.transaction, t.preview_paid)),
                        }
                    }
                }
            }
        }
    }
}

/// A line whose transfer is recorded: by this batch, or before it (a duplicate).
fn recorded_row(line: usize, outcome: &str, tx: &Transaction, said: &str) -> Markup {
    html! {
        tr data-line=(line) data-outcome=(outcome) {
            td.num { (line) }
            td { (tx.transaction_id.as_str()) }
            td { (tx.operator.v1_code()) }
            td { (tx.phone.as_str()) }
            td.num { (money(tx.amounts.amount.get())) }
            td { (said) }
        }
    }
}

/// "Confirm and pay": the file goes on as it was read, with its label and all-or-nothing.
fn confirm_form(ctx: &Ctx, text: &str, label: Option<&str>, all_or_nothing: bool) -> Markup {
    let t = ctx.t();
    html! {
        form #payouts-confirm method="post" action="/dashboard/payouts" {
            input type="hidden" name="csrf_token" value=(ctx.csrf);
            input type="hidden" name="csv" value=(text);
            @if let Some(label) = label { input type="hidden" name="label" value=(label); }
            @if all_or_nothing { input type="hidden" name="all_or_nothing" value="yes"; }
            button #payouts-confirm-submit type="submit" { (t.confirm_payouts) }
        }
    }
}
