//! `GET /dashboard/transactions`: the filtered list with cursor paging (the API's list
//! machinery), search by transaction id or reference, and `GET /dashboard/transactions.csv`,
//! the same filtered list as CSV.

use std::collections::HashMap;

use axum::extract::State;
use axum::http::header::{CONTENT_DISPOSITION, CONTENT_TYPE};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use maud::{html, Markup};

use super::i18n::Text;
use super::layout::Column::{Num, Plain};
use super::layout::{self, kind_name, money, segment, table_head, when, Flash, Spec};
use super::pager;
use super::session::Ctx;
use crate::domain::page::split_page;
use crate::domain::{Cursor, Kind, Msisdn, OperatorCode, PageRequest, Status, Timestamp, TransactionRef};
use crate::domain::{Tenant, TransactionFilter, TransactionRecord};
use crate::service::{Payments, ServiceError};

/// The most rows an export holds.
const EXPORT_CAP: usize = 10_000;
const DAY_MS: i64 = 86_400_000;

/// What the filter form sent, as sent (to fill the form again and build links).
struct Query<'q>(&'q HashMap<String, String>);

impl Query<'_> {
    fn get(&self, name: &str) -> &str {
        self.0.get(name).map(|v| v.trim()).unwrap_or("")
    }

    /// The filters as a query string, without the cursor.
    fn filters_query(&self) -> String {
        let mut pairs = Vec::new();
        for name in ["status", "type", "operator", "phone", "from", "to", "q"] {
            let value = self.get(name);
            if !value.is_empty() {
                pairs.push(format!("{name}={}", segment(value)));
            }
        }
        pairs.join("&")
    }

    /// A date (`2026-11-24`, read as that UTC day) or an ISO 8601 instant.
    fn time(&self, name: &'static str, end_of_day: bool) -> Result<Option<Timestamp>, BadFilter> {
        let raw = self.get(name);
        if raw.is_empty() {
            return Ok(None);
        }
        if let Some(at) = Timestamp::parse_iso8601(&format!("{raw}T00:00:00Z")) {
            return Ok(Some(if end_of_day {
                Timestamp(at.millis() + DAY_MS)
            } else {
                at
            }));
        }
        Timestamp::parse_iso8601(raw)
            .map(Some)
            .ok_or_else(|| BadFilter::new(name, raw))
    }

    fn filter(&self) -> Result<TransactionFilter, BadFilter> {
        let status = match self.get("status") {
            "" => None,
            s => Some(Status::parse(s).ok_or_else(|| BadFilter::new("status", s))?),
        };
        let kind = match self.get("type") {
            "" => None,
            k => Some(Kind::parse(k).ok_or_else(|| BadFilter::new("type", k))?),
        };
        let operator = match self.get("operator") {
            "" => None,
            o => Some(OperatorCode::from_name(o).ok_or_else(|| BadFilter::new("operator", o))?),
        };
        let phone = match self.get("phone") {
            "" => None,
            p => Some(Msisdn::parse(p).map_err(|_| BadFilter::new("phone", p))?),
        };
        Ok(TransactionFilter {
            status,
            kind,
            operator,
            phone,
            from: self.time("from", false)?,
            to: self.time("to", true)?,
            refund_of: None,
            link: None,
            batch: None,
        })
    }
}

/// A filter whose value means nothing (a hand-edited address): which, and what it held.
struct BadFilter {
    field: &'static str,
    raw: String,
}

impl BadFilter {
    fn new(field: &'static str, raw: &str) -> BadFilter {
        BadFilter {
            field,
            raw: raw.to_owned(),
        }
    }

    /// What the page says of it, in its language: the field as the form labels it.
    fn said(&self, t: &Text) -> String {
        let label = match self.field {
            "status" => t.status,
            "type" => t.kind,
            "operator" => t.operator,
            "phone" => t.phone,
            "from" => t.from,
            _ => t.to,
        };
        format!("{}{} {label} « {} »", t.filter_invalid, t.colon, self.raw)
    }
}

/// One page of the list: searched by id or reference when `q` is given, else filtered.
async fn read_page(
    payments: &Payments,
    tenant: &Tenant,
    query: &Query<'_>,
    page: &PageRequest,
) -> Result<Result<Vec<TransactionRecord>, BadFilter>, ServiceError> {
    let filter = match query.filter() {
        Ok(filter) => filter,
        Err(why) => return Ok(Err(why)),
    };
    let q = query.get("q");
    if !q.is_empty() {
        return match payments.transaction(tenant, &TransactionRef::from(q)).await {
            Ok(record) => Ok(Ok(vec![record])),
            Err(ServiceError::NotFound(_)) => Ok(Ok(Vec::new())),
            Err(e) => Err(e),
        };
    }
    payments.transactions(tenant, &filter, page).await.map(Ok)
}

/// The page of the transactions `filter` selects (a link's payments, a batch's transfers) that
/// `?cursor=` asks for, and the cursor of the next.
pub async fn filtered_page(
    payments: &Payments,
    ctx: &Ctx,
    filter: &TransactionFilter,
) -> Result<(Vec<TransactionRecord>, Option<Cursor>), ServiceError> {
    let tenant = &ctx.session.tenant;
    pager::read(ctx, async |page| payments.transactions(tenant, filter, page).await).await
}

pub async fn list(State(payments): State<Payments>, ctx: Ctx) -> Response {
    let query = Query(&ctx.visitor.query);
    let page = pager::page_after(&ctx);
    let (status, flash, records, next) = match read_page(&payments, &ctx.session.tenant, &query, &page).await {
        Ok(Ok(records)) => {
            let (records, next) = split_page(records, &page);
            (StatusCode::OK, Flash::None, records, next)
        }
        Ok(Err(bad)) => (
            StatusCode::BAD_REQUEST,
            Flash::Failed(bad.said(ctx.t())),
            Vec::new(),
            None,
        ),
        Err(e) => return layout::service_error(ctx.lang(), e),
    };
    let t = ctx.t();
    let filters = query.filters_query();
    let body = html! {
        (filter_form(t, &query))
        div.actions {
            a.button #export-csv href={ "/dashboard/transactions.csv" @if !filters.is_empty() { "?" (filters) } } {
                (t.export_csv)
            }
        }
        (table(t, &records))
        (pager::next_page(t, "/dashboard/transactions", &filters, next.as_ref()))
    };
    let spec = Spec {
        title: t.nav_transactions,
        main_id: "page-transactions",
        path: "/dashboard/transactions",
    };
    layout::answer(&ctx, status, spec, flash, body)
}

fn select(id: &str, label: &str, options: &[(&str, &str)], chosen: &str) -> Markup {
    html! {
        div {
            label for=(id) { (label) }
            select #(id) name=(id) {
                @for (value, text) in options {
                    option value=(value) selected[*value == chosen] { (text) }
                }
            }
        }
    }
}

fn filter_form(t: &Text, q: &Query<'_>) -> Markup {
    let operators: Vec<(&str, &str)> = std::iter::once(("", t.any))
        .chain(OperatorCode::ALL.iter().map(|o| (o.name(), o.v1_code())))
        .collect();
    html! {
        form #filters .filters method="get" action="/dashboard/transactions" aria-label=(t.filters) {
            (select("status", t.status, &[("", t.any), ("PENDING", "PENDING"), ("SUCCESSFUL", "SUCCESSFUL"), ("FAILED", "FAILED")], q.get("status")))
            (select("type", t.kind, &[("", t.any), (Kind::Collection.as_str(), kind_name(t, Kind::Collection)), (Kind::Transfer.as_str(), kind_name(t, Kind::Transfer))], q.get("type")))
            (select("operator", t.operator, &operators, q.get("operator")))
            div { label for="phone" { (t.phone) } input #phone type="tel" name="phone" value=(q.get("phone")); }
            div { label for="from" { (t.from) } input #from type="date" name="from" value=(q.get("from")); }
            div { label for="to" { (t.to) } input #to type="date" name="to" value=(q.get("to")); }
            div { label for="q" { (t.search) } input #q type="search" name="q" value=(q.get("q")) placeholder=(t.search_hint); }
            div { button #filters-submit type="submit" { (t.apply) } }
        }
    }
}

/// The transactions table (also the customer page's).
pub fn table(t: &Text, records: &[TransactionRecord]) -> Markup {
    html! {
        div.table-wrap {
            table #transactions {
                (table_head(&[Plain(t.transaction_id), Plain(t.created_at), Plain(t.kind), Plain(t.operator), Plain(t.phone), Num(t.amount), Plain(t.status)]))
                tbody {
                    @for r in records {
                        @let tx = &r.transaction;
                        tr data-transaction-id=(tx.transaction_id) data-ref=(tx.reference) {
                            td { a href={ "/dashboard/transactions/" (segment(&tx.transaction_id)) } { (tx.transaction_id) } }
                            td { (when(tx.created_at)) }
                            td { (kind_name(t, tx.kind())) }
                            td { (tx.operator.v1_code()) }
                            td { (tx.phone.as_str()) }
                            td.num { (money(tx.amounts.amount.get())) }
                            td.status { (tx.status.as_str()) }
                        }
                    }
                }
            }
        }
        @if records.is_empty() { p #no-transactions { (t.no_transactions) } }
    }
}

/// A CSV field: quoted, and a leading `=`, `+`, `-` or `@` neutralised so a spreadsheet does
/// not run a merchant's customer's name as a formula.
fn csv_field(raw: &str) -> String {
    let guarded = if raw.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        format!("'{raw}")
    } else {
        raw.to_owned()
    };
    format!("\"{}\"", guarded.replace('"', "\"\""))
}

pub async fn export(State(payments): State<Payments>, ctx: Ctx) -> Response {
    let query = Query(&ctx.visitor.query);
    let mut rows: Vec<TransactionRecord> = Vec::new();
    let mut page = PageRequest {
        limit: 1001,
        after: None,
    };
    loop {
        let records = match read_page(&payments, &ctx.session.tenant, &query, &page).await {
            Ok(Ok(records)) => records,
            Ok(Err(bad)) => return layout::bad_request(ctx.lang(), bad.said(ctx.t())),
            Err(e) => return layout::service_error(ctx.lang(), e),
        };
        let searched = !query.get("q").is_empty();
        let (records, next) = split_page(records, &page);
        rows.extend(records);
        match next {
            Some(next) if !searched && rows.len() < EXPORT_CAP => page.after = Some(next),
            _ => break,
        }
    }
    rows.truncate(EXPORT_CAP);
    let mut csv = String::from(
        "transaction_id,ref,created_at,type,operator,phone,amount,fees,amount_total,status,failure_reason,customer_name\r\n",
    );
    for r in &rows {
        let tx = &r.transaction;
        let fields = [
            csv_field(&tx.transaction_id),
            csv_field(&tx.reference),
            csv_field(&tx.created_at.iso8601_millis()),
            csv_field(tx.kind().as_str()),
            csv_field(tx.operator.v1_code()),
            csv_field(tx.phone.as_str()),
            tx.amounts.amount.to_string(),
            tx.amounts.fees.to_string(),
            tx.amounts.amount_total.to_string(),
            csv_field(tx.status.as_str()),
            csv_field(tx.failure_reason.as_deref().unwrap_or("")),
            csv_field(&tx.name),
        ];
        csv.push_str(&fields.join(","));
        csv.push_str("\r\n");
    }
    (
        StatusCode::OK,
        [
            (CONTENT_TYPE, "text/csv; charset=utf-8"),
            (CONTENT_DISPOSITION, "attachment; filename=\"transactions.csv\""),
            (axum::http::header::CACHE_CONTROL, "no-store"),
        ],
        csv,
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    #[test]
    fn csv_fields_are_quoted_and_formulas_neutralised() {
        assert_eq!(super::csv_field("a\"b"), "\"a\"\"b\"");
        assert_eq!(super::csv_field("=SUM(A1)"), "\"'=SUM(A1)\"");
    }
}
