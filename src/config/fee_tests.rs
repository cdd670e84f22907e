//! The settings of the API's money choices: which operators take which payments, and fees.

use super::tests::from_env;
use super::*;

/// `basis_points` of the amount plus `fixed` francs.
fn rule(basis_points: u32, fixed: i64) -> FeeRule {
    FeeRule {
        basis_points,
        fixed: crate::domain::Francs(fixed),
    }
}

#[test]
fn operators_can_be_disabled_whole_or_by_direction() {
    let c = from_env(&[("MOMO_DISABLED_OPERATORS", "GAMMA, BETA:transfer")]).unwrap();
    assert!(c.operator_disabled(OperatorCode::Gamma, Kind::Collection));
    assert!(c.operator_disabled(OperatorCode::Beta, Kind::Transfer));
    assert!(!c.operator_disabled(OperatorCode::Beta, Kind::Collection));
    assert!(from_env(&[("MOMO_DISABLED_OPERATORS", "OMEGA")]).is_err());
}

#[test]
fn fees_are_configured_per_operator_and_direction() {
    let c = from_env(&[(
        "MOMO_FEES",
        "BETA:collecte=175, GAMMA_MONEY:transfer=50+25, BETA:refund=1",
    )])
    .unwrap();
    let fees = c.fee_schedule();
    assert_eq!(fees.rule(OperatorCode::Beta, Kind::Refund), rule(1, 0));
    assert_eq!(
        FeeSchedule::default().rule(OperatorCode::Beta, Kind::Refund),
        rule(0, 0),
        "a refund costs nothing unless configured"
    );
    assert_eq!(fees.rule(OperatorCode::Beta, Kind::Collection), rule(175, 0));
    assert_eq!(fees.rule(OperatorCode::Gamma, Kind::Transfer), rule(50, 25));
    assert_eq!(
        fees.rule(OperatorCode::Alpha, Kind::Collection),
        rule(200, 0),
        "defaults stay"
    );
    for bad in [
        "BETA=150",
        "BETA:refunds=1",
        "OMEGA:collecte=1",
        "BETA:collecte=10001",
        "BETA:collecte=1+-5",
        "BETA:collecte=x",
    ] {
        assert!(from_env(&[("MOMO_FEES", bad)]).is_err(), "{bad}");
    }
}
