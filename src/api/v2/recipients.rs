//! `GET /v2/account-holders/{operator}/{phone}` and `GET /v2/account-holders/lookups`: v1's
//! recipient check and its list of lookups, in v2's words.

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

/// What v2 says of an account holder.
#[derive(Debug, Serialize)]
pub struct HolderV2<'a> {
    pub operator: &'static str,
    pub number_user: &'a str,
    /// `active`, `inactive`, or `unknown` when the operator's protocol cannot tell.
    pub status: &'static str,
    /// Masked ("A. Tr***"); absent when a name to confirm was given.
    pub name_user: Option<String>,
    /// Whether the name given to confirm is the holder's; absent when none was given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name_match: Option<bool>,
}

/// `?name_user=`: the holder's name the merchant expects.
#[derive(Debug, Default, Deserialize)]
pub struct ConfirmV2 {
    pub name_user: Option<String>,
}

pub async fn show(
    State(recipients): State<Recipients>,
    Authenticated(caller): Authenticated,
    Path((operator, phone)): Path<(String, String)>,
    QueryParams(confirm): QueryParams<ConfirmV2>,
) -> Result<Response, Error> {
    let c = recipients::check(
        &recipients,
        &caller,
        (&operator, &phone),
        ("number_user", "name_user"),
        confirm.name_user.as_deref(),
        OperatorCode::v2_code,
    )
    .await?;
    Ok(envelope::success(
        StatusCode::OK,
        "ACCOUNT_HOLDER_FOUND",
        HolderV2 {
            operator: c.operator.v2_code(),
            number_user: c.phone.as_str(),
            status: c.outcome.as_str(),
            name_user: c.masked_name,
            name_match: confirm.name_user.as_ref().map(|_| c.name_matched.unwrap_or(false)),
        },
    ))
}

/// A recipient check as v2 lists it.
#[derive(Debug, Serialize)]
pub struct LookupV2<'a> {
    pub id: &'a str,
    pub operator: &'static str,
    /// The number's keyed hash: the same number gives the same hash.
    pub phone_hash: &'a str,
    /// `active`, `inactive`, `unknown`, or `unavailable` when the operator could not be asked.
    pub status: &'static str,
    pub name_match: Option<bool>,
    pub asked_at: String,
}

fn lookup_v2(l: &RecipientLookup) -> LookupV2<'_> {
    LookupV2 {
        id: &l.id,
        operator: l.operator.v2_code(),
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
    let body: Vec<LookupV2> = found.iter().map(lookup_v2).collect();
    Ok(with_next_cursor(
        envelope::success(StatusCode::OK, "ACCOUNT_HOLDER_LOOKUPS_FOUND", body),
        next,
    ))
}
