//! What both generations share of payment links: a new link's fields read and checked (each
//! dialect names them its own way, and says so in its errors), and a link's figures as both
//! show them.

use super::error::{ApiError, ErrorKind};
use super::fields::{self, RawAmount};
use crate::domain::{LinkAmount, LinkId, LinkProblem, OperatorAliases, OperatorCode, PaymentLink, Timestamp};
use crate::service::{NewLink, ServiceError};

/// A new link's fields as a dialect's body holds them, with the names it gives them.
pub struct LinkFields<'a> {
    pub amount: (&'a RawAmount, &'static str),
    pub min_amount: (&'a RawAmount, &'static str),
    pub max_amount: (&'a RawAmount, &'static str),
    pub description: (Option<&'a str>, &'static str),
    pub reusable: (Option<bool>, &'static str),
    pub max_payments: (Option<&'a serde_json::Number>, &'static str),
    pub expires_at: (Option<&'a str>, &'static str),
    pub operators: (Option<&'a [String]>, &'static str),
    pub success_url: (Option<&'a str>, &'static str),
    pub error_url: (Option<&'a str>, &'static str),
}

impl LinkFields<'_> {
    /// The link asked for. A link is paid once unless it says `reusable`; a reusable link may
    /// cap its payments.
    pub fn parse(&self, aliases: &OperatorAliases) -> Result<NewLink, ApiError> {
        let amount = LinkAmount::new(
            fields::optional_amount(self.amount.0, self.amount.1)?,
            fields::optional_amount(self.min_amount.0, self.min_amount.1)?,
            fields::optional_amount(self.max_amount.0, self.max_amount.1)?,
        )
        .map_err(|e| match e {
            // Well formed, but no payment could ever fit.
            LinkProblem::BoundsReversed => ApiError::new(ErrorKind::LinkInvalid, format!("{}: {e}", self.min_amount.1)),
            e => ApiError::bad_request(format!("{}: {e}", self.amount.1)),
        })?;
        let description = self
            .description
            .0
            .ok_or_else(|| ApiError::bad_request(format!("{} is required", self.description.1)))?;
        let max_payments = self.max_payments.0.map(|n| whole(n, self.max_payments.1)).transpose()?;
        let max_payments = match (self.reusable.0.unwrap_or(false), max_payments) {
            (false, None | Some(1)) => Some(1),
            (false, Some(_)) => {
                return Err(ApiError::bad_request(format!(
                    "{} applies to a link with {} true; a link that is not reusable is paid once",
                    self.max_payments.1, self.reusable.1
                )))
            }
            (true, Some(n)) if n < 1 => {
                return Err(ApiError::bad_request(format!(
                    "{} must be at least 1",
                    self.max_payments.1
                )))
            }
            (true, n) => n,
        };
        let expires_at = match self.expires_at.0 {
            None => None,
            Some(raw) => Some(Timestamp::parse_iso8601(raw).ok_or_else(|| {
                ApiError::bad_request(format!(
                    "{} must be an ISO 8601 time, like 2026-12-31T23:59:59Z",
                    self.expires_at.1
                ))
            })?),
        };
        if expires_at.is_some_and(|at| at <= Timestamp::now()) {
            return Err(ApiError::new(
                ErrorKind::LinkInvalid,
                format!("{}: the expiry is in the past", self.expires_at.1),
            ));
        }
        let operators = self
            .operators
            .0
            .unwrap_or_default()
            .iter()
            .enumerate()
            .map(|(i, code)| fields::operator(code, &format!("{}[{i}]", self.operators.1), aliases).map(|o| o.operator))
            .collect::<Result<Vec<OperatorCode>, _>>()?;
        Ok(NewLink {
            amount,
            description: description.to_owned(),
            max_payments,
            expires_at,
            operators,
            success_url: fields::return_url(self.success_url.0, self.success_url.1)?,
            error_url: fields::return_url(self.error_url.0, self.error_url.1)?,
        })
    }
}

/// The largest whole number JSON carries exactly everywhere (2^53 - 1, JavaScript's
/// `Number.MAX_SAFE_INTEGER`): the bound docs/openapi.yaml gives, so a client and the server
/// agree on every number either accepts.
const MAX_WHOLE: i64 = 9_007_199_254_740_991;

/// A whole number as JSON may spell it (`3`, `3.0`) up to [`MAX_WHOLE`]; anything else is 400
/// naming `field`.
fn whole(n: &serde_json::Number, field: &str) -> Result<i64, ApiError> {
    n.as_i64()
        .or_else(|| {
            n.as_f64()
                .filter(|f| f.fract() == 0.0 && f.abs() <= MAX_WHOLE as f64)
                .map(|f| f as i64)
        })
        .filter(|v| v.abs() <= MAX_WHOLE)
        .ok_or_else(|| ApiError::bad_request(format!("{field} must be a whole number up to {MAX_WHOLE}")))
}

/// A link id from the path: anything that cannot be one is not found, unread.
pub fn link_id(raw: &str) -> Result<LinkId, ServiceError> {
    LinkId::parse(raw).ok_or(ServiceError::NotFound("payment link"))
}

/// A link's amount as both dialects show it: the fixed amount, or the bounds.
pub fn amounts(link: &PaymentLink) -> (Option<String>, Option<String>, Option<String>) {
    match link.amount {
        LinkAmount::Fixed(amount) => (Some(amount.to_string()), None, None),
        LinkAmount::Open { min, max } => (None, Some(min.to_string()), Some(max.to_string())),
    }
}
