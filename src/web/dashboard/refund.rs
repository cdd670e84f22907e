//! Refunds on a transaction's page: a collection shows what of it is refunded and its refunds,
//! and, while something is left of a `SUCCESSFUL` one, the "Refund" form; a refund shows the
//! collection it gives back and its reason. `POST /dashboard/transactions/{id}/refund` refunds
//! through the API's use case (`Payments::refund_as`, the session's credential checked with
//! the refund's insert), and answers the page with what happened.
//!
//! The form carries the refund's own transaction id, made when the page was served: sending
//! the same form twice (a double click, a reload) records one refund, and says so.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use maud::{html, Markup};

use super::i18n::Text;
use super::layout::Column::{Num, Plain};
use super::layout::{self, money, segment, table_head, when, Flash};
use super::session::Ctx;
use super::transaction;
use crate::domain::refund::new_refund_id;
use crate::domain::text::checked_text;
use crate::domain::{Amount, Kind, RefundReason, Status, TextId, Timestamp, TransactionId, TransactionRef};
use crate::service::payments::refunds::{RefundError, RefundRequest};
use crate::service::{Dashboard, Payments, Principal, ServiceError, Timeline};
use crate::web::csrf::CsrfForm;

/// The longest transaction id the form may carry, as the v1 API takes them.
const MAX_TRANSACTION_ID: usize = 64;

/// The refund form; every field may be blank.
#[derive(serde::Deserialize)]
pub struct RefundForm {
    #[serde(default)]
    confirm: String,
    #[serde(default)]
    amount: String,
    #[serde(default)]
    reason: String,
    #[serde(default)]
    transaction_id: String,
}

/// `POST /dashboard/transactions/{id}/refund`.
pub async fn submit(
    State(dashboard): State<Dashboard>,
    State(payments): State<Payments>,
    Path(id): Path<String>,
    CsrfForm { ctx, form }: CsrfForm<RefundForm>,
) -> Response {
    let id = TransactionRef::from(id);
    let t = ctx.t();
    let request = match parse(&form, &id) {
        Ok(request) => request,
        Err(problem) => {
            let flash = Flash::Failed(problem(t).to_owned());
            return transaction::render(&dashboard, &ctx, &id, StatusCode::BAD_REQUEST, flash).await;
        }
    };
    let caller = Principal {
        tenant: ctx.session.tenant.clone(),
        credential_id: ctx.session.credential_id.clone(),
    };
    let (status, flash) = match payments.refund_as(&caller, request, Timestamp::now()).await {
        Ok(refund) => {
            let r = &refund.transaction;
            let said = format!(
                "{}{} {} · {} · {}",
                t.refund_recorded,
                t.colon,
                r.reference,
                money(r.amounts.amount.get()),
                r.status.as_str()
            );
            (StatusCode::OK, Flash::Done(said))
        }
        Err(refused) => match refusal(t, refused) {
            Ok(answer) => answer,
            Err(e) => return layout::service_error(ctx.lang(), e),
        },
    };
    transaction::render(&dashboard, &ctx, &id, status, flash).await
}

/// A form's refusal, in the page's language.
type Problem = fn(&Text) -> &'static str;

/// The refund the form asks for: confirmed, an amount (blank: all that is left), a reason
/// (blank: none).
fn parse(form: &RefundForm, collection: &TransactionRef) -> Result<RefundRequest, Problem> {
    if form.confirm.trim() != "yes" {
        return Err(|t| t.refund_confirm_missing);
    }
    // "4 000" as a French speaker writes it: spaces (narrow ones too) group the thousands.
    let amount: String = form.amount.chars().filter(|c| !c.is_whitespace()).collect();
    let amount = match amount.as_str() {
        "" => None,
        raw => Some(Amount::parse_text(raw).map_err(|_| -> Problem { |t| t.refund_amount_invalid })?),
    };
    let reason = match form.reason.as_str() {
        raw if raw.trim().is_empty() => None,
        raw => Some(RefundReason::parse(raw).map_err(|_| -> Problem { |t| t.refund_reason_invalid })?),
    };
    let transaction_id = checked_text(form.transaction_id.trim(), MAX_TRANSACTION_ID)
        .map(TransactionId::from_text)
        .unwrap_or_else(|_| new_refund_id());
    Ok(RefundRequest {
        transaction_id,
        collection: collection.clone(),
        amount,
        reason,
    })
}

/// The status and message of a refund refused, or failed at once; a fault of the service
/// itself is for the error page.
fn refusal(t: &Text, e: RefundError) -> Result<(StatusCode, Flash), ServiceError> {
    let (status, said) = match e {
        RefundError::NotRefundable(_) => (StatusCode::CONFLICT, t.refund_not_possible.to_owned()),
        RefundError::InsufficientFunds => (StatusCode::PRECONDITION_FAILED, t.refund_balance_short.to_owned()),
        RefundError::Duplicate(existing) => (
            StatusCode::CONFLICT,
            format!(
                "{}{} {}.",
                t.refund_already_recorded, t.colon, existing.transaction.reference
            ),
        ),
        RefundError::Refused(failed) | RefundError::OperatorUnavailable(failed) => (
            StatusCode::OK,
            format!("{}{} {}.", t.refund_failed, t.colon, failed.transaction.reference),
        ),
        RefundError::Unrouted(..) | RefundError::OperatorDisabled(_) => {
            (StatusCode::CONFLICT, t.refund_not_offered.to_owned())
        }
        RefundError::Service(e) => return Err(e),
    };
    Ok((status, Flash::Failed(said)))
}

/// What the facts of a transaction's page add: a refunded collection's amount refunded, a
/// refund's collection and reason.
pub fn facts(t: &Text, timeline: &Timeline) -> Markup {
    let tx = &timeline.record.transaction;
    html! {
        @if tx.purpose.refunded().is_positive() {
            dt { (t.amount_refunded) } dd #amount-refunded { (money(tx.purpose.refunded().get())) }
        }
        @if let Some(link) = tx.purpose.refund_of() {
            dt { (t.refund_of) }
            dd #refund-of {
                a href={ "/dashboard/transactions/" (segment(link.collection.as_str())) } { (link.collection.as_str()) }
                @if let Some(c) = &timeline.collection {
                    " · " (c.transaction.transaction_id) " · " (money(c.transaction.amounts.amount.get()))
                }
            }
            @if let Some(reason) = &link.reason {
                dt { (t.refund_reason) } dd #refund-reason { (reason.as_str()) }
            }
        }
    }
}

/// A collection's refunds and, while something is left of a `SUCCESSFUL` one, the form.
pub fn section(ctx: &Ctx, timeline: &Timeline, path: &str) -> Markup {
    let t = ctx.t();
    let tx = &timeline.record.transaction;
    if tx.kind() != Kind::Collection || (tx.status != Status::Successful && timeline.refunds.is_empty()) {
        return html! {};
    }
    let left = tx.amounts.amount - tx.purpose.refunded();
    html! {
        @if tx.status == Status::Successful {
            section #refund-section aria-labelledby="refund-heading" {
                h2 #refund-heading { (t.refund_heading) }
                p #refund-left { (t.refund_left) (t.colon) " " (money(left.get())) }
                @if left.is_positive() {
                    (form(ctx, path))
                } @else {
                    p #fully-refunded { (t.fully_refunded) }
                }
            }
        }
        h2 #refunds-heading { (t.refunds) }
        @if timeline.refunds.is_empty() {
            p #no-refunds { (t.no_refunds) }
        } @else {
            div.table-wrap {
                table #refunds aria-labelledby="refunds-heading" aria-describedby="refunds-latest" {
                    (table_head(&[Plain(t.reference), Plain(t.transaction_id), Num(t.amount), Plain(t.status), Plain(t.created_at), Plain(t.refund_reason)]))
                    tbody {
                        @for r in &timeline.refunds {
                            @let rt = &r.transaction;
                            tr data-transaction-id=(rt.transaction_id) {
                                td { a href={ "/dashboard/transactions/" (segment(&rt.transaction_id)) } { (rt.reference) } }
                                td { (rt.transaction_id) }
                                td.num.amount { (money(rt.amounts.amount.get())) }
                                td.status { (rt.status.as_str()) }
                                td { (when(rt.created_at)) }
                                td { (rt.purpose.refund_of().and_then(|l| l.reason.as_ref()).map_or("", |r| r.as_str())) }
                            }
                        }
                    }
                }
            }
            p.hint #refunds-latest { (t.refunds_latest) }
        }
    }
}

/// The "Refund" form: amount, reason, confirmation, in that order for the keyboard too.
fn form(ctx: &Ctx, path: &str) -> Markup {
    let t = ctx.t();
    html! {
        form #refund method="post" action={ (path) "/refund" } {
            input type="hidden" name="csrf_token" value=(ctx.csrf);
            input type="hidden" name="transaction_id" value=(new_refund_id().as_str());
            div.field {
                label for="refund-amount" { (t.refund_amount) }
                input #refund-amount type="text" name="amount" inputmode="numeric" autocomplete="off"
                    aria-describedby="refund-amount-hint";
                p.hint #refund-amount-hint { (t.refund_amount_hint) }
            }
            div.field {
                label for="refund-reason" { (t.refund_reason) }
                input #refund-reason type="text" name="reason" maxlength="255" autocomplete="off"
                    aria-describedby="refund-reason-hint";
                p.hint #refund-reason-hint { (t.refund_reason_hint) }
            }
            div.field.check {
                input #refund-confirm type="checkbox" name="confirm" value="yes" required;
                label for="refund-confirm" { (t.refund_confirm) }
            }
            button #refund-submit type="submit" { (t.refund_submit) }
        }
    }
}
