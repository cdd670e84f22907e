//! v2 payment links: `POST /v2/payment-links`, `GET /v2/payment-links`,
//! `GET /v2/payment-links/{id}`, `POST /v2/payment-links/{id}/deactivate`: v1's, in snake_case.

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use serde::{Deserialize, Serialize};

use super::{envelope, Error};
use crate::api::auth::Authenticated;
use crate::api::extract::{JsonBody, PathId, QueryParams};
use crate::api::fields::RawAmount;
use crate::api::links::{amounts, link_id, LinkFields};
use crate::api::pagination::{with_next_cursor, PageParams};
use crate::domain::page::split_page;
use crate::domain::{Cursor, PaymentLink, Timestamp};
use crate::service::{Links, Payments};

/// The body of a v2 link.
#[derive(Debug, Deserialize)]
pub struct CreateLinkV2 {
    #[serde(default)]
    pub amount: RawAmount,
    #[serde(default)]
    pub min_amount: RawAmount,
    #[serde(default)]
    pub max_amount: RawAmount,
    pub description: Option<String>,
    pub reusable: Option<bool>,
    pub max_payments: Option<serde_json::Number>,
    pub expires_at: Option<String>,
    pub operators: Option<Vec<String>>,
    pub success_url: Option<String>,
    pub error_url: Option<String>,
}

/// A link as v2 shows it.
#[derive(Debug, Serialize)]
pub struct LinkV2<'a> {
    pub id: &'a str,
    pub url: String,
    pub active: bool,
    pub description: &'a str,
    pub amount: Option<String>,
    pub min_amount: Option<String>,
    pub max_amount: Option<String>,
    pub reusable: bool,
    pub max_payments: Option<i64>,
    pub expires_at: Option<String>,
    pub operators: Vec<&'static str>,
    pub success_url: Option<&'a str>,
    pub error_url: Option<&'a str>,
    pub payments_successful: u64,
    pub payments_pending: u64,
    pub collected: String,
    pub date: String,
}

fn shown<'a>(links: &Links, link: &'a PaymentLink, now: Timestamp) -> LinkV2<'a> {
    let (amount, min_amount, max_amount) = amounts(link);
    LinkV2 {
        id: link.id.as_str(),
        url: links.url(&link.id),
        active: link.active_at(now),
        description: &link.description,
        amount,
        min_amount,
        max_amount,
        reusable: link.max_payments != Some(1),
        max_payments: link.max_payments,
        expires_at: link.expires_at.map(Timestamp::v2_date),
        operators: link.operators.iter().map(|o| o.v2_code()).collect(),
        success_url: link.success_url.as_deref(),
        error_url: link.error_url.as_deref(),
        payments_successful: link.paid,
        payments_pending: link.pending(),
        collected: link.collected.to_string(),
        date: link.created_at.v2_date(),
    }
}

pub async fn create(
    State(links): State<Links>,
    State(payments): State<Payments>,
    Authenticated(caller): Authenticated,
    JsonBody(body): JsonBody<CreateLinkV2>,
) -> Result<Response, Error> {
    let fields = LinkFields {
        amount: (&body.amount, "amount"),
        min_amount: (&body.min_amount, "min_amount"),
        max_amount: (&body.max_amount, "max_amount"),
        description: (body.description.as_deref(), "description"),
        reusable: (body.reusable, "reusable"),
        max_payments: (body.max_payments.as_ref(), "max_payments"),
        expires_at: (body.expires_at.as_deref(), "expires_at"),
        operators: (body.operators.as_deref(), "operators"),
        success_url: (body.success_url.as_deref(), "success_url"),
        error_url: (body.error_url.as_deref(), "error_url"),
    };
    let new = fields.parse(&payments.config().operator_aliases)?;
    let now = Timestamp::now();
    let link = links.create(&caller.tenant, new, now).await?;
    Ok(envelope::success(
        StatusCode::OK,
        "PAYMENT_LINK_CREATED",
        shown(&links, &link, now),
    ))
}

pub async fn fetch(
    State(links): State<Links>,
    Authenticated(caller): Authenticated,
    PathId(id): PathId,
) -> Result<Response, Error> {
    let link = links.link(&caller.tenant, &link_id(&id)?).await?;
    Ok(envelope::success(
        StatusCode::OK,
        "PAYMENT_LINK_FOUND",
        shown(&links, &link, Timestamp::now()),
    ))
}

pub async fn list(
    State(links): State<Links>,
    Authenticated(caller): Authenticated,
    QueryParams(params): QueryParams<PageParams>,
) -> Result<Response, Error> {
    let page = params.page_request()?;
    let found = links.links(&caller.tenant, &page).await?;
    let (found, next) = split_page(found, &page, |l| Cursor {
        created_at: l.created_at,
        id: l.id.to_string(),
    });
    let now = Timestamp::now();
    let body: Vec<LinkV2> = found.iter().map(|l| shown(&links, l, now)).collect();
    Ok(with_next_cursor(
        envelope::success(StatusCode::OK, "PAYMENT_LINKS_FOUND", body),
        next,
    ))
}

pub async fn deactivate(
    State(links): State<Links>,
    Authenticated(caller): Authenticated,
    PathId(id): PathId,
) -> Result<Response, Error> {
    let now = Timestamp::now();
    let link = links.deactivate(&caller.tenant, &link_id(&id)?, now).await?;
    Ok(envelope::success(
        StatusCode::OK,
        "PAYMENT_LINK_DEACTIVATED",
        shown(&links, &link, now),
    ))
}
