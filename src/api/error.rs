//! One error type for the HTTP layer. Each generation renders it in its own envelope
//! (`v1::envelope`, `v2::envelope`); `dialect.rs` picks the envelope of a path.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use serde_json::value::RawValue;

use crate::http::request_id;
use crate::service::ServiceError;

/// The envelope an answer takes: that of an API generation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    V1,
    V2,
}

impl Dialect {
    /// The dialect of a request, as the guard found it (`guard.rs`); v1 for one that did not
    /// go through it.
    pub fn of(extensions: &axum::http::Extensions) -> Dialect {
        extensions.get::<Dialect>().copied().unwrap_or(Dialect::V1)
    }

    /// The dialect named by the path prefix (`/v2` or v1 for every other path): called once a
    /// request, by the guard.
    pub fn of_path(path: &str) -> Dialect {
        let under = |prefix: &str| {
            path.strip_prefix(prefix)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
        };
        if under("/v2") {
            Dialect::V2
        } else {
            Dialect::V1
        }
    }
}

/// Every error an answer can carry. Each generation names them its own way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    BadRequest,
    UnsupportedOperator,
    TransactionIdTooLong,
    Unauthorized,
    AmountOutOfRange,
    NotFound,
    TransactionNotFound,
    MethodNotAllowed,
    Duplicate,
    /// The request's `Idempotency-Key` is held by a request still running.
    IdempotencyKeyInUse,
    /// The request's `Idempotency-Key` was used for another request (method, path or body).
    IdempotencyKeyReused,
    InsufficientBalance,
    /// A payment method the gateway does not offer (cards).
    NotOffered,
    /// A refund its collection cannot give: not a `SUCCESSFUL` collection, or less of it
    /// remains. A conflict with the collection's state, as a reused id is one with another's.
    NotRefundable,
    /// A transfer to a number that holds no active account with its operator.
    RecipientInactive,
    /// A recipient check asked by a merchant environment it is off for.
    RecipientCheckOff,
    /// A payment link the body describes well but that cannot be (bounds the wrong way round,
    /// an expiry already past).
    LinkInvalid,
    /// A payment link that takes no payment now (deactivated, expired, paid), or a payment it
    /// does not take (an amount out of its bounds, an operator it does not accept).
    LinkClosed,
    /// An all-or-nothing payout batch with an item that cannot be accepted: nothing recorded.
    BatchRefused,
    PayloadTooLarge,
    UnsupportedMediaType,
    TooManyRequests,
    Internal,
    /// The database cannot take the request now (a failed write batch, a lost connection).
    Unavailable,
    OperatorUnavailable,
    PaymentFailed,
}

impl ErrorKind {
    pub fn status(self) -> StatusCode {
        match self {
            ErrorKind::BadRequest | ErrorKind::UnsupportedOperator | ErrorKind::TransactionIdTooLong => {
                StatusCode::BAD_REQUEST
            }
            ErrorKind::Unauthorized => StatusCode::UNAUTHORIZED,
            ErrorKind::AmountOutOfRange | ErrorKind::NotOffered | ErrorKind::RecipientCheckOff => StatusCode::FORBIDDEN,
            ErrorKind::NotFound | ErrorKind::TransactionNotFound => StatusCode::NOT_FOUND,
            ErrorKind::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            ErrorKind::Duplicate
            | ErrorKind::IdempotencyKeyInUse
            | ErrorKind::NotRefundable
            | ErrorKind::LinkClosed => StatusCode::CONFLICT,
            ErrorKind::IdempotencyKeyReused
            | ErrorKind::RecipientInactive
            | ErrorKind::LinkInvalid
            | ErrorKind::BatchRefused => StatusCode::UNPROCESSABLE_ENTITY,
            ErrorKind::InsufficientBalance => StatusCode::PRECONDITION_FAILED,
            ErrorKind::PayloadTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            ErrorKind::UnsupportedMediaType => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            ErrorKind::TooManyRequests => StatusCode::TOO_MANY_REQUESTS,
            ErrorKind::Internal => StatusCode::INTERNAL_SERVER_ERROR,
            ErrorKind::Unavailable | ErrorKind::OperatorUnavailable => StatusCode::SERVICE_UNAVAILABLE,
            ErrorKind::PaymentFailed => StatusCode::GATEWAY_TIMEOUT,
        }
    }

    /// The closest kind for a bare status, for answers produced outside our handlers.
    pub fn from_status(status: StatusCode) -> ErrorKind {
        // Ranges cover every u16, so a status we never named still lands somewhere on purpose.
        match status.as_u16() {
            401 => ErrorKind::Unauthorized,
            403 => ErrorKind::AmountOutOfRange,
            404 => ErrorKind::NotFound,
            405 => ErrorKind::MethodNotAllowed,
            409 => ErrorKind::Duplicate,
            412 => ErrorKind::InsufficientBalance,
            413 => ErrorKind::PayloadTooLarge,
            415 => ErrorKind::UnsupportedMediaType,
            429 => ErrorKind::TooManyRequests,
            503 => ErrorKind::OperatorUnavailable,
            504 => ErrorKind::PaymentFailed,
            400 | 402 | 406..=408 | 410 | 411 | 414 | 416..=428 | 430..=499 => ErrorKind::BadRequest,
            0..=399 | 500..=502 | 505..=u16::MAX => ErrorKind::Internal,
        }
    }
}

/// An error answer: its kind, a human reason, and (for payments) the transaction concerned.
#[derive(Debug, Clone)]
pub struct ApiError {
    pub kind: ErrorKind,
    pub reason: String,
    /// Serialized once, keeping the dialect's field order.
    pub data: Option<Box<RawValue>>,
    /// Seconds to announce in `Retry-After` (every 429 carries one).
    pub retry_after: Option<u64>,
}

impl ApiError {
    pub fn new(kind: ErrorKind, reason: impl Into<String>) -> ApiError {
        ApiError {
            kind,
            reason: reason.into(),
            data: None,
            retry_after: None,
        }
    }

    /// Attaches the transaction concerned (duplicates, failures).
    pub fn with_data(mut self, data: &impl Serialize) -> ApiError {
        self.data = serde_json::value::to_raw_value(data).ok();
        self
    }

    pub fn bad_request(reason: impl Into<String>) -> ApiError {
        ApiError::new(ErrorKind::BadRequest, reason)
    }

    /// An internal failure: the cause is logged here, with the request id, and never sent.
    pub fn internal(cause: &dyn std::fmt::Display) -> ApiError {
        let id = request_id::current();
        tracing::error!(request_id = %id, cause = %cause, "internal error");
        ApiError::new(
            ErrorKind::Internal,
            format!("internal error; quote request id {id} when reporting it"),
        )
    }

    /// A 429 that says when to come back.
    pub fn too_many_requests(wait: std::time::Duration) -> ApiError {
        let seconds = crate::service::rate_limit::retry_after_seconds(wait);
        let mut e = ApiError::new(
            ErrorKind::TooManyRequests,
            format!("too many requests; retry in {seconds} s"),
        );
        e.retry_after = Some(seconds);
        e
    }

    /// Adds what every envelope's answer carries besides its body (`Retry-After` on a 429), and
    /// its kind as an extension, for the layers that judge an answer by it (`idempotency.rs`).
    pub fn finish(&self, mut response: Response) -> Response {
        response.extensions_mut().insert(self.kind);
        if let Some(seconds) = self.retry_after {
            response
                .headers_mut()
                .insert(axum::http::header::RETRY_AFTER, seconds.into());
        }
        response
    }
}

impl From<ServiceError> for ApiError {
    fn from(err: ServiceError) -> ApiError {
        match err {
            ServiceError::Invalid(reason) => ApiError::bad_request(reason),
            ServiceError::Unauthorized(reason) => ApiError::new(ErrorKind::Unauthorized, reason),
            ServiceError::NotFound(what) => ApiError::new(ErrorKind::NotFound, format!("{what} not found")),
            ServiceError::Unavailable(cause) => {
                let id = request_id::current();
                tracing::error!(request_id = %id, cause = %cause, "database unavailable");
                let mut e = ApiError::new(
                    ErrorKind::Unavailable,
                    format!("the database is unavailable; retry in a second (request id {id})"),
                );
                e.retry_after = Some(1);
                e
            }
            ServiceError::Internal(cause) => ApiError::internal(&cause),
        }
    }
}

/// An extractor's refusal, rendered in the generation of the request's path.
#[derive(Debug)]
pub struct Rejection(pub Dialect, pub ApiError);

impl IntoResponse for Rejection {
    fn into_response(self) -> Response {
        self.1.render(self.0)
    }
}

/// A generation's handler error, `Error`: an [`ApiError`] answered in that generation's
/// envelope (`$generation::envelope::error`).
macro_rules! dialect_error {
    ($generation:ident) => {
        #[doc = concat!("An error answered in the ", stringify!($generation), " envelope.")]
        #[derive(Debug)]
        pub struct Error(pub $crate::api::error::ApiError);

        impl axum::response::IntoResponse for Error {
            fn into_response(self) -> axum::response::Response {
                envelope::error(self.0)
            }
        }

        impl From<$crate::api::error::ApiError> for Error {
            fn from(e: $crate::api::error::ApiError) -> Self {
                Error(e)
            }
        }

        impl From<$crate::service::ServiceError> for Error {
            fn from(e: $crate::service::ServiceError) -> Self {
                Error(e.into())
            }
        }
    };
}
pub(crate) use dialect_error;

#[cfg(test)]
mod tests {
    use super::Dialect;

    #[test]
    fn a_path_s_prefix_names_its_dialect_only_as_a_whole_segment() {
        for (path, dialect) in [
            ("/v2", Dialect::V2),
            ("/v2/collecte/mobile-money", Dialect::V2),
            ("/v2x", Dialect::V1),
            ("/v2/", Dialect::V2),
            ("/v1/customers", Dialect::V1),
            ("/health", Dialect::V1),
        ] {
            assert_eq!(Dialect::of_path(path), dialect, "{path}");
        }
    }
}
