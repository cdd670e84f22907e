//! `GET /v1/account-holders/{operator}/{phone}`: whether a number holds an active account with
//! an operator, and its holder's name where the operator gives one (docs/payouts.md). Nothing is
//! sent by asking.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use serde::Serialize;

use super::{envelope, Error};
use crate::api::auth::Authenticated;
use crate::api::recipients;
use crate::domain::OperatorCode;
use crate::service::Payments;

/// What v1 says of an account holder.
#[derive(Debug, Serialize)]
pub struct HolderV1<'a> {
    pub operator: &'static str,
    pub phone: &'a str,
    /// `active`, `inactive`, or `unknown` when the operator's protocol cannot tell.
    pub status: &'static str,
    pub name: Option<String>,
}

pub async fn show(
    State(payments): State<Payments>,
    Authenticated(caller): Authenticated,
    Path((operator, phone)): Path<(String, String)>,
) -> Result<Response, Error> {
    let c = recipients::check(&payments, &caller, (&operator, &phone), "phone", OperatorCode::v1_code).await?;
    Ok(envelope::success(
        StatusCode::OK,
        HolderV1 {
            operator: c.operator.v1_code(),
            phone: c.phone.as_str(),
            status: c.status,
            name: c.name,
        },
    ))
}
