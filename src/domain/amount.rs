//! Amounts of XOF, which has no minor unit: whole francs in 64-bit integers, never floats.

use std::fmt;

/// The smallest amount a collection or transfer may move.
pub const MIN_AMOUNT: i64 = 100;
/// The largest amount a collection or transfer may move.
pub const MAX_AMOUNT: i64 = 1_000_000;

/// A whole number of francs within the service's limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Amount(i64);

/// Why an amount was refused: malformed text is a bad request; a well-formed number outside
/// the limits is forbidden (403), as the reference says.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AmountProblem {
    #[error("must be a whole number of francs like \"1500\" (no sign, exponent or non-zero decimals)")]
    Malformed,
    #[error("must be between 100 and 1000000 XOF")]
    OutOfRange,
}

impl Amount {
    /// An amount from a whole number, checking the limits.
    pub fn from_francs(francs: i64) -> Result<Amount, AmountProblem> {
        if (MIN_AMOUNT..=MAX_AMOUNT).contains(&francs) {
            Ok(Amount(francs))
        } else {
            Err(AmountProblem::OutOfRange)
        }
    }

    /// Parses the text form both generations accept: digits, optionally followed by a decimal
    /// point and zeros only (`"1500"`, `"1500.0"`, `"1500.00"`).
    pub fn parse_text(raw: &str) -> Result<Amount, AmountProblem> {
        let (whole, fraction) = match raw.split_once('.') {
            Some((w, f)) => (w, Some(f)),
            None => (raw, None),
        };
        let digits_only = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
        if !digits_only(whole) {
            return Err(AmountProblem::Malformed);
        }
        if let Some(f) = fraction {
            if !digits_only(f) || f.bytes().any(|b| b != b'0') {
                return Err(AmountProblem::Malformed);
            }
        }
        let significant = whole.trim_start_matches('0');
        if significant.len() > 18 {
            return Err(AmountProblem::OutOfRange);
        }
        Amount::from_francs(significant.parse().unwrap_or(0))
    }

    /// Parses a JSON number (v2): an integer, or a float with no fractional part.
    pub fn from_json_number(integer: Option<i64>, float: Option<f64>) -> Result<Amount, AmountProblem> {
        if let Some(i) = integer {
            return Amount::from_francs(i);
        }
        match float {
            Some(f) if f.is_finite() && f.fract() == 0.0 => {
                if f.abs() > 1e15 {
                    Err(AmountProblem::OutOfRange)
                } else {
                    Amount::from_francs(f as i64)
                }
            }
            _ => Err(AmountProblem::Malformed),
        }
    }

    pub fn francs(self) -> i64 {
        self.0
    }
}

impl fmt::Display for Amount {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn text_with_zero_decimals_is_accepted() {
        for raw in ["1500", "1500.0", "1500.00", "0100", "100", "1000000"] {
            assert!(Amount::parse_text(raw).is_ok(), "{raw}");
        }
        assert_eq!(Amount::parse_text("1500.00").unwrap().francs(), 1500);
    }

    #[test]
    fn malformed_text_is_refused() {
        for raw in [
            "", "abc", "1e3", "-100", "+100", "100.5", "1500.50", " 100", "100 ", "1,000", ".5", "100.", "0x10", "١٠٠",
        ] {
            assert_eq!(Amount::parse_text(raw), Err(AmountProblem::Malformed), "{raw:?}");
        }
    }

    #[test]
    fn numbers_outside_the_limits_are_out_of_range() {
        for raw in ["99", "0", "1000001", "99999999999999999999999"] {
            assert_eq!(Amount::parse_text(raw), Err(AmountProblem::OutOfRange), "{raw}");
        }
        assert_eq!(
            Amount::from_json_number(Some(-100), None),
            Err(AmountProblem::OutOfRange)
        );
        assert_eq!(
            Amount::from_json_number(None, Some(1e300)),
            Err(AmountProblem::OutOfRange)
        );
        assert_eq!(
            Amount::from_json_number(None, Some(1500.5)),
            Err(AmountProblem::Malformed)
        );
        assert_eq!(Amount::from_json_number(None, Some(1500.0)).unwrap().francs(), 1500);
    }

    proptest! {
        #[test]
        fn every_amount_in_range_round_trips_through_its_text(francs in MIN_AMOUNT..=MAX_AMOUNT, zeros in 0usize..4) {
            let text = if zeros == 0 { francs.to_string() } else { format!("{francs}.{}", "0".repeat(zeros)) };
            prop_assert_eq!(Amount::parse_text(&text).unwrap().francs(), francs);
        }

        #[test]
        fn any_text_either_parses_in_range_or_is_refused(raw in "\\PC{0,24}") {
            if let Ok(amount) = Amount::parse_text(&raw) {
                prop_assert!((MIN_AMOUNT..=MAX_AMOUNT).contains(&amount.francs()));
            }
        }

        #[test]
        fn a_non_zero_fraction_is_always_refused(francs in MIN_AMOUNT..=MAX_AMOUNT, cents in 1u32..100) {
            prop_assert_eq!(Amount::parse_text(&format!("{francs}.{cents:02}")), Err(AmountProblem::Malformed));
        }
    }
}
