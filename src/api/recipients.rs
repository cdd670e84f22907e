//! What both generations share of the recipient check (docs/payouts.md): the path and the
//! name to confirm read, the check asked (`service::recipients`), its refusals, and the list of
//! lookups made. Each dialect names the fields.

use super::error::{ApiError, ErrorKind};
use super::{fields, payment_failure};
use crate::domain::{OperatorCode, PageRequest, RecipientLookup};
use crate::service::{Checked, LookupError, Principal, Recipients};

/// The longest name a merchant may give to confirm.
const MAX_CONFIRM_CHARS: usize = 200;

/// Asks `operator` (as the path spells it) about `phone` for `caller`, confirming `name` when
/// given; errors name `phone_field` and `name_field` and spell operators with `code`.
pub async fn check(
    recipients: &Recipients,
    caller: &Principal,
    (operator, phone): (&str, &str),
    (phone_field, name_field): (&str, &str),
    name: Option<&str>,
    code: fn(OperatorCode) -> &'static str,
) -> Result<Checked, ApiError> {
    let aliases = &recipients.config().operator_aliases;
    let operator = fields::operator(operator, "operator", aliases)?.operator;
    let phone = fields::phone(phone, phone_field)?;
    let name = match name {
        None => None,
        Some(n) if n.trim().is_empty() || n.chars().count() > MAX_CONFIRM_CHARS || n.chars().any(char::is_control) => {
            return Err(ApiError::bad_request(format!(
                "{name_field} must be the holder's name to confirm: 1 to {MAX_CONFIRM_CHARS} characters, no control character"
            )))
        }
        Some(n) => Some(n),
    };
    recipients
        .check(&caller.tenant, operator, phone, name, crate::domain::Timestamp::now())
        .await
        .map_err(|e| refusal(e, code))
}

fn refusal(e: LookupError, code: fn(OperatorCode) -> &'static str) -> ApiError {
    let reason = e.to_string();
    match e {
        LookupError::NotAllowed(_) => ApiError::new(ErrorKind::RecipientCheckOff, reason),
        LookupError::QuotaUsed { retry_after_s, .. } => {
            let mut refused = ApiError::new(ErrorKind::TooManyRequests, reason);
            refused.retry_after = Some(retry_after_s);
            refused
        }
        LookupError::Payment(e) => payment_failure::describe(e, code).0,
        LookupError::Service(e) => e.into(),
    }
}

/// The caller's lookups, newest first.
pub async fn lookups(
    recipients: &Recipients,
    caller: &Principal,
    page: &PageRequest,
) -> Result<Vec<RecipientLookup>, ApiError> {
    Ok(recipients.lookups(&caller.tenant, page).await?)
}
