use super::status::francs;
use super::*;
use crate::domain::FailureCode;
use crate::domain::Kind;

#[test]
fn amounts_are_read_exactly() {
    assert_eq!(francs("1500"), Some(1500));
    assert_eq!(francs("1500.00"), Some(1500));
    assert_eq!(francs("1500.5"), None);
    assert_eq!(francs("1e3"), None);
    assert_eq!(francs("-5"), None);
    assert_eq!(francs(""), None);
}

#[test]
fn reasons_map_to_our_codes() {
    assert_eq!(
        failure_code(Kind::Collection, Some("APPROVAL_REJECTED")),
        FailureCode::PayerDeclined
    );
    assert_eq!(failure_code(Kind::Collection, Some("EXPIRED")), FailureCode::Expired);
    assert_eq!(
        failure_code(Kind::Transfer, Some("PAYEE_NOT_FOUND")),
        FailureCode::OperatorRefused
    );
    assert_eq!(failure_code(Kind::Transfer, None), FailureCode::OperatorRefused);
}
