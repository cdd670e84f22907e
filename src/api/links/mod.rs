//! Payment links, in both generations: `POST .../payment-links`, `GET .../payment-links`,
//! `GET .../payment-links/{id}`, `POST .../payment-links/{id}/deactivate`. One handler a route,
//! generic over the generation; v2 writes a link as [`Link`] spells it, v1 in camelCase, and
//! they differ beyond casing only in the end of it (`Generation::link_tail`).

mod body;

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use serde::Serialize;

use self::body::CreateLink;
use super::auth::Authenticated;
use super::cased::{cased, Spelled};
use super::dialect::Generation;
use super::extract::{JsonBody, PathId, QueryParams};
use super::pagination::{with_next_cursor, PageParams};
use crate::domain::page::split_page;
use crate::domain::{LinkAmount, LinkId, PaymentLink, Timestamp};
use crate::service::{Links, Payments, ServiceError};

cased! {
    /// A link as both generations show it; `tail` is what they shape differently.
    #[derive(Debug, Serialize)]
    pub struct Link<'a, Tail> / LinkCamel {
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
        #[serde(flatten)]
        pub tail: Tail,
    }
}

fn shown<'a, D: Generation>(links: &Links, link: &'a PaymentLink, now: Timestamp) -> Link<'a, impl Serialize + 'a> {
    let (amount, min_amount, max_amount) = match link.terms.amount {
        LinkAmount::Fixed(amount) => (Some(amount.to_string()), None, None),
        LinkAmount::Open { min, max } => (None, Some(min.to_string()), Some(max.to_string())),
    };
    Link {
        id: link.id.as_str(),
        url: links.url(&link.id),
        active: link.active_at(now),
        description: &link.terms.description,
        amount,
        min_amount,
        max_amount,
        reusable: link.terms.max_payments != Some(1),
        max_payments: link.terms.max_payments,
        expires_at: link.terms.expires_at.map(D::date),
        operators: link.terms.operators.iter().map(|o| D::operator(*o)).collect(),
        success_url: link.terms.success_url.as_deref(),
        error_url: link.terms.error_url.as_deref(),
        tail: D::link_tail(link),
    }
}

/// A link id from the path: anything that cannot be one is not found, unread.
fn link_id(raw: &str) -> Result<LinkId, ServiceError> {
    LinkId::parse(raw).ok_or(ServiceError::NotFound("payment link"))
}

pub async fn create<D: Generation>(
    State(links): State<Links>,
    State(payments): State<Payments>,
    Authenticated(caller): Authenticated,
    JsonBody(Spelled(request, _)): JsonBody<Spelled<D, CreateLink>>,
) -> Result<Response, D::Error> {
    let asked = request.parse(D::field, &payments.config().operator_aliases)?;
    let now = Timestamp::now();
    let link = links.create(&caller.tenant, asked, now).await?;
    let body = D::cased(shown::<D>(&links, &link, now));
    Ok(D::success(StatusCode::OK, "PAYMENT_LINK_CREATED", body))
}

pub async fn fetch<D: Generation>(
    State(links): State<Links>,
    Authenticated(caller): Authenticated,
    PathId(id): PathId,
) -> Result<Response, D::Error> {
    let link = links.link(&caller.tenant, &link_id(&id)?).await?;
    let body = D::cased(shown::<D>(&links, &link, Timestamp::now()));
    Ok(D::success(StatusCode::OK, "PAYMENT_LINK_FOUND", body))
}

pub async fn list<D: Generation>(
    State(links): State<Links>,
    Authenticated(caller): Authenticated,
    QueryParams(params): QueryParams<PageParams>,
) -> Result<Response, D::Error> {
    let page = params.page_request()?;
    let found = links.links(&caller.tenant, &page).await?;
    let (found, next) = split_page(found, &page);
    let now = Timestamp::now();
    let body: Vec<_> = found.iter().map(|l| shown::<D>(&links, l, now)).collect();
    let answer = D::success(StatusCode::OK, "PAYMENT_LINKS_FOUND", D::cased(body));
    Ok(with_next_cursor(answer, next))
}

pub async fn deactivate<D: Generation>(
    State(links): State<Links>,
    Authenticated(caller): Authenticated,
    PathId(id): PathId,
) -> Result<Response, D::Error> {
    let now = Timestamp::now();
    let link = links.deactivate(&caller.tenant, &link_id(&id)?, now).await?;
    let body = D::cased(shown::<D>(&links, &link, now));
    Ok(D::success(StatusCode::OK, "PAYMENT_LINK_DEACTIVATED", body))
}
