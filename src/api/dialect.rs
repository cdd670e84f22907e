//! A generation of the API, at run time ([`Dialect`]: the envelope of an error raised by an
//! extractor, a fallback or the request guard) and at compile time ([`Generation`]: what a
//! handler generic over it needs, for the resources the gateway invented).

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::de::DeserializeOwned;
use serde::Serialize;

use super::cased::Cased;
use super::error::{ApiError, Dialect};
use super::{v1, v2};
use crate::domain::{OperatorAliases, OperatorCode, PaymentLink, Timestamp, TransactionRecord};
use crate::service::{PaymentError, PaymentRequest, Payments, ServiceError};

impl ApiError {
    /// This error in the envelope of `dialect`.
    pub fn render(self, dialect: Dialect) -> Response {
        match dialect {
            Dialect::V1 => v1::envelope::error(self),
            Dialect::V2 => v2::envelope::error(self),
        }
    }
}

/// A transfer's body in one generation's shape.
pub trait TransferBody: DeserializeOwned + Send {
    /// The payment it asks for, its operator a reference code or one of `aliases`.
    fn request(&self, aliases: &OperatorAliases) -> Result<PaymentRequest, ApiError>;
}

/// A generation as the handlers of links, payouts, refunds and recipients see it: one handler a
/// route (`links::create::<V1>`), mounted by each generation. Their shapes are defined once
/// (`cased!`); all that differs between `v1::V1` and `v2::V2` is here: the envelope, how a field
/// is named in an error, dates and operator codes, the reference's transaction and transfer
/// shapes they embed, and the part of a link that differs in more than casing.
pub trait Generation: Send + Sync + 'static {
    /// The same generation at run time.
    const DIALECT: Dialect;
    /// The longest transaction id the generation takes (the reference's limit).
    const MAX_TRANSACTION_ID: usize;
    /// A handler's error, rendered in the generation's envelope.
    type Error: IntoResponse + From<ApiError> + From<ServiceError> + Send + 'static;
    /// A transaction as the generation shows one (a payout batch's items).
    type Transaction<'a>: Serialize + From<&'a TransactionRecord>;
    /// A transfer's body (`POST .../transfer/mobile-money`), which is what a batch's item is.
    type Transfer: TransferBody;

    /// A success in the envelope; `message` is v2's constant for the outcome (v1 has none).
    fn success(status: StatusCode, message: &'static str, data: impl Serialize) -> Response;

    /// A payment created (a refund), or refused, answered as the generation's payments are.
    fn payment_answer(
        payments: &Payments,
        result: Result<TransactionRecord, PaymentError>,
    ) -> Result<Response, ApiError>;

    /// How an error names a field, given v2's (snake_case) name of it.
    fn field(snake: &'static str) -> &'static str;

    /// A link's dates (expiry, creation).
    fn date(at: Timestamp) -> String;

    fn operator(code: OperatorCode) -> &'static str;

    /// `value`, defined once by `cased!`, in the generation's casing.
    fn cased<T>(value: T) -> impl Serialize
    where
        T: Cased + Serialize,
        T::Camel: Serialize;

    /// What follows a link's return URLs: its payments counted, what it collected and when it
    /// was made, which the generations shape differently.
    fn link_tail(link: &PaymentLink) -> impl Serialize;
}
