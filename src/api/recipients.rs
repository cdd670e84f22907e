//! The recipient check (docs/payouts.md), in both generations, one handler a route generic
//! over the generation: `GET .../account-holders/{operator}/{phone}` says whether a number holds
//! an active account with an operator, and its holder's name, masked, or whether the name given
//! to confirm is the holder's; `GET .../account-holders/lookups` lists the checks this merchant
//! made. Nothing is sent by asking.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use serde::{Deserialize, Serialize};

use super::auth::Authenticated;
use super::cased::{cased, Spelled};
use super::dialect::Generation;
use super::error::{ApiError, ErrorKind};
use super::extract::QueryParams;
use super::pagination::{with_next_cursor, PageParams};
use super::{fields, payment_failure};
use crate::domain::page::split_page;
use crate::domain::{RecipientLookup, Timestamp};
use crate::service::{Checked, LookupError, Principal, Recipients};

cased! {
    /// `?name_user=` (v1: `?name=`): the holder's name the merchant expects.
    #[derive(Debug, Deserialize)]
    pub struct Confirm / ConfirmCamel {
        pub name_user: Option<String> => "name",
    }
}

cased! {
    /// What both generations say of an account holder.
    #[derive(Debug, Serialize)]
    pub struct Holder<'a> / HolderCamel {
        pub operator: &'static str,
        pub number_user: &'a str => "phone",
        /// `active`, `inactive`, or `unknown` when the operator's protocol cannot tell.
        pub status: &'static str,
        /// Masked ("A. Tr***"); absent when a name to confirm was given.
        pub name_user: Option<String> => "name",
        /// Whether the name given to confirm is the holder's; absent when none was given.
        #[serde(skip_serializing_if = "Option::is_none")]
        pub name_match: Option<bool>,
    }
}

cased! {
    /// A recipient check as both generations list it.
    #[derive(Debug, Serialize)]
    pub struct Lookup<'a> / LookupCamel {
        pub id: &'a str,
        pub operator: &'static str,
        /// The number's keyed hash: the same number gives the same hash.
        pub phone_hash: &'a str,
        /// `active`, `inactive`, `unknown`, or `unavailable` when the operator could not be asked.
        pub status: &'static str,
        pub name_match: Option<bool>,
        pub asked_at: String,
    }
}

pub async fn show<D: Generation>(
    State(recipients): State<Recipients>,
    Authenticated(caller): Authenticated,
    Path((operator, phone)): Path<(String, String)>,
    QueryParams(Spelled(confirm, _)): QueryParams<Spelled<D, Confirm>>,
) -> Result<Response, D::Error> {
    let name = confirm.name_user.as_deref();
    let c = check::<D>(&recipients, &caller, (&operator, &phone), name).await?;
    let holder = Holder {
        operator: D::operator(c.operator),
        number_user: c.phone.as_str(),
        status: c.outcome.as_str(),
        name_user: c.masked_name,
        name_match: name.map(|_| c.name_matched.unwrap_or(false)),
    };
    Ok(D::success(StatusCode::OK, "ACCOUNT_HOLDER_FOUND", D::cased(holder)))
}

pub async fn lookups<D: Generation>(
    State(recipients): State<Recipients>,
    Authenticated(caller): Authenticated,
    QueryParams(params): QueryParams<PageParams>,
) -> Result<Response, D::Error> {
    let page = params.page_request()?;
    let found = recipients.lookups(&caller.tenant, &page).await?;
    let (found, next) = split_page(found, &page);
    let body: Vec<Lookup> = found.iter().map(lookup::<D>).collect();
    let answer = D::success(StatusCode::OK, "ACCOUNT_HOLDER_LOOKUPS_FOUND", D::cased(body));
    Ok(with_next_cursor(answer, next))
}

fn lookup<D: Generation>(l: &RecipientLookup) -> Lookup<'_> {
    Lookup {
        id: &l.id,
        operator: D::operator(l.operator),
        phone_hash: &l.phone_hash,
        status: l.outcome.as_str(),
        name_match: l.name_matched,
        // Both generations write a lookup's time to the millisecond.
        asked_at: l.asked_at.iso8601_millis(),
    }
}

/// The longest name a merchant may give to confirm.
const MAX_CONFIRM_CHARS: usize = 200;

/// Asks `operator` (as the path spells it) about `phone` for `caller`, confirming `name` when
/// given; errors name fields and operators as `D` does.
async fn check<D: Generation>(
    recipients: &Recipients,
    caller: &Principal,
    (operator, phone): (&str, &str),
    name: Option<&str>,
) -> Result<Checked, ApiError> {
    let aliases = &recipients.config().operator_aliases;
    let operator = fields::operator(operator, "operator", aliases)?.operator;
    let phone = fields::phone(phone, D::field("number_user"))?;
    let name = match name {
        None => None,
        Some(n) if n.trim().is_empty() || n.chars().count() > MAX_CONFIRM_CHARS || n.chars().any(char::is_control) => {
            return Err(ApiError::bad_request(format!(
                "{} must be the holder's name to confirm: 1 to {MAX_CONFIRM_CHARS} characters, no control character",
                D::field("name_user")
            )))
        }
        Some(n) => Some(n),
    };
    recipients
        .check(&caller.tenant, operator, phone, name, Timestamp::now())
        .await
        .map_err(refusal::<D>)
}

fn refusal<D: Generation>(e: LookupError) -> ApiError {
    let reason = e.to_string();
    match e {
        LookupError::NotAllowed(_) => ApiError::new(ErrorKind::RecipientCheckOff, reason),
        LookupError::QuotaUsed { retry_after_s, .. } => {
            let mut refused = ApiError::new(ErrorKind::TooManyRequests, reason);
            refused.retry_after = Some(retry_after_s);
            refused
        }
        LookupError::Payment(e) => payment_failure::describe(e, D::operator).0,
        LookupError::Service(e) => e.into(),
    }
}
