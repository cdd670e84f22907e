//! The v2 transaction shape, and the status lookup that answers it on every path.

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use serde::Serialize;

use super::envelope;
use super::wire::{KindV2, StatusV2};
use crate::api::auth::RecheckedCaller;
use crate::api::dialect::Generation;
use crate::api::error::{ApiError, Dialect, ErrorKind, Rejection};
use crate::api::extract::PathId;
use crate::domain::TransactionRecord;
use crate::domain::{OperatorCode, Status, TransactionRef};
use crate::service::{Auth, Payments, ServiceError};

/// A transaction as v2 shows it.
#[derive(Debug, Serialize)]
pub struct TransactionV2<'a> {
    pub linkpayment_id: Option<&'a str>,
    #[serde(rename = "ref")]
    pub reference: &'a str,
    /// The reference we gave the operator.
    pub operator_id: &'a str,
    pub transaction_id: &'a str,
    #[serde(rename = "cardId")]
    pub card_id: Option<&'a str>,
    pub number_user: &'a str,
    pub name_user: &'a str,
    pub email_user: Option<&'a str>,
    pub country_user: &'static str,
    pub currency: &'static str,
    pub amount: String,
    pub fees: String,
    pub amount_receive: String,
    pub amount_total: String,
    pub status: StatusV2,
    pub type_transaction: KindV2,
    pub type_payment: &'a str,
    /// Present (possibly null) in the status lookup and in BETA collections' creation.
    #[serde(rename = "redirectUrl", skip_serializing_if = "Option::is_none")]
    pub redirect_url: Option<Option<String>>,
    /// The same URL in a lookup on a v1 path, when the collection named its operator by an
    /// alias (`WAVE_CI`): the name the live SDK's README reads.
    #[serde(rename = "waveLaunchUrl", skip_serializing_if = "Option::is_none")]
    pub wave_launch_url: Option<String>,
    pub date: String,
    pub date_update: Option<String>,
    /// A refund's collection, by its `ref`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refund_of: Option<&'a str>,
    /// A refund's reason, when one was given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<&'a str>,
    /// A collection's refunds that are not `FAILED`, summed; left out until one is made, so
    /// that a collection never refunded keeps the live service's exact shape.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub amount_refunded: Option<String>,
    /// The payout batch a transfer was asked for in.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub payout_batch_id: Option<&'a str>,
}

impl<'a> From<&'a TransactionRecord> for TransactionV2<'a> {
    fn from(r: &'a TransactionRecord) -> Self {
        let t = &r.transaction;
        TransactionV2 {
            linkpayment_id: t.purpose.link().map(|l| l.as_str()),
            reference: &t.reference,
            operator_id: &t.reference,
            transaction_id: &t.transaction_id,
            card_id: None,
            number_user: &t.phone_as_sent,
            name_user: &t.name,
            email_user: t.email.as_deref(),
            country_user: "CI",
            currency: "XOF",
            amount: t.amounts.amount.to_string(),
            fees: t.amounts.fees.to_string(),
            amount_receive: t.amounts.amount_receive.to_string(),
            amount_total: t.amounts.amount_total.to_string(),
            status: t.status.into(),
            type_transaction: match t.purpose.link() {
                Some(_) => KindV2::LinkPayment,
                None => t.kind().into(),
            },
            type_payment: t.operator_code(OperatorCode::v2_code),
            redirect_url: None,
            wave_launch_url: None,
            date: t.created_at.v2_date(),
            date_update: t.updated_at.map(|u| u.v2_date_update()),
            refund_of: t.purpose.refund_of().map(|r| r.collection.as_str()),
            reason: t.purpose.refund_reason(),
            amount_refunded: t.purpose.refunded_if_any().map(|refunded| refunded.to_string()),
            payout_batch_id: t.purpose.batch().map(|b| b.as_str()),
        }
    }
}

/// The status lookup's success, in the v2 envelope whatever the path (`dialect`, the path's).
pub fn status_answer(payments: &Payments, record: &TransactionRecord, dialect: Dialect) -> Response {
    let message = match record.transaction.status {
        Status::Pending => "PAYMENT_IS_PENDING",
        Status::Successful => "PAYMENT_IS_SUCCESSFUL",
        Status::Failed => "PAYMENT_FAILED",
    };
    let mut body = TransactionV2::from(record);
    let launch_url = payments.launch_url(record);
    if dialect == Dialect::V1 && record.transaction.operator_alias.is_some() {
        body.wave_launch_url = launch_url.clone();
    }
    body.redirect_url = Some(launch_url);
    envelope::success(StatusCode::OK, message, body)
}

/// Looks a transaction up for a status path; errors in the path's own generation.
pub async fn find_for_status(
    (auth, payments): (&Auth, &Payments),
    caller: &RecheckedCaller,
    id: Result<PathId, Rejection>,
    dialect: Dialect,
) -> Result<Response, Rejection> {
    let not_found = || {
        Rejection(
            dialect,
            ApiError::new(ErrorKind::TransactionNotFound, "no transaction has this id or ref"),
        )
    };
    let PathId(id) = id.map_err(|_| not_found())?;
    match auth.transaction_checked(&caller.0, &TransactionRef::from(id)).await {
        Ok(record) => Ok(status_answer(payments, &record, dialect)),
        Err(ServiceError::NotFound(_)) => Err(not_found()),
        Err(e) => Err(Rejection(dialect, e.into())),
    }
}

/// `GET /v2/get-status-payment/{id}`, and (`G` = v1) `GET /v1/get-status-payment/{id}` and
/// `/v1/transaction/{id}`: success in v2 (as the live service answers), errors in `G`'s dialect.
pub async fn status<G: Generation>(
    State(auth): State<Auth>,
    State(payments): State<Payments>,
    caller: RecheckedCaller,
    id: Result<PathId, Rejection>,
) -> Result<Response, Rejection> {
    find_for_status((&auth, &payments), &caller, id, G::DIALECT).await
}
