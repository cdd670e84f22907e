//! Fees: per operator and direction, basis points plus a fixed part, rounded up to the franc.

use super::amount::Amount;
use super::money::Francs;
use super::operator::OperatorCode;
use super::purpose::Kind;

/// One fee rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FeeRule {
    pub basis_points: u32,
    pub fixed: Francs,
}

impl FeeRule {
    /// The fee on `amount`: `ceil(amount × bp / 10000) + fixed`.
    pub fn fee(self, amount: Amount) -> i64 {
        let proportional = (amount.francs() as i128 * self.basis_points as i128 + 9_999) / 10_000;
        proportional as i64 + self.fixed.get()
    }
}

/// The fee rules of every operator in both directions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FeeSchedule {
    rules: Vec<(OperatorCode, Kind, FeeRule)>,
}

impl Default for FeeSchedule {
    /// What the live service charges: collections 200 bp (BETA 150), transfers 100 bp (BETA 150).
    fn default() -> Self {
        let mut rules = Vec::new();
        for operator in OperatorCode::ALL {
            let (collection, transfer) = match operator {
                OperatorCode::Beta => (150, 150),
                OperatorCode::Alpha | OperatorCode::Gamma | OperatorCode::Delta => (200, 100),
            };
            rules.push((
                operator,
                Kind::Collection,
                FeeRule {
                    basis_points: collection,
                    fixed: Francs::ZERO,
                },
            ));
            rules.push((
                operator,
                Kind::Transfer,
                FeeRule {
                    basis_points: transfer,
                    fixed: Francs::ZERO,
                },
            ));
        }
        FeeSchedule { rules }
    }
}

/// The four amounts of a transaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Amounts {
    pub amount: Francs,
    pub fees: Francs,
    pub amount_receive: Francs,
    pub amount_total: Francs,
}

impl FeeSchedule {
    pub fn rule(&self, operator: OperatorCode, kind: Kind) -> FeeRule {
        self.rules
            .iter()
            .find(|(o, k, _)| *o == operator && *k == kind)
            .map(|(_, _, r)| *r)
            .unwrap_or(FeeRule {
                basis_points: 0,
                fixed: Francs::ZERO,
            })
    }

    /// Replaces one rule (configuration).
    pub fn set(&mut self, operator: OperatorCode, kind: Kind, rule: FeeRule) {
        self.rules.retain(|(o, k, _)| !(*o == operator && *k == kind));
        self.rules.push((operator, kind, rule));
    }

    /// A collection takes its fee from what the merchant receives; a transfer or a refund adds
    /// it to what the merchant pays (a refund's rule is 0 unless configured). Collection fees
    /// never exceed the amount.
    pub fn amounts(&self, operator: OperatorCode, kind: Kind, amount: Amount) -> Amounts {
        let fee = self.rule(operator, kind).fee(amount);
        let a = amount.francs();
        if kind.pays_out() {
            let (amount, fees) = (Francs(a), Francs(fee.max(0)));
            Amounts {
                amount,
                fees,
                amount_receive: amount,
                amount_total: amount + fees,
            }
        } else {
            let (amount, fees) = (Francs(a), Francs(fee.clamp(0, a)));
            Amounts {
                amount,
                fees,
                amount_receive: amount - fees,
                amount_total: amount,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::amount::{MAX_AMOUNT, MIN_AMOUNT};
    use proptest::prelude::*;

    #[test]
    fn default_fees_match_the_live_service_and_round_up() {
        let s = FeeSchedule::default();
        let a = |n| Amount::from_francs(n).unwrap();
        assert_eq!(
            s.amounts(OperatorCode::Alpha, Kind::Collection, a(1500)),
            Amounts {
                amount: Francs(1500),
                fees: Francs(30),
                amount_receive: Francs(1470),
                amount_total: Francs(1500)
            }
        );
        assert_eq!(
            s.amounts(OperatorCode::Beta, Kind::Collection, a(1000)).fees,
            Francs(15)
        );
        assert_eq!(
            s.amounts(OperatorCode::Gamma, Kind::Transfer, a(1000)),
            Amounts {
                amount: Francs(1000),
                fees: Francs(10),
                amount_receive: Francs(1000),
                amount_total: Francs(1010)
            }
        );
        assert_eq!(
            s.amounts(OperatorCode::Beta, Kind::Transfer, a(101)).fees,
            Francs(2),
            "1.515 rounds up to 2"
        );
        assert_eq!(
            s.amounts(OperatorCode::Delta, Kind::Collection, a(101)).fees,
            Francs(3),
            "2.02 rounds up to 3"
        );
    }

    #[test]
    fn a_fixed_part_is_added() {
        let mut s = FeeSchedule::default();
        s.set(
            OperatorCode::Alpha,
            Kind::Transfer,
            FeeRule {
                basis_points: 50,
                fixed: Francs(25),
            },
        );
        assert_eq!(
            s.amounts(OperatorCode::Alpha, Kind::Transfer, Amount::from_francs(1000).unwrap())
                .fees,
            Francs(30)
        );
    }

    fn operator() -> impl Strategy<Value = OperatorCode> {
        prop::sample::select(OperatorCode::ALL.to_vec())
    }

    proptest! {
        #[test]
        fn the_amount_relations_hold_for_every_amount(francs in MIN_AMOUNT..=MAX_AMOUNT, op in operator(), bp in 0u32..=10_000, fixed in 0i64..1_000) {
            let mut s = FeeSchedule::default();
            s.set(op, Kind::Collection, FeeRule { basis_points: bp, fixed: Francs(fixed) });
            s.set(op, Kind::Transfer, FeeRule { basis_points: bp, fixed: Francs(fixed) });
            let amount = Amount::from_francs(francs).unwrap();
            let c = s.amounts(op, Kind::Collection, amount);
            prop_assert_eq!(c.amount_total, c.amount);
            prop_assert_eq!(c.amount_receive, c.amount - c.fees);
            prop_assert!(c.fees >= Francs::ZERO && c.amount_receive >= Francs::ZERO);
            let t = s.amounts(op, Kind::Transfer, amount);
            prop_assert_eq!(t.amount_receive, t.amount);
            prop_assert_eq!(t.amount_total, t.amount + t.fees);
            // Rounded up: never less than the exact proportional fee.
            prop_assert!((t.fees - Francs(fixed)).get() as i128 * 10_000 >= francs as i128 * bp as i128);
            prop_assert!(((t.fees - Francs(fixed)).get() as i128 - 1) * 10_000 < francs as i128 * bp as i128);
        }
    }
}
