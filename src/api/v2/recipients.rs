//! `GET /v2/account-holders/{operator}/{phone}`: v1's recipient check, in v2's words.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use serde::Serialize;

use super::{envelope, Error};
use crate::api::auth::Authenticated;
use crate::api::recipients;
use crate::domain::OperatorCode;
use crate::service::Payments;

/// What v2 says of an account holder.
#[derive(Debug, Serialize)]
pub struct HolderV2<'a> {
    pub operator: &'static str,
    pub number_user: &'a str,
    /// `active`, `inactive`, or `unknown` when the operator's protocol cannot tell.
    pub status: &'static str,
    pub name_user: Option<String>,
}

pub async fn show(
    State(payments): State<Payments>,
    Authenticated(caller): Authenticated,
    Path((operator, phone)): Path<(String, String)>,
) -> Result<Response, Error> {
    let c = recipients::check(
        &payments,
        &caller,
        (&operator, &phone),
        "number_user",
        OperatorCode::v2_code,
    )
    .await?;
    Ok(envelope::success(
        StatusCode::OK,
        "ACCOUNT_HOLDER_FOUND",
        HolderV2 {
            operator: c.operator.v2_code(),
            number_user: c.phone.as_str(),
            status: c.status,
            name_user: c.name,
        },
    ))
}
