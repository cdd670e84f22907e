//! `POST /dashboard/payouts`, the confirmation of a preview: records the batch through
//! `Payouts::create_batch` and sends the browser to its page (303), so reloading that page
//! records nothing more; an all-or-nothing batch refused comes back as its preview, with why.
//! `GET /dashboard/payouts/{id}`: a batch's counts and amounts by state and its transfers; while
//! it is processing the page asks the browser to load it again every 2 seconds (`Refresh`).

use axum::extract::{Path, State};
use axum::http::header::LOCATION;
use axum::http::{HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use maud::{html, Markup};

use super::super::layout::{self, html_response, money, when, Flash, Spec};
use super::super::pager;
use super::super::session::Ctx;
use super::super::transactions;
use crate::domain::{BatchId, PayoutBatch, Timestamp, TransactionFilter};
use crate::i18n::refusals;
use crate::service::payouts::{csv, BatchError, BatchRequest};
use crate::service::{Payments, Payouts};
use crate::web::csrf::CsrfForm;

/// The confirmation form of a preview: the file's text again, its label and choice.
#[derive(serde::Deserialize)]
pub struct ConfirmForm {
    #[serde(default)]
    csv: String,
    label: Option<String>,
    all_or_nothing: Option<String>,
}

pub async fn create(State(payouts): State<Payouts>, CsrfForm { ctx, form }: CsrfForm<ConfirmForm>) -> Response {
    let text = form.csv.as_str();
    let label = form.label.as_deref().map(str::trim).filter(|l| !l.is_empty());
    let all_or_nothing = form.all_or_nothing.is_some();
    let aliases = &payouts.payments().config().operator_aliases;
    let Ok(items) = csv::read(text.as_bytes(), aliases) else {
        // The preview read it; a form that no longer holds a batch goes back to the preview.
        return super::preview::render(&payouts, &ctx, text, label, all_or_nothing, Flash::None).await;
    };
    let request = BatchRequest {
        label: label.map(str::to_owned),
        all_or_nothing,
        items,
    };
    match payouts
        .create_batch(&ctx.session.tenant, request, Timestamp::now())
        .await
    {
        Ok(created) => {
            let location = format!("{}?created=1", super::path(&created.batch));
            (StatusCode::SEE_OTHER, [(LOCATION, location)]).into_response()
        }
        Err(BatchError::Refused { .. }) => {
            let flash = Flash::Failed(ctx.t().batch_refused_whole.to_owned());
            super::preview::render(&payouts, &ctx, text, label, all_or_nothing, flash).await
        }
        Err(BatchError::OverLimit(_)) => {
            let flash = Flash::Failed(ctx.t().batch_over_limit.to_owned());
            super::preview::render(&payouts, &ctx, text, label, all_or_nothing, flash).await
        }
        Err(BatchError::Invalid(problem)) => layout::bad_request(ctx.lang(), refusals::batch(ctx.lang(), &problem)),
        Err(BatchError::Service(e)) => layout::service_error(ctx.lang(), e),
    }
}

pub async fn show(
    State(payouts): State<Payouts>,
    State(payments): State<Payments>,
    ctx: Ctx,
    Path(id): Path<String>,
) -> Response {
    let Some(id) = BatchId::parse(&id) else {
        return layout::not_found(ctx.lang());
    };
    let tenant = &ctx.session.tenant;
    let batch = match payouts.batch(tenant, &id).await {
        Ok(Some(batch)) => batch,
        Ok(None) => return layout::not_found(ctx.lang()),
        Err(e) => return layout::service_error(ctx.lang(), e),
    };
    let filter = TransactionFilter {
        batch: Some(id),
        ..TransactionFilter::default()
    };
    let (records, next) = match transactions::filtered_page(&payments, &ctx, &filter).await {
        Ok(found) => found,
        Err(e) => return layout::service_error(ctx.lang(), e),
    };
    let t = ctx.t();
    let path = super::path(&batch);
    let completed = batch.completed_at.is_some();
    let body = html! {
        (facts(&ctx, &batch))
        @if !completed { p.hint #batch-refreshes { (t.batch_refreshes) } }
        h2 #batch-transfers-heading { (t.batch_transfers) }
        (transactions::table(t, &records))
        (pager::next_page(t, &path, "", next.as_ref()))
    };
    let title = batch.label.clone().unwrap_or_else(|| t.batch.to_owned());
    let spec = Spec {
        title: &title,
        main_id: "page-batch",
        path: &path,
    };
    // The page reloads itself at the same address: once the batch is done, "being sent" is not.
    let flash = if ctx.visitor.query.contains_key("created") && !completed {
        Flash::Done(t.batch_recorded.to_owned())
    } else {
        Flash::None
    };
    let mut response = html_response(StatusCode::OK, layout::page(&ctx, spec, flash, body));
    if !completed {
        // The standard `Refresh` header (HTML's "refresh" pragma): the page needs no script.
        response.headers_mut().insert("refresh", HeaderValue::from_static("2"));
    }
    ctx.remember(response)
}

fn facts(ctx: &Ctx, b: &PayoutBatch) -> Markup {
    let t = ctx.t();
    let (status, said) = super::status(t, b);
    html! {
        dl.facts {
            dt { (t.status) } dd #batch-status data-status=(status) { (said) }
            dt { (t.transaction_id) } dd #batch-id { (b.id) }
            dt { (t.batch_submitted) } dd #batch-submitted { (b.submitted) }
            dt { (t.batch_accepted) } dd #batch-accepted { (b.accepted.count) " · " (money(b.accepted.amount.get())) }
            dt { (t.batch_paid) } dd #batch-paid { (b.successful.count) " · " (money(b.successful.amount.get())) }
            dt { (t.batch_failed) } dd #batch-failed { (b.failed.count) " · " (money(b.failed.amount.get())) }
            dt { (t.batch_pending) } dd #batch-pending { (b.pending) " · " (money(b.pending_amount().get())) }
            dt { (t.preview_lines_refused) } dd #batch-refused { (b.refused) }
            dt { (t.batch_duplicates) } dd #batch-duplicates { (b.duplicates) }
            dt { (t.created_at) } dd { (when(b.created_at)) }
            @if let Some(at) = b.completed_at { dt { (t.batch_completed) } dd #batch-completed-at { (when(at)) } }
        }
    }
}
