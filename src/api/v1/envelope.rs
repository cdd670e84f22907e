//! The v1 envelope: `statusCode`, `message`, then `data` or `reason`.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Serialize;
use serde_json::value::RawValue;

use crate::api::error::{ApiError, ErrorKind};

#[derive(Serialize)]
struct Success<'a, T: Serialize> {
    #[serde(rename = "statusCode")]
    status_code: u16,
    message: &'a str,
    data: T,
}

#[derive(Serialize)]
struct Failure<'a> {
    #[serde(rename = "statusCode")]
    status_code: u16,
    message: &'a str,
    reason: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    data: Option<&'a RawValue>,
}

/// The v1 name of an error kind.
pub fn error_name(kind: ErrorKind) -> &'static str {
    match kind {
        ErrorKind::BadRequest | ErrorKind::UnsupportedOperator | ErrorKind::TransactionIdTooLong => "BadRequestError",
        ErrorKind::Unauthorized => "UnauthorizedError",
        ErrorKind::AmountOutOfRange | ErrorKind::NotOffered | ErrorKind::RecipientCheckOff => "ForbiddenError",
        ErrorKind::NotFound | ErrorKind::TransactionNotFound => "NotFoundError",
        ErrorKind::MethodNotAllowed => "MethodNotAllowedError",
        ErrorKind::Duplicate | ErrorKind::NotRefundable | ErrorKind::LinkClosed => "ConflictError",
        ErrorKind::IdempotencyKeyInUse => "IdempotencyKeyInUseError",
        ErrorKind::IdempotencyKeyReused => "IdempotencyKeyReusedError",
        ErrorKind::RecipientInactive | ErrorKind::LinkInvalid | ErrorKind::BatchRefused => "UnprocessableEntityError",
        ErrorKind::InsufficientBalance => "PreconditionFailedError",
        ErrorKind::PayloadTooLarge => "PayloadTooLargeError",
        ErrorKind::UnsupportedMediaType => "UnsupportedMediaTypeError",
        ErrorKind::TooManyRequests => "TooManyRequestsError",
        ErrorKind::Internal => "InternalServerError",
        ErrorKind::Unavailable | ErrorKind::OperatorUnavailable => "ServiceUnavailableError",
        ErrorKind::PaymentFailed => "GatewayTimeoutError",
    }
}

/// A v1 success with `status` (200 unless said otherwise).
pub fn success<T: Serialize>(status: StatusCode, data: T) -> Response {
    let body = Success {
        status_code: status.as_u16(),
        message: "Successful",
        data,
    };
    (status, Json(body)).into_response()
}

pub fn error(err: ApiError) -> Response {
    let status = err.kind.status();
    let body = Failure {
        status_code: status.as_u16(),
        message: error_name(err.kind),
        reason: &err.reason,
        data: err.data.as_deref(),
    };
    let response = (status, Json(body)).into_response();
    err.finish(response)
}
