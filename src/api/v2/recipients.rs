//! `GET /v2/account-holders/{operator}/{phone}`: v1's recipient check, in v2's words.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use serde::Serialize;

use super::{envelope, Error};
use crate::api::auth::Authenticated;
use crate::api::fields;
use crate::api::payment_failure;
use crate::domain::OperatorCode;
use crate::operator::AccountHolder;
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
    let operator = fields::operator(&operator, "operator", &payments.config().operator_aliases)?.operator;
    let phone = fields::phone(&phone, "number_user")?;
    let holder = payments
        .account_holder(&caller.tenant, operator, &phone)
        .await
        .map_err(|e| payment_failure::describe(e, OperatorCode::v2_code).0)?;
    let (status, name_user) = match holder {
        AccountHolder::Active { name } => ("active", name),
        AccountHolder::Inactive => ("inactive", None),
        AccountHolder::Unknown => ("unknown", None),
    };
    Ok(envelope::success(
        StatusCode::OK,
        "ACCOUNT_HOLDER_FOUND",
        HolderV2 {
            operator: operator.v2_code(),
            number_user: phone.as_str(),
            status,
            name_user,
        },
    ))
}
