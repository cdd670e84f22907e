//! `POST /v1/refunds` and `POST /v2/refunds`, one handler generic over the generation: gives
//! back part or all of a `SUCCESSFUL` collection to its payer. The refund is a transaction of
//! its own (`typeTransaction` / `type_transaction` `refund`), answered as a creation is.

use axum::extract::State;
use axum::response::Response;
use serde::Deserialize;

use super::auth::RecheckedCaller;
use super::cased::{cased, Spelled};
use super::dialect::Generation;
use super::error::{ApiError, ErrorKind};
use super::extract::JsonBody;
use super::fields::{self, RawAmount};
use crate::domain::{Timestamp, TransactionRef};
use crate::service::payments::refunds::RefundRequest;
use crate::service::{PaymentError, Payments};

cased! {
    /// The body of a refund.
    #[derive(Debug, Deserialize)]
    pub struct Refund / RefundCamel {
        /// The refund's own id.
        pub transaction_id: String,
        /// The collection's transaction id or `ref`.
        pub collection_id: String => "collection",
        /// All that remains of the collection when left out.
        #[serde(default)]
        pub amount: RawAmount,
        /// Why: free text, kept with the refund.
        #[serde(default)]
        pub reason: Option<String>,
    }
}

impl Refund {
    fn parse<D: Generation>(&self) -> Result<RefundRequest, ApiError> {
        // v1 names a too long id `BadRequestError`, as it does any 400; v2 has its own constant.
        let id = |raw: &str, field| {
            fields::transaction_id(
                raw,
                D::field(field),
                D::MAX_TRANSACTION_ID,
                ErrorKind::TransactionIdTooLong,
            )
        };
        Ok(RefundRequest {
            transaction_id: id(&self.transaction_id, "transaction_id")?,
            collection: TransactionRef::from(id(&self.collection_id, "collection_id")?.into_string()),
            amount: fields::optional_amount(&self.amount, "amount")?,
            reason: fields::refund_reason(self.reason.as_deref(), "reason")?,
        })
    }
}

pub async fn create<D: Generation>(
    State(payments): State<Payments>,
    RecheckedCaller(caller): RecheckedCaller,
    JsonBody(Spelled(body, _)): JsonBody<Spelled<D, Refund>>,
) -> Result<Response, D::Error> {
    let request = body.parse::<D>()?;
    let result = payments
        .refund_as(&caller, request, Timestamp::now())
        .await
        .map_err(PaymentError::from);
    D::payment_answer(&payments, result)
        .map_err(collection_not_found)
        .map_err(D::Error::from)
}

/// What a refund names and may not find is a collection, a transaction: `TRANSACTION_NOT_FOUND`,
/// as the status lookup answers for the same id (docs/openapi.yaml), not the `NOT_FOUND` of a
/// route or a link. v1 names both `NotFoundError`.
fn collection_not_found(e: ApiError) -> ApiError {
    if e.kind == ErrorKind::NotFound {
        ApiError {
            kind: ErrorKind::TransactionNotFound,
            ..e
        }
    } else {
        e
    }
}
