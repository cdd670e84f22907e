//! v1 creations: `POST /v1/collecte/mobile-money`, and the transfer body and answer that
//! `api::transfer` takes and gives for `POST /v1/transfer/mobile-money` and `POST
//! /v1/transfers/mobile-money` (where the body's keys decide the generation).

use crate::api::dialect::TransferBody;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use serde::Deserialize;

use super::customers::AddressIn;
use super::transactions::TransactionOut;
use super::{envelope, Error};
use crate::api::auth::{Authenticated, RecheckedCaller};
use crate::api::error::{ApiError, ErrorKind};
use crate::api::extract::JsonBody;
use crate::api::fields::{self, RawAmount};
use crate::api::payment_failure;
use crate::domain::TransactionRecord;
use crate::domain::{OperatorAliases, OperatorCode, PersonName, ReturnUrls, Status, Timestamp};
use crate::service::payments::{RecipientCheck, Requested};
use crate::service::{Party, PaymentError, PaymentRequest, Payments};

/// The longest merchant transaction id v1 accepts.
pub(super) const MAX_TRANSACTION_ID: usize = 64;

/// The customer a v1 payment embeds. Its email is optional.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EmbeddedCustomer {
    pub last_name: String,
    pub first_name: String,
    pub phone: String,
    pub email: Option<String>,
    #[serde(alias = "Address")]
    pub address: AddressIn,
}

impl EmbeddedCustomer {
    fn party(&self) -> Result<Party, ApiError> {
        let name = |raw: &str, field: &str| {
            PersonName::parse(raw)
                .map(PersonName::into_string)
                .map_err(|e| ApiError::bad_request(format!("customer.{field} {e}")))
        };
        Ok(Party {
            first_name: name(&self.first_name, "firstName")?,
            last_name: name(&self.last_name, "lastName")?,
            email: fields::optional_email(self.email.as_deref(), "customer.email")?,
            phone: fields::phone(&self.phone, "customer.phone")?,
            address: self.address.parse("customer.address")?,
        })
    }
}

/// The body of a v1 collection.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CollectionV1 {
    pub transaction_id: String,
    pub customer: EmbeddedCustomer,
    pub payer: String,
    pub currency: String,
    #[serde(default)]
    pub amount: RawAmount,
    pub operator: String,
    #[serde(alias = "successUrl")]
    pub url_success: Option<String>,
    /// `errorUrl` in the reference; client libraries send `urlError`, beside `urlSuccess`.
    #[serde(alias = "urlError")]
    pub error_url: Option<String>,
    pub otp_code: Option<String>,
}

/// The body of a v1 transfer.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TransferV1 {
    pub transaction_id: String,
    pub customer: EmbeddedCustomer,
    pub recipient: String,
    pub currency: String,
    #[serde(default)]
    pub amount: RawAmount,
    pub operator: String,
    /// Ask the operator first whether `recipient` holds an active account (docs/payouts.md).
    #[serde(default)]
    pub check_recipient: Option<bool>,
}

/// The fields both v1 bodies share, checked in the order a merchant fixes them.
struct Common<'a> {
    transaction_id: &'a str,
    customer: &'a EmbeddedCustomer,
    phone: (&'a str, &'static str),
    currency: &'a str,
    amount: &'a RawAmount,
    operator: &'a str,
    aliases: &'a OperatorAliases,
}

/// The request of `c`'s common fields, then of what only its kind has (`purpose`), checked in
/// that order.
fn request(c: Common<'_>, purpose: impl FnOnce() -> Result<Requested, ApiError>) -> Result<PaymentRequest, ApiError> {
    let transaction_id = fields::transaction_id(
        c.transaction_id,
        "transactionId",
        MAX_TRANSACTION_ID,
        ErrorKind::BadRequest,
    )?;
    fields::currency(c.currency, "currency")?;
    let operator = fields::operator(c.operator, "operator", c.aliases)?;
    let party = c.customer.party()?;
    let phone = fields::phone(c.phone.0, c.phone.1)?;
    let amount = fields::amount(c.amount, "amount")?;
    Ok(PaymentRequest {
        transaction_id,
        operator: operator.operator,
        operator_alias: operator.alias,
        phone,
        phone_as_sent: c.phone.0.to_owned(),
        amount,
        party,
        purpose: purpose()?,
    })
}

impl CollectionV1 {
    /// The request, its operator a reference code or one of `aliases`.
    pub(crate) fn parse(&self, aliases: &OperatorAliases) -> Result<PaymentRequest, ApiError> {
        request(
            Common {
                transaction_id: &self.transaction_id,
                customer: &self.customer,
                phone: (&self.payer, "payer"),
                currency: &self.currency,
                amount: &self.amount,
                operator: &self.operator,
                aliases,
            },
            || {
                let return_urls = ReturnUrls {
                    success: fields::return_url(self.url_success.as_deref(), "urlSuccess")?,
                    error: fields::return_url(self.error_url.as_deref(), "errorUrl")?,
                };
                Ok(Requested::Collection {
                    otp_code: fields::otp(self.otp_code.as_deref(), "otpCode")?,
                    return_urls,
                    link: None,
                })
            },
        )
    }
}

impl TransferBody for TransferV1 {
    fn request(&self, aliases: &OperatorAliases) -> Result<PaymentRequest, ApiError> {
        request(
            Common {
                transaction_id: &self.transaction_id,
                customer: &self.customer,
                phone: (&self.recipient, "recipient"),
                currency: &self.currency,
                amount: &self.amount,
                operator: &self.operator,
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

fn data<'a>(payments: &Payments, record: &'a TransactionRecord) -> TransactionOut<'a> {
    let mut out = TransactionOut::from(record);
    out.beta_launch_url = payments.launch_url(record);
    out.wave_launch_url = out
        .beta_launch_url
        .clone()
        .filter(|_| record.transaction.operator_alias.is_some());
    out
}

/// `POST /v1/collecte/card/create`, the live SDK's card payment: the gateway collects mobile
/// money only. 403 (`ForbiddenError`), as a payment method an account does not have, so that
/// a client tells it from a malformed request (400) or a mistyped path (404); the caller is
/// authenticated first, as on every route of the API.
pub async fn card_not_offered(_caller: Authenticated) -> Error {
    Error(ApiError::new(
        ErrorKind::NotOffered,
        "card payments are not offered: this gateway collects mobile money only (POST /v1/collecte/mobile-money)",
    ))
}

/// A creation's answer in v1: 200 SUCCESSFUL, 202 PENDING, or an error with the transaction.
pub(super) fn answer(payments: &Payments, result: Result<TransactionRecord, PaymentError>) -> Result<Response, Error> {
    match result {
        Ok(record) => {
            let status = match record.transaction.status {
                Status::Successful => StatusCode::OK,
                Status::Pending | Status::Failed => StatusCode::ACCEPTED,
            };
            Ok(envelope::success(status, data(payments, &record)))
        }
        Err(e) => {
            let (error, record) = payment_failure::describe(e, OperatorCode::v1_code);
            Err(Error(match record {
                Some(record) => error.with_data(&data(payments, &record)),
                None => error,
            }))
        }
    }
}

pub async fn collect(
    State(payments): State<Payments>,
    RecheckedCaller(caller): RecheckedCaller,
    JsonBody(body): JsonBody<CollectionV1>,
) -> Result<Response, Error> {
    let request = body.parse(&payments.config().operator_aliases)?;
    answer(
        &payments,
        payments.create_payment_as(&caller, request, Timestamp::now()).await,
    )
}
