//! The answers' rules, on answers written by hand. The connector against the emulator over
//! HTTP is in `tests/api/operators/paydunya.rs`.

use super::disburse;
use super::invoice;
use super::wire::{Confirmation, DisburseState};
use crate::domain::FailureCode;
use crate::operator::{BadAnswer, OperatorAnswer, OperatorError};

fn confirmation(json: &str) -> Confirmation {
    serde_json::from_str(json).unwrap()
}

fn bad(result: Result<OperatorAnswer, OperatorError>) -> Option<BadAnswer> {
    match result {
        Err(OperatorError::BadAnswer { kind, .. }) => Some(kind),
        _ => None,
    }
}

#[test]
fn a_confirmation_settles_only_what_we_sent() {
    let of = |status: &str, token: &str, amount: &str| {
        confirmation(&format!(
            r#"{{"response_code":"00","status":"{status}","invoice":{{"token":"{token}","total_amount":{amount}}}}}"#
        ))
    };
    assert_eq!(
        invoice::answer_of(&of("completed", "tk", "\"5000\""), "tk", 5000),
        Ok(OperatorAnswer::Succeeded)
    );
    assert_eq!(
        invoice::answer_of(&of("completed", "tk", "5000"), "tk", 5000),
        Ok(OperatorAnswer::Succeeded)
    );
    assert_eq!(
        invoice::answer_of(&of("pending", "tk", "5000"), "tk", 5000),
        Ok(OperatorAnswer::Pending)
    );
    assert!(matches!(
        invoice::answer_of(&of("cancelled", "tk", "5000"), "tk", 5000),
        Ok(OperatorAnswer::Failed {
            code: FailureCode::PayerDeclined,
            ..
        })
    ));
    assert_eq!(
        bad(invoice::answer_of(&of("completed", "tk", "4999"), "tk", 5000)),
        Some(BadAnswer::AmountMismatch)
    );
    assert_eq!(
        bad(invoice::answer_of(&of("completed", "other", "5000"), "tk", 5000)),
        Some(BadAnswer::Malformed)
    );
    assert_eq!(
        bad(invoice::answer_of(&of("refunded", "tk", "5000"), "tk", 5000)),
        Some(BadAnswer::UnknownStatus)
    );
    let in_euros = confirmation(
        r#"{"response_code":"00","status":"completed","invoice":{"token":"tk","total_amount":"5000","currency":"EUR"}}"#,
    );
    assert_eq!(
        bad(invoice::answer_of(&in_euros, "tk", 5000)),
        Some(BadAnswer::CurrencyMismatch)
    );
    let not_found = confirmation(r#"{"response_code":"1001","response_text":"Invoice Not Found"}"#);
    assert!(matches!(
        invoice::answer_of(&not_found, "tk", 5000),
        Err(OperatorError::Ambiguous(_))
    ));
}

#[test]
fn a_disbursement_never_submitted_is_not_received() {
    let of = |status: &str, amount: &str| -> DisburseState {
        serde_json::from_str(&format!(
            r#"{{"response_code":"00","status":"{status}","amount":{amount}}}"#
        ))
        .unwrap()
    };
    assert_eq!(
        disburse::answer_of(&of("created", "700"), "dt", 700),
        Ok(OperatorAnswer::NotReceived)
    );
    assert_eq!(
        disburse::answer_of(&of("pending", "700"), "dt", 700),
        Ok(OperatorAnswer::Pending)
    );
    assert_eq!(
        disburse::answer_of(&of("success", "\"700\""), "dt", 700),
        Ok(OperatorAnswer::Succeeded)
    );
    assert!(matches!(
        disburse::answer_of(&of("failed", "700"), "dt", 700),
        Ok(OperatorAnswer::Failed {
            code: FailureCode::OperatorRefused,
            ..
        })
    ));
    assert_eq!(
        bad(disburse::answer_of(&of("success", "701"), "dt", 700)),
        Some(BadAnswer::AmountMismatch)
    );
    assert_eq!(
        bad(disburse::answer_of(&of("reversed", "700"), "dt", 700)),
        Some(BadAnswer::UnknownStatus)
    );
    let amountless: DisburseState = serde_json::from_str(r#"{"response_code":"00","status":"success"}"#).unwrap();
    assert_eq!(
        bad(disburse::answer_of(&amountless, "dt", 700)),
        Some(BadAnswer::Malformed)
    );
}
