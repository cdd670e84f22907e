//! `POST /v1/refunds`: gives back part or all of a `SUCCESSFUL` collection to its payer. The
//! refund is a transaction of its own (`typeTransaction` `refund`), answered as a creation is.

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

/// The body of a v1 refund.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RefundV1 {
    /// The refund's own id.
    pub transaction_id: String,
    /// The collection's `transactionId` or `ref`.
    pub collection: String,
    /// All that remains of the collection when left out.
    #[serde(default)]
    pub amount: RawAmount,
    /// Why: free text, kept with the refund.
    #[serde(default)]
    pub reason: Option<String>,
}

impl RefundV1 {
    fn parse(&self) -> Result<RefundRequest, ApiError> {
        Ok(RefundRequest {
            transaction_id: fields::transaction_id(
                &self.transaction_id,
                "transactionId",
                MAX_TRANSACTION_ID,
                ErrorKind::BadRequest,
            )?,
            collection: TransactionRef::from(
                fields::transaction_id(
                    &self.collection,
                    "collection",
                    MAX_TRANSACTION_ID,
                    ErrorKind::BadRequest,
                )?
                .into_string(),
            ),
            amount: fields::optional_amount(&self.amount, "amount")?,
            reason: fields::refund_reason(self.reason.as_deref(), "reason")?,
        })
    }
}

pub async fn create(
    State(payments): State<Payments>,
    RecheckedCaller(caller): RecheckedCaller,
    JsonBody(body): JsonBody<RefundV1>,
) -> Result<Response, Error> {
    let request = body.parse()?;
    answer(
        &payments,
        payments
            .refund_as(&caller, request, Timestamp::now())
            .await
            .map_err(crate::service::PaymentError::from),
    )
}
