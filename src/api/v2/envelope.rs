//! The v2 envelope: `code_status`, `status`, `message` (a constant), then `data` or `reason`.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Serialize;

use crate::api::error::{ApiError, ErrorKind};

#[derive(Serialize)]
struct Body<'a, T: Serialize> {
    code_status: u16,
    status: &'a str,
    message: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    data: Option<T>,
}

/// The v2 constant of an error kind, spelled as the live service spells it.
pub fn error_constant(kind: ErrorKind) -> &'static str {
    match kind {
        ErrorKind::BadRequest => "INVALID_REQUEST",
        ErrorKind::UnsupportedOperator => "OPERATOR_NO_SUPPORTED",
        ErrorKind::TransactionIdTooLong => "TRANSACTION_ID_MAX_LENGHT_20",
        ErrorKind::Unauthorized => "TOKEN_EXPIRED",
        ErrorKind::AmountOutOfRange => "AMOUNT_OUT_OF_RANGE",
        // Only v1 has a card route; were v2 to refuse a payment method, this would say so.
        ErrorKind::NotOffered => "PAYMENT_METHOD_NOT_OFFERED",
        ErrorKind::NotFound => "NOT_FOUND",
        ErrorKind::TransactionNotFound => "TRANSACTION_NOT_FOUND",
        ErrorKind::MethodNotAllowed => "METHOD_NOT_ALLOWED",
        ErrorKind::Duplicate => "TRANSACTION_DUPLICATED",
        ErrorKind::NotRefundable => "REFUND_NOT_POSSIBLE",
        ErrorKind::LinkClosed => "PAYMENT_LINK_CLOSED",
        ErrorKind::RecipientInactive => "RECIPIENT_ACCOUNT_INACTIVE",
        ErrorKind::RecipientCheckOff => "RECIPIENT_CHECK_NOT_ALLOWED",
        ErrorKind::LinkInvalid => "INVALID_PAYMENT_LINK",
        ErrorKind::BatchRefused => "PAYOUT_BATCH_REFUSED",
        ErrorKind::IdempotencyKeyInUse => "IDEMPOTENCY_KEY_IN_USE",
        ErrorKind::IdempotencyKeyReused => "IDEMPOTENCY_KEY_REUSED",
        ErrorKind::InsufficientBalance => "AMOUNT_INSUFFISANT",
        ErrorKind::PayloadTooLarge => "PAYLOAD_TOO_LARGE",
        ErrorKind::UnsupportedMediaType => "UNSUPPORTED_MEDIA_TYPE",
        ErrorKind::TooManyRequests => "TOO_MANY_REQUESTS",
        ErrorKind::Internal => "ERROR_INTERNE_TRY_AGAIN",
        // DECISIONS pairs 503 with this constant alone; the reason says what is unavailable.
        ErrorKind::Unavailable | ErrorKind::OperatorUnavailable => "OPERATOR_IS_UNAVAILABLE",
        ErrorKind::PaymentFailed => "PAYMENT_FAILED_TRY_AGAINST",
    }
}

/// A v2 success: `message` is the constant describing the outcome.
pub fn success<T: Serialize>(status: StatusCode, message: &str, data: T) -> Response {
    let body = Body {
        code_status: status.as_u16(),
        status: "SUCCESS",
        message,
        reason: None,
        data: Some(data),
    };
    (status, Json(body)).into_response()
}

pub fn error(err: ApiError) -> Response {
    let status = err.kind.status();
    let body = Body {
        code_status: status.as_u16(),
        status: "ERROR",
        message: error_constant(err.kind),
        reason: Some(&err.reason),
        data: err.data.as_deref(),
    };
    let response = (status, Json(body)).into_response();
    err.finish(response)
}
