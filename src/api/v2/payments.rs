//! v2 creations: `POST /v2/collecte/mobile-money` (shape A, snake_case; shape B, the
//! samples' camelCase, told apart by their keys), and the transfer body and answer that
//! `api::transfer` takes and gives for `POST /v2/transfers/mobile-money`.

use crate::api::dialect::TransferBody;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use serde::Deserialize;
use serde_json::Value;

use super::transactions::TransactionV2;
use super::wire::{Spelling, StatusV2};
use super::{envelope, Error};
use crate::api::auth::RecheckedCaller;
use crate::api::error::{ApiError, ErrorKind};
use crate::api::extract::parse_json;
use crate::api::fields::{self, RawAmount};
use crate::api::payment_failure;
use crate::domain::Kind;
use crate::domain::TransactionRecord;
use crate::domain::{Address, OperatorAliases, OperatorCode, ReturnUrls, Status, Timestamp};
use crate::service::payments::{RecipientCheck, Requested};
use crate::service::{Party, PaymentError, PaymentRequest, Payments};

/// The longest merchant transaction id v2 accepts.
pub(super) const MAX_TRANSACTION_ID: usize = 20;

/// Shape A of a v2 collection (the field tables).
#[derive(Debug, Deserialize)]
pub struct CollectionA {
    pub code_country: String,
    pub operator: String,
    pub currency: String,
    #[serde(default)]
    pub customer_id: Value,
    pub name_user: Option<String>,
    #[serde(default)]
    pub amount: RawAmount,
    pub transaction_id: String,
    pub email_user: Option<String>,
    pub email: Option<String>,
    pub code_otp: Option<String>,
    pub url_success: Option<String>,
    pub url_error: Option<String>,
}

/// The customer of shape B.
#[derive(Debug, Deserialize)]
pub struct CustomerB {
    #[serde(default)]
    pub phone: Value,
    pub name: Option<String>,
    pub email: Option<String>,
}

/// Shape B of a v2 collection (the request samples).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CollectionB {
    pub transaction_id: String,
    pub code_country: String,
    pub operator: String,
    pub customer: CustomerB,
    #[serde(default)]
    pub amount: RawAmount,
    pub currency: String,
    // The optional fields keep the names of shape A, which clients send in shape B too; their
    // camelCase spellings are accepted as well.
    #[serde(rename = "code_otp", alias = "codeOtp")]
    pub code_otp: Option<String>,
    #[serde(rename = "url_success", alias = "urlSuccess")]
    pub url_success: Option<String>,
    #[serde(rename = "url_error", alias = "urlError")]
    pub url_error: Option<String>,
}

/// A v2 transfer.
#[derive(Debug, Deserialize)]
pub struct TransferV2 {
    pub code_country: String,
    pub currency: String,
    #[serde(default)]
    pub customer_id: Value,
    pub name: String,
    #[serde(default)]
    pub amount: RawAmount,
    pub operator: String,
    pub transaction_id: String,
    pub email: Option<String>,
    /// Ask the operator first whether `customer_id` holds an active account (docs/payouts.md).
    #[serde(default)]
    pub check_recipient: Option<bool>,
}

/// What every v2 body carries, with each field's name as that body spells it.
struct Common<'a> {
    transaction_id: (&'a str, &'static str),
    country: (&'a str, &'static str),
    currency: &'a str,
    operator: &'a str,
    phone: (&'a Value, &'static str),
    name: (Option<&'a str>, &'static str),
    email: (Option<&'a str>, &'static str),
    amount: &'a RawAmount,
    aliases: &'a OperatorAliases,
}

/// The request of `c`'s common fields, then of what only its kind has (`purpose`), checked in
/// that order.
fn request(c: Common<'_>, purpose: impl FnOnce() -> Result<Requested, ApiError>) -> Result<PaymentRequest, ApiError> {
    let transaction_id = fields::transaction_id(
        c.transaction_id.0,
        c.transaction_id.1,
        MAX_TRANSACTION_ID,
        ErrorKind::TransactionIdTooLong,
    )?;
    fields::country(c.country.0, c.country.1)?;
    fields::currency(c.currency, "currency")?;
    let operator = fields::operator(c.operator, "operator", c.aliases)?;
    let (phone, phone_as_sent) = fields::phone_string_or_integer(c.phone.0, c.phone.1)?;
    let (first_name, last_name) = match c.name.0 {
        Some(name) => fields::split_name(name, c.name.1)?,
        // The reference's shape A may omit the name: the customer is known by number.
        None => (phone.as_str().to_owned(), String::new()),
    };
    let email = fields::optional_email(c.email.0, c.email.1)?;
    let amount = fields::amount(c.amount, "amount")?;
    Ok(PaymentRequest {
        transaction_id,
        operator: operator.operator,
        operator_alias: operator.alias,
        phone: phone.clone(),
        phone_as_sent,
        amount,
        party: Party {
            first_name,
            last_name,
            email,
            phone,
            address: Address::parse("CI", None, None).map_err(|e| ApiError::bad_request(e.to_string()))?,
        },
        purpose: purpose()?,
    })
}

/// A collection's own fields, checked in this order: the one-time code, then the return URLs.
fn collection(otp: Option<&str>, success: Option<&str>, error: Option<&str>) -> Result<Requested, ApiError> {
    let otp_code = fields::otp(otp, "code_otp")?;
    let return_urls = ReturnUrls {
        success: fields::return_url(success, "url_success")?,
        error: fields::return_url(error, "url_error")?,
    };
    Ok(Requested::Collection {
        otp_code,
        return_urls,
        link: None,
    })
}

/// The keys that mark shape B.
fn is_shape_b(body: &Value) -> bool {
    ["transactionId", "codeCountry", "customer"]
        .iter()
        .any(|k| body.get(k).is_some())
}

/// A v2 collection of either shape, its operator a reference code or one of `aliases`.
pub(crate) fn collection_request(bytes: &[u8], aliases: &OperatorAliases) -> Result<PaymentRequest, ApiError> {
    let probe: Value = parse_json(bytes)?;
    if is_shape_b(&probe) {
        let b: CollectionB = parse_json(bytes)?;
        request(
            Common {
                transaction_id: (&b.transaction_id, "transactionId"),
                country: (&b.code_country, "codeCountry"),
                currency: &b.currency,
                operator: &b.operator,
                phone: (&b.customer.phone, "customer.phone"),
                name: (b.customer.name.as_deref(), "customer.name"),
                email: (b.customer.email.as_deref(), "customer.email"),
                amount: &b.amount,
                aliases,
            },
            || collection(b.code_otp.as_deref(), b.url_success.as_deref(), b.url_error.as_deref()),
        )
    } else {
        let a: CollectionA = parse_json(bytes)?;
        let (email, email_field) = match (&a.email_user, &a.email) {
            (Some(e), _) => (Some(e.as_str()), "email_user"),
            (None, e) => (e.as_deref(), "email"),
        };
        request(
            Common {
                transaction_id: (&a.transaction_id, "transaction_id"),
                country: (&a.code_country, "code_country"),
                currency: &a.currency,
                operator: &a.operator,
                phone: (&a.customer_id, "customer_id"),
                name: (a.name_user.as_deref(), "name_user"),
                email: (email, email_field),
                amount: &a.amount,
                aliases,
            },
            || collection(a.code_otp.as_deref(), a.url_success.as_deref(), a.url_error.as_deref()),
        )
    }
}

impl TransferBody for TransferV2 {
    fn request(&self, aliases: &OperatorAliases) -> Result<PaymentRequest, ApiError> {
        request(
            Common {
                transaction_id: (&self.transaction_id, "transaction_id"),
                country: (&self.code_country, "code_country"),
                currency: &self.currency,
                operator: &self.operator,
                phone: (&self.customer_id, "customer_id"),
                name: (Some(&self.name), "name"),
                email: (self.email.as_deref(), "email"),
                amount: &self.amount,
                aliases,
            },
            || {
                Ok(Requested::Transfer {
                    recipient_check: RecipientCheck::when(self.check_recipient.unwrap_or(false)),
                    batch: None,
                })
            },
        )
    }
}

fn data<'a>(payments: &Payments, record: &'a TransactionRecord, spelling: Spelling) -> TransactionV2<'a> {
    let mut out = TransactionV2::from(record);
    if let Some(url) = payments.launch_url(record) {
        out.redirect_url = Some(Some(url));
    }
    out.status = StatusV2::spelled(record.transaction.status, spelling);
    out
}

/// A creation's answer in v2.
pub(super) fn answer(payments: &Payments, result: Result<TransactionRecord, PaymentError>) -> Result<Response, Error> {
    match result {
        Ok(record) => {
            // The live service's misspelling is its collections' alone.
            let live = record.transaction.kind() == Kind::Collection && payments.config().v2_successfull_spelling;
            let spelling = if live { Spelling::Live } else { Spelling::Standard };
            let (status, message) = match (record.transaction.status, spelling) {
                (Status::Successful, Spelling::Live) => (StatusCode::OK, "PAYMENT_IS_SUCCESSFULL"),
                (Status::Successful, Spelling::Standard) => (StatusCode::OK, "PAYMENT_IS_SUCCESSFUL"),
                (Status::Pending, _) => (StatusCode::ACCEPTED, "PAYMENT_IS_PENDING"),
                (Status::Failed, _) => (StatusCode::ACCEPTED, "PAYMENT_FAILED"),
            };
            Ok(envelope::success(status, message, data(payments, &record, spelling)))
        }
        Err(e) => {
            let (error, record) = payment_failure::describe(e, OperatorCode::v2_code);
            Err(Error(match record {
                Some(record) => error.with_data(&data(payments, &record, Spelling::Standard)),
                None => error,
            }))
        }
    }
}

pub async fn collect(
    State(payments): State<Payments>,
    RecheckedCaller(caller): RecheckedCaller,
    request: axum::extract::Request,
) -> Result<Response, Error> {
    let bytes = crate::api::extract::json_bytes(request, &()).await?;
    let request = collection_request(&bytes, &payments.config().operator_aliases)?;
    answer(
        &payments,
        payments.create_payment_as(&caller, request, Timestamp::now()).await,
    )
}
