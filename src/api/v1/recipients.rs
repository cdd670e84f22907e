//! `GET /v1/account-holders/{operator}/{phone}`: whether a number holds an active account with
//! an operator, and its holder's name, masked, or whether the name given in `?name=` is the
//! holder's (docs/payouts.md); `GET /v1/account-holders/lookups`: the checks this merchant
//! made. Nothing is sent by asking.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use serde::{Deserialize, Serialize};

use super::{envelope, Error};
use crate::api::auth::Authenticated;
use crate::api::extract::QueryParams;
use crate::api::pagination::{with_next_cursor, PageParams};
use crate::api::recipients;
use crate::domain::page::split_page;
use crate::domain::{Cursor, OperatorCode, RecipientLookup};
use crate::service::Recipients;

/// What v1 says of an account holder.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HolderV1<'a> {
    pub operator: &'static str,
    pub phone: &'a str,
    /// `active`, `inactive`, or `unknown` when the operator's protocol cannot tell.
    pub status: &'static str,
    /// Masked ("A. Tr***"); absent when a name to confirm was given.
    pub name: Option<String>,
    /// Whether the name given to confirm is the holder's; absent when none was given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name_match: Option<bool>,
}

/// `?name=`: the holder's name the merchant expects.
#[derive(Debug, Default, Deserialize)]
pub struct ConfirmV1 {
    pub name: Option<String>,
}

pub async fn show(
    State(recipients): State<Recipients>,
    Authenticated(caller): Authenticated,
    Path((operator, phone)): Path<(String, String)>,
    QueryParams(confirm): QueryParams<ConfirmV1>,
) -> Result<Response, Error> {
    let c = recipients::check(
        &recipients,
        &caller,
        (&operator, &phone),
        ("phone", "name"),
        confirm.name.as_deref(),
        OperatorCode::v1_code,
    )
    .await?;
    Ok(envelope::success(
        StatusCode::OK,
        HolderV1 {
            operator: c.operator.v1_code(),
            phone: c.phone.as_str(),
            status: c.outcome.as_str(),
            name: c.masked_name,
            name_match: confirm.name.as_ref().map(|_| c.name_matched.unwrap_or(false)),
        },
    ))
}

/// A recipient check as v1 lists it.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LookupV1<'a> {
    pub id: &'a str,
    pub operator: &'static str,
    /// The number's keyed hash: the same number gives the same hash.
    pub phone_hash: &'a str,
    /// `active`, `inactive`, `unknown`, or `unavailable` when the operator could not be asked.
    pub status: &'static str,
    pub name_match: Option<bool>,
    pub asked_at: String,
}

fn lookup_v1(l: &RecipientLookup) -> LookupV1<'_> {
    LookupV1 {
        id: &l.id,
        operator: l.operator.v1_code(),
        phone_hash: &l.phone_hash,
        status: l.outcome.as_str(),
        name_match: l.name_matched,
        asked_at: l.asked_at.iso8601_millis(),
    }
}

pub async fn lookups(
    State(recipients): State<Recipients>,
    Authenticated(caller): Authenticated,
    QueryParams(params): QueryParams<PageParams>,
) -> Result<Response, Error> {
    let page = params.page_request()?;
    let found = recipients::lookups(&recipients, &caller, &page).await?;
    let (found, next) = split_page(found, &page, |l| Cursor {
        created_at: l.asked_at,
        id: l.id.clone(),
    });
    let body: Vec<LookupV1> = found.iter().map(lookup_v1).collect();
    Ok(with_next_cursor(envelope::success(StatusCode::OK, body), next))
}
