//! The settings of the API's money choices: which operators take which payments, and fees.

use super::tests::from_env;
use super::*;

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
    assert_eq!(
        fees.rule(OperatorCode::Beta, Kind::Refund),
        FeeRule {
            basis_points: 1,
            fixed: crate::domain::Francs(0)
        }
    );
    assert_eq!(
        FeeSchedule::default().rule(OperatorCode::Beta, Kind::Refund),
        FeeRule {
            basis_points: 0,
            fixed: crate::domain::Francs(0)
        },
        "a refund costs nothing unless configured"
    );
    assert_eq!(
        fees.rule(OperatorCode::Beta, Kind::Collection),
        FeeRule {
            basis_points: 175,
            fixed: crate::domain::Francs(0)
        }
    );
    assert_eq!(
        fees.rule(OperatorCode::Gamma, Kind::Transfer),
        FeeRule {
            basis_points: 50,
            fixed: crate::domain::Francs(25)
        }
    );
    assert_eq!(
        fees.rule(OperatorCode::Alpha, Kind::Collection),
        FeeRule {
            basis_points: 200,
            fixed: crate::domain::Francs(0)
        },
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
