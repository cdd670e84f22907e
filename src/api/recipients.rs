//! What both generations share of the recipient check (docs/payouts.md): the path read, the
//! operator asked, and its answer as a status word and a name. Each dialect names the fields.

use super::error::ApiError;
use super::{fields, payment_failure};
use crate::domain::{Msisdn, OperatorCode};
use crate::operator::AccountHolder;
use crate::service::{Payments, Principal};

/// What an operator said of a number: `active` (and the holder's name, where given),
/// `inactive`, or `unknown` when its protocol cannot tell.
pub struct Checked {
    pub operator: OperatorCode,
    pub phone: Msisdn,
    pub status: &'static str,
    pub name: Option<String>,
}

/// Asks `operator` (as the path spells it) about `phone` for `caller`; errors name
/// `phone_field` and spell operators with `code`.
pub async fn check(
    payments: &Payments,
    caller: &Principal,
    (operator, phone): (&str, &str),
    phone_field: &str,
    code: fn(OperatorCode) -> &'static str,
) -> Result<Checked, ApiError> {
    let operator = fields::operator(operator, "operator", &payments.config().operator_aliases)?.operator;
    let phone = fields::phone(phone, phone_field)?;
    let holder = payments
        .account_holder(&caller.tenant, operator, &phone)
        .await
        .map_err(|e| payment_failure::describe(e, code).0)?;
    let (status, name) = match holder {
        AccountHolder::Active { name } => ("active", name),
        AccountHolder::Inactive => ("inactive", None),
        AccountHolder::Unknown => ("unknown", None),
    };
    Ok(Checked {
        operator,
        phone,
        status,
        name,
    })
}
