//! A new link's body, as both generations read it (`cased!`), and its fields checked, each
//! error naming the field as the request's generation does.

use serde::Deserialize;

use crate::api::cased::cased;
use crate::api::error::{ApiError, ErrorKind};
use crate::api::fields::{self, RawAmount};
use crate::domain::LinkTerms;
use crate::domain::{LinkAmount, LinkProblem, OperatorAliases, OperatorCode, Timestamp};

cased! {
    /// The body of `POST .../payment-links`.
    #[derive(Debug, Deserialize)]
    pub struct CreateLink / CreateLinkCamel {
        #[serde(default)]
        pub amount: RawAmount,
        #[serde(default)]
        pub min_amount: RawAmount,
        #[serde(default)]
        pub max_amount: RawAmount,
        pub description: Option<String>,
        pub reusable: Option<bool>,
        pub max_payments: Option<serde_json::Number>,
        pub expires_at: Option<String>,
        pub operators: Option<Vec<String>>,
        pub success_url: Option<String>,
        pub error_url: Option<String>,
    }
}

impl CreateLink {
    /// The link asked for, errors naming fields as `name` spells them. A link is paid once
    /// unless it says `reusable`; a reusable link may cap its payments.
    pub fn parse(
        &self,
        name: fn(&'static str) -> &'static str,
        aliases: &OperatorAliases,
    ) -> Result<LinkTerms, ApiError> {
        let amount = LinkAmount::new(
            fields::optional_amount(&self.amount, name("amount"))?,
            fields::optional_amount(&self.min_amount, name("min_amount"))?,
            fields::optional_amount(&self.max_amount, name("max_amount"))?,
        )
        .map_err(|e| match e {
            // Well formed, but no payment could ever fit.
            LinkProblem::BoundsReversed => {
                ApiError::new(ErrorKind::LinkInvalid, format!("{}: {e}", name("min_amount")))
            }
            e => ApiError::bad_request(format!("{}: {e}", name("amount"))),
        })?;
        let description = self
            .description
            .as_deref()
            .ok_or_else(|| ApiError::bad_request(format!("{} is required", name("description"))))?;
        let max_payments = self
            .max_payments
            .as_ref()
            .map(|n| whole(n, name("max_payments")))
            .transpose()?;
        let max_payments = match (self.reusable.unwrap_or(false), max_payments) {
            (false, None | Some(1)) => Some(1),
            (false, Some(_)) => {
                return Err(ApiError::bad_request(format!(
                    "{} applies to a link with {} true; a link that is not reusable is paid once",
                    name("max_payments"),
                    name("reusable")
                )))
            }
            (true, Some(n)) if n < 1 => {
                return Err(ApiError::bad_request(format!(
                    "{} must be at least 1",
                    name("max_payments")
                )))
            }
            (true, n) => n,
        };
        let expires_at = match self.expires_at.as_deref() {
            None => None,
            Some(raw) => Some(Timestamp::parse_iso8601(raw).ok_or_else(|| {
                ApiError::bad_request(format!(
                    "{} must be an ISO 8601 time, like 2026-12-31T23:59:59Z",
                    name("expires_at")
                ))
            })?),
        };
        if expires_at.is_some_and(|at| at <= Timestamp::now()) {
            return Err(ApiError::new(
                ErrorKind::LinkInvalid,
                format!("{}: the expiry is in the past", name("expires_at")),
            ));
        }
        let operators = self
            .operators
            .as_deref()
            .unwrap_or_default()
            .iter()
            .enumerate()
            .map(|(i, code)| {
                fields::operator(code, &format!("{}[{i}]", name("operators")), aliases).map(|o| o.operator)
            })
            .collect::<Result<Vec<OperatorCode>, _>>()?;
        Ok(LinkTerms {
            amount,
            description: description.to_owned(),
            max_payments,
            expires_at,
            operators,
            success_url: fields::return_url(self.success_url.as_deref(), name("success_url"))?,
            error_url: fields::return_url(self.error_url.as_deref(), name("error_url"))?,
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
