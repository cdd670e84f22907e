//! Parsing of the payment fields both generations share, with errors that name the field as
//! the request spelled it and carry the right error kind (400, or 403 for an amount).

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;

use super::error::{ApiError, ErrorKind};
use crate::domain::amount::AmountProblem;
use crate::domain::text::checked_text;
use crate::domain::{Amount, Msisdn, NamedOperator, OperatorAliases, PersonName, RefundReason, TextId, TransactionId};

/// An amount exactly as the body spelled it: the raw JSON text of the value. A `Value` would
/// hold a non-integer number as an `f64`, which rounds `99.99999999999999999` to 100 and
/// `1000000.0000000001` to 1000000; the text keeps every digit (and any exponent) to judge.
/// Absent and `null` are both `None`.
#[derive(Debug, Default, Deserialize)]
#[serde(transparent)]
pub struct RawAmount(Option<Box<RawValue>>);

/// An amount sent as a string (`"1500"`, `"1500.00"`) or a JSON number (`1500`, `1500.0`).
pub fn amount(raw: &RawAmount, field: &str) -> Result<Amount, ApiError> {
    let Some(text) = raw.0.as_deref().map(RawValue::get) else {
        return Err(ApiError::bad_request(format!("{field} is required")));
    };
    let parsed = match text.as_bytes().first() {
        Some(b'"') => match serde_json::from_str::<String>(text) {
            Ok(string) => Amount::parse_text(&string),
            Err(_) => Err(AmountProblem::Malformed),
        },
        Some(b'-' | b'0'..=b'9') => Amount::parse_json_number(text),
        // true, false, an array or an object.
        _ => Err(AmountProblem::Malformed),
    };
    parsed.map_err(|problem| match problem {
        AmountProblem::Malformed => ApiError::bad_request(format!("{field} {problem}")),
        AmountProblem::OutOfRange => ApiError::new(ErrorKind::AmountOutOfRange, format!("{field} {problem}")),
    })
}

/// An amount that may be left out: `None` when it was.
pub fn optional_amount(raw: &RawAmount, field: &str) -> Result<Option<Amount>, ApiError> {
    match raw.0 {
        None => Ok(None),
        Some(_) => amount(raw, field).map(Some),
    }
}

/// An operator code: any code either generation uses, or an alias of this deployment.
pub fn operator(code: &str, field: &str, aliases: &OperatorAliases) -> Result<NamedOperator, ApiError> {
    aliases
        .resolve(code)
        .map_err(|e| ApiError::new(ErrorKind::UnsupportedOperator, format!("{field}: {e}")))
}

/// The merchant's transaction identifier: not blank, at most `max` characters, printable.
pub fn transaction_id(raw: &str, field: &str, max: usize, too_long: ErrorKind) -> Result<TransactionId, ApiError> {
    if raw.chars().count() > max {
        return Err(ApiError::new(
            too_long,
            format!("{field} must be at most {max} characters"),
        ));
    }
    checked_text(raw, max)
        .map(TransactionId::from_text)
        .map_err(|e| ApiError::bad_request(format!("{field} {e}")))
}

pub fn currency(raw: &str, field: &str) -> Result<(), ApiError> {
    the_only(raw, field, "XOF", "currency")
}

pub fn country(raw: &str, field: &str) -> Result<(), ApiError> {
    the_only(raw, field, "CI", "country")
}

/// A field the reference sends that can take one value only here (`what` names it).
fn the_only(raw: &str, field: &str, only: &str, what: &str) -> Result<(), ApiError> {
    if raw == only {
        Ok(())
    } else {
        Err(ApiError::bad_request(format!(
            "{field} must be {only:?}, the only {what}, not {raw:?}"
        )))
    }
}

pub fn phone(raw: &str, field: &str) -> Result<Msisdn, ApiError> {
    Msisdn::parse(raw).map_err(|e| ApiError::bad_request(format!("{field} {e}")))
}

/// A v2 number sent as a string or as an integer that lost its leading zero (`712345678`, or
/// `712345678.0`: JSON has one number type, so a whole number with a zero fraction is the same
/// integer). Returns the number and how v2 echoes it (`number_user`): as sent for a string,
/// normalized for an integer.
pub fn phone_string_or_integer(value: &Value, field: &str) -> Result<(Msisdn, String), ApiError> {
    match value {
        Value::String(text) => Ok((phone(text, field)?, text.clone())),
        Value::Number(n) => {
            let msisdn = n
                .as_u64()
                .or_else(|| whole_number(n.as_f64()?))
                .ok_or_else(|| ApiError::bad_request(format!("{field} must be a phone number")))
                .and_then(|i| Msisdn::from_integer(i).map_err(|e| ApiError::bad_request(format!("{field} {e}"))))?;
            let normalized = msisdn.as_str().to_owned();
            Ok((msisdn, normalized))
        }
        Value::Null => Err(ApiError::bad_request(format!("{field} is required"))),
        _ => Err(ApiError::bad_request(format!(
            "{field} must be a phone number, as a string or an integer"
        ))),
    }
}

/// `value` as an integer when it is one, below 2^53 where every integer is exact in an `f64`.
fn whole_number(value: f64) -> Option<u64> {
    (value.fract() == 0.0 && (0.0..9_007_199_254_740_992.0).contains(&value)).then_some(value as u64)
}

/// An optional return URL (`net::return_url`): `http` or `https`, free of control characters.
pub fn return_url(raw: Option<&str>, field: &str) -> Result<Option<String>, ApiError> {
    crate::net::return_url(raw.unwrap_or("")).map_err(|e| ApiError::bad_request(format!("{field} {e}")))
}

/// ALPHA's one-time code: a few printable characters.
pub fn otp(raw: Option<&str>, field: &str) -> Result<Option<String>, ApiError> {
    raw.map(|r| checked_text(r, 16).map_err(|e| ApiError::bad_request(format!("{field} {e}"))))
        .transpose()
}

/// A refund's optional reason: absent or null means none; text is held to its rules (not
/// blank, at most 255 characters, no control character).
pub fn refund_reason(raw: Option<&str>, field: &str) -> Result<Option<RefundReason>, ApiError> {
    raw.map(|r| RefundReason::parse(r).map_err(|e| ApiError::bad_request(format!("{field} {e}"))))
        .transpose()
}

/// An optional email: absent, null or empty means none.
pub fn optional_email(raw: Option<&str>, field: &str) -> Result<Option<String>, ApiError> {
    match raw.filter(|r| !r.is_empty()) {
        None => Ok(None),
        Some(r) => crate::domain::Email::parse(r)
            .map(|e| Some(e.as_str().to_owned()))
            .map_err(|e| ApiError::bad_request(format!("{field} {e}"))),
    }
}

/// A v2 full name: the first word is the first name, the rest the last name. The whole name is
/// held to the limit of any one name, as v1's first and last names are.
pub fn split_name(raw: &str, field: &str) -> Result<(String, String), ApiError> {
    let name = PersonName::parse(raw).map_err(|e| ApiError::bad_request(format!("{field} {e}")))?;
    let trimmed = name.as_str().trim();
    Ok(match trimmed.split_once(char::is_whitespace) {
        Some((first, rest)) => (first.to_owned(), rest.trim().to_owned()),
        None => (trimmed.to_owned(), String::new()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::extract::parse_json;

    #[derive(Debug, Deserialize)]
    struct Body {
        #[serde(default)]
        amount: RawAmount,
    }

    /// The amount of `{"amount": <json>}`, read as the handlers read bodies.
    fn amount_of(json: &str) -> Result<i64, (ErrorKind, String)> {
        let body: Body = parse_json(format!("{{\"amount\": {json}}}").as_bytes()).map_err(|e| (e.kind, e.reason))?;
        amount(&body.amount, "amount")
            .map(Amount::francs)
            .map_err(|e| (e.kind, e.reason))
    }

    #[test]
    fn numbers_and_strings_are_read_from_the_json_text_exactly() {
        for (json, francs) in [
            ("1500", 1500),
            ("1500.0", 1500),
            (" 1500.000 ", 1500),
            ("\"1500.00\"", 1500),
            ("\"\\u0031500\"", 1500),
        ] {
            assert_eq!(amount_of(json), Ok(francs), "{json}");
        }
        for json in [
            "99.99999999999999999",
            "1000000.0000000001",
            "1e2",
            "1.5e3",
            "1E3",
            "100.5",
            "\"1e3\"",
            "true",
            "[1500]",
            "{}",
        ] {
            assert_eq!(amount_of(json).map_err(|e| e.0), Err(ErrorKind::BadRequest), "{json}");
        }
        for json in [
            "99",
            "-100",
            "1000001",
            "18446744073709551616",
            "1000000000000000000000000000000.0",
        ] {
            assert_eq!(
                amount_of(json).map_err(|e| e.0),
                Err(ErrorKind::AmountOutOfRange),
                "{json}"
            );
        }
    }

    #[test]
    fn a_phone_integer_with_a_zero_fraction_is_the_same_integer() {
        for value in [serde_json::json!(712345678), serde_json::json!(712345678.0)] {
            let (msisdn, echoed) = phone_string_or_integer(&value, "customer_id").unwrap();
            assert_eq!((msisdn.as_str(), echoed.as_str()), ("0712345678", "0712345678"));
        }
        for value in [
            serde_json::json!(712345678.5),
            serde_json::json!(-712345678.0),
            serde_json::json!(1e300),
        ] {
            assert!(phone_string_or_integer(&value, "customer_id").is_err(), "{value}");
        }
    }

    #[test]
    fn a_missing_or_null_amount_is_required() {
        for body in ["{}", "{\"amount\": null}"] {
            let body: Body = parse_json(body.as_bytes()).unwrap();
            let e = amount(&body.amount, "amount").unwrap_err();
            assert_eq!(
                (e.kind, e.reason.as_str()),
                (ErrorKind::BadRequest, "amount is required")
            );
        }
    }
}
