//! `POST /v2/refunds`: gives back part or all of a `SUCCESSFUL` collection to its payer. The
//! refund is a transaction of its own (`type_transaction` `refund`), answered as a creation is.

use axum::extract::State;
use axum::response::Response;
use serde::Deserialize;

use super::payments::{answer, MAX_TRANSACTION_ID};
use super::Error;
use crate::api::auth::RecheckedCaller;
use crate::api::error::{ApiError, ErrorKind};
use crate::api::extract::JsonBody;
use crate::api::fields::{self, RawAmount};
use crate::domain::{Timestamp, TransactionRef};
use crate::service::payments::refunds::RefundRequest;
use crate::service::Payments;

/// The body of a v2 refund.
#[derive(Debug, Deserialize)]
pub struct RefundV2 {
    /// The refund's own id.
    pub transaction_id: String,
    /// The collection's `transaction_id` or `ref`.
    pub collection_id: String,
    /// All that remains of the collection when left out.
    #[serde(default)]
    pub amount: RawAmount,
    /// Why: free text, kept with the refund.
    #[serde(default)]
    pub reason: Option<String>,
}

impl RefundV2 {
    fn parse(&self) -> Result<RefundRequest, ApiError> {
        let id = |raw: &str, field: &str| {
            fields::transaction_id(raw, field, MAX_TRANSACTION_ID, ErrorKind::TransactionIdTooLong)
        };
        Ok(RefundRequest {
            transaction_id: id(&self.transaction_id, "transaction_id")?,
            collection: TransactionRef::from(id(&self.collection_id, "collection_id")?.into_string()),
            amount: fields::optional_amount(&self.amount, "amount")?,
            reason: fields::refund_reason(self.reason.as_deref(), "reason")?,
        })
    }
}

pub async fn create(
    State(payments): State<Payments>,
    RecheckedCaller(caller): RecheckedCaller,
    JsonBody(body): JsonBody<RefundV2>,
) -> Result<Response, Error> {
    let request = body.parse()?;
    answer(
        &payments,
        payments
            .refund_as(&caller, request, Timestamp::now())
            .await
            .map_err(crate::service::PaymentError::from),
    )
    .map_err(collection_not_found)
}

/// What a refund names and may not find is a collection, a transaction: `TRANSACTION_NOT_FOUND`,
/// as the status lookup answers for the same id (docs/openapi.yaml), not the `NOT_FOUND` of a
/// route or a link.
fn collection_not_found(Error(e): Error) -> Error {
    if e.kind == ErrorKind::NotFound {
        Error(ApiError {
            kind: ErrorKind::TransactionNotFound,
            ..e
        })
    } else {
        Error(e)
    }
}
