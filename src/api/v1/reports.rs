//! `GET /v1/ledger/entries` (the statement) and `GET /v1/reports/settlement`, for the
//! token's merchant and environment, in the v1 envelope or, with `format=csv`, as CSV.

use axum::extract::State;
use axum::http::header::CONTENT_TYPE;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;

use super::report_views::{self, SettlementOut, StatementLineOut};
use super::{envelope, Error};
use crate::api::auth::Authenticated;
use crate::api::error::ApiError;
use crate::api::extract::QueryParams;
use crate::api::pagination::{with_next_cursor, PageParams};
use crate::domain::ledger;
use crate::domain::page::trim_page;
use crate::domain::statement::resume_after;
use crate::domain::{Day, ReportScope, StatementFilter, Timestamp};
use crate::service::Reports;

/// How a report is answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    Json,
    Csv,
}

fn format(raw: Option<&str>) -> Result<Format, ApiError> {
    match raw {
        None | Some("") | Some("json") => Ok(Format::Json),
        Some("csv") => Ok(Format::Csv),
        Some(other) => Err(ApiError::bad_request(format!(
            "format must be json or csv, got {other:?}"
        ))),
    }
}

fn csv_response(body: String) -> Response {
    (StatusCode::OK, [(CONTENT_TYPE, "text/csv; charset=utf-8")], body).into_response()
}

#[derive(Debug, Default, Deserialize)]
pub struct StatementParams {
    #[serde(flatten)]
    pub page: PageParams,
    pub from: Option<String>,
    pub to: Option<String>,
    pub format: Option<String>,
}

fn time(raw: Option<&str>, name: &str) -> Result<Option<Timestamp>, ApiError> {
    match raw {
        None | Some("") => Ok(None),
        Some(raw) => Timestamp::parse_iso8601(raw).map(Some).ok_or_else(|| {
            ApiError::bad_request(format!(
                "{name} must be an ISO 8601 time like 2026-11-20T10:15:30.123Z, got {raw:?}"
            ))
        }),
    }
}

pub async fn statement(
    State(reports): State<Reports>,
    Authenticated(caller): Authenticated,
    QueryParams(params): QueryParams<StatementParams>,
) -> Result<Response, Error> {
    let page = params.page.page_request()?;
    let filter = StatementFilter {
        from: time(params.from.as_deref(), "from")?,
        to: time(params.to.as_deref(), "to")?,
    };
    let format = format(params.format.as_deref())?;
    let mut lines = reports.statement(&caller.tenant, &filter, &page).await?;
    let more = trim_page(&mut lines, &page);
    // Not past the settle lag: lines younger than it may still be joined by earlier ones.
    let horizon = ledger::settled_before(Timestamp::now());
    let next = if more {
        resume_after(&lines, horizon).map(|l| l.posting.cursor())
    } else {
        None
    };
    let response = match format {
        Format::Json => {
            let body: Vec<StatementLineOut> = lines.iter().map(StatementLineOut::from).collect();
            envelope::success(StatusCode::OK, body)
        }
        Format::Csv => csv_response(report_views::statement_csv(&lines)),
    };
    Ok(with_next_cursor(response, next))
}

#[derive(Debug, Default, Deserialize)]
pub struct SettlementParams {
    pub date: Option<String>,
    pub format: Option<String>,
}

pub async fn settlement(
    State(reports): State<Reports>,
    Authenticated(caller): Authenticated,
    QueryParams(params): QueryParams<SettlementParams>,
) -> Result<Response, Error> {
    let day = match params.date.as_deref() {
        None | Some("") => {
            return Err(ApiError::bad_request("date is required: a UTC day like 2026-11-20 (YYYY-MM-DD)").into())
        }
        Some(raw) => Day::parse(raw).ok_or_else(|| {
            ApiError::bad_request(format!(
                "date must be a UTC day like 2026-11-20 (YYYY-MM-DD), got {raw:?}"
            ))
        })?,
    };
    let format = format(params.format.as_deref())?;
    let scope = ReportScope {
        environment: caller.tenant.environment,
        merchant: Some(caller.tenant.merchant_id.clone()),
    };
    let report = reports.settlement_report(&scope, day, Timestamp::now()).await?;
    Ok(match format {
        Format::Json => envelope::success(StatusCode::OK, SettlementOut::from(&report)),
        Format::Csv => csv_response(report_views::settlement_csv(&report)),
    })
}
