//! What MoMo's status objects and refusals mean for a payment: its outcome, checked against
//! what we sent, and our failure code for the operator's reason.

use super::wire::PaymentResult;
use crate::domain::{FailureCode, Kind, Transaction};
use crate::operator::{BadAnswer, OperatorAnswer, OperatorError};

/// Our failure code for an operator's reason: any other than an expiry (APPROVAL_REJECTED,
/// NOT_ENOUGH_FUNDS, PAYER_NOT_FOUND, PAYER_LIMIT_REACHED, ...) is the payer's refusal when the
/// payer was asked (money in), the operator's when we paid out.
pub fn failure_code(kind: Kind, reason: Option<&str>) -> FailureCode {
    match reason {
        Some("EXPIRED") => FailureCode::Expired,
        _ if kind.pays_out() => FailureCode::OperatorRefused,
        _ => FailureCode::PayerDeclined,
    }
}

/// A whole number of francs, as the operator spells it (`"1500"`, `1500`, `"1500.00"`).
pub(super) fn francs(text: &str) -> Option<i64> {
    let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
    if whole.is_empty() || !whole.bytes().all(|b| b.is_ascii_digit()) || !fraction.bytes().all(|b| b == b'0') {
        return None;
    }
    whole.parse().ok()
}

/// What a status object says about `transaction`, checked against what we sent.
pub fn answer_of(result: &PaymentResult, transaction: &Transaction) -> Result<OperatorAnswer, OperatorError> {
    let mismatch = |kind: BadAnswer, what: String| {
        Err(OperatorError::bad_answer(
            kind,
            format!("the operator's answer does not match: {what}"),
        ))
    };
    match result.status.as_str() {
        "PENDING" => Ok(OperatorAnswer::Pending),
        "SUCCESSFUL" => {
            let amount = result.amount.as_deref().and_then(francs);
            if amount != Some(transaction.amounts.amount.get()) {
                return mismatch(
                    BadAnswer::AmountMismatch,
                    format!("amount {:?}, sent {}", result.amount, transaction.amounts.amount),
                );
            }
            if result.currency.as_deref() != Some("XOF") {
                return mismatch(
                    BadAnswer::CurrencyMismatch,
                    format!("currency {:?}, sent XOF", result.currency),
                );
            }
            Ok(OperatorAnswer::Succeeded)
        }
        "FAILED" => {
            let reason = result.reason_code();
            Ok(OperatorAnswer::Failed {
                code: failure_code(transaction.kind(), reason.as_deref()),
                reason: format!(
                    "the operator failed it: {}",
                    reason.as_deref().unwrap_or("no reason given")
                ),
            })
        }
        other => mismatch(BadAnswer::UnknownStatus, format!("unknown status {other:?}")),
    }
}
