//! A creation that was refused or failed, as both generations report it: the error kind and
//! reason are the same; each dialect attaches the transaction in its own shape.

use super::error::{ApiError, ErrorKind};
use crate::domain::OperatorCode;
use crate::domain::TransactionRecord;
use crate::service::PaymentError;

/// The error of a refused creation, and the transaction it concerns when one exists.
/// `operator_code` spells an operator in the caller's generation.
pub fn describe(
    err: PaymentError,
    operator_code: fn(OperatorCode) -> &'static str,
) -> (ApiError, Option<Box<TransactionRecord>>) {
    match err {
        PaymentError::Duplicate(existing) => (
            ApiError::new(
                ErrorKind::Duplicate,
                "this transaction id is already used; the existing transaction is in data",
            ),
            Some(existing),
        ),
        PaymentError::Refused(record) => {
            let reason = record
                .transaction
                .failure_reason
                .clone()
                .unwrap_or_else(|| "the operator refused the payment".into());
            (ApiError::new(ErrorKind::PaymentFailed, reason), Some(record))
        }
        PaymentError::OperatorUnavailable(record) => (
            ApiError::new(
                ErrorKind::OperatorUnavailable,
                "the operator could not be reached; the transaction failed and nothing was charged",
            ),
            Some(record),
        ),
        PaymentError::InsufficientFunds => (
            ApiError::new(
                ErrorKind::InsufficientBalance,
                "the available balance does not cover amount plus fees",
            ),
            None,
        ),
        PaymentError::NotRefundable(why) => (ApiError::new(ErrorKind::NotRefundable, why), None),
        e @ PaymentError::LinkClosed(_) => (ApiError::new(ErrorKind::LinkClosed, e.to_string()), None),
        e @ PaymentError::RecipientInactive(_) => (ApiError::new(ErrorKind::RecipientInactive, e.to_string()), None),
        e @ PaymentError::RecipientUnchecked(_) => (ApiError::new(ErrorKind::OperatorUnavailable, e.to_string()), None),
        e @ PaymentError::Unrouted(..) => (ApiError::new(ErrorKind::OperatorUnavailable, e.to_string()), None),
        PaymentError::OperatorDisabled(op) => (
            ApiError::new(
                ErrorKind::UnsupportedOperator,
                format!("{} is not available for this kind of payment", operator_code(op)),
            ),
            None,
        ),
        PaymentError::Service(e) => (e.into(), None),
    }
}
