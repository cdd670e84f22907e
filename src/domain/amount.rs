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

    /// Parses the text of a JSON number exactly, digit by digit: an integer, or a number whose
    /// fraction is all zeros (`1500.0`). Reading it through `f64` instead would round
    /// `99.99999999999999999` up to an acceptable 100. An exponent is refused as in text
    /// (DECISIONS §3). A negative number is well formed but never an amount: out of range.
    /// `raw` is what a JSON parser already accepted as a number (no `+`, no leading zeros).
    pub fn parse_json_number(raw: &str) -> Result<Amount, AmountProblem> {
        match raw.strip_prefix('-') {
            Some(magnitude) => match Amount::parse_text(magnitude) {
                Err(AmountProblem::Malformed) => Err(AmountProblem::Malformed),
                Ok(_) | Err(AmountProblem::OutOfRange) => Err(AmountProblem::OutOfRange),
            },
            None => Amount::parse_text(raw),
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
    }

    #[test]
    fn json_numbers_are_read_exactly_from_their_text() {
        assert_eq!(Amount::parse_json_number("1500").unwrap().francs(), 1500);
        assert_eq!(Amount::parse_json_number("1500.0").unwrap().francs(), 1500);
        assert_eq!(Amount::parse_json_number("1000000.000").unwrap().francs(), 1_000_000);
        for malformed in [
            "99.99999999999999999",
            "1000000.0000000001",
            "1500.5",
            "1e2",
            "1.5e3",
            "1E3",
            "1500.0e0",
            "-1500.5",
            "-1e2",
        ] {
            assert_eq!(
                Amount::parse_json_number(malformed),
                Err(AmountProblem::Malformed),
                "{malformed}"
            );
        }
        for out_of_range in [
            "-100",
            "-0",
            "0",
            "99",
            "1000001",
            "18446744073709551616",
            "1000000000000000000000.0",
        ] {
            assert_eq!(
                Amount::parse_json_number(out_of_range),
                Err(AmountProblem::OutOfRange),
                "{out_of_range}"
            );
        }
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
        fn a_json_number_is_its_exact_integer_or_refused(
            n in prop_oneof![0u128..2_000_000, any::<u128>()],
            fraction in prop_oneof!["", "0{1,30}", "[0-9]{1,30}"],
            exponent in proptest::option::of("[eE][-+]?[0-9]{1,3}"),
            negative in any::<bool>(),
        ) {
            let sign = if negative { "-" } else { "" };
            let dot = if fraction.is_empty() { "" } else { "." };
            let exp = exponent.clone().unwrap_or_default();
            let text = format!("{sign}{n}{dot}{fraction}{exp}");
            let expected = if exponent.is_some() || fraction.bytes().any(|b| b != b'0') {
                Err(AmountProblem::Malformed)
            } else if negative || !(100..=1_000_000).contains(&n) {
                Err(AmountProblem::OutOfRange)
            } else {
                Ok(n as i64)
            };
            prop_assert_eq!(Amount::parse_json_number(&text).map(Amount::francs), expected.clone(), "{}", text);
            // The same digits as text (v1, or v2 as a string): a sign is malformed there.
            let expected_text = if negative { Err(AmountProblem::Malformed) } else { expected };
            prop_assert_eq!(Amount::parse_text(&text).map(Amount::francs), expected_text, "{}", text);
        }

        #[test]
        fn huge_whole_numbers_are_out_of_range_without_overflow(digits in "[1-9][0-9]{19,400}", zeros in "(\\.0{1,5})?") {
            let text = format!("{digits}{zeros}");
            prop_assert_eq!(Amount::parse_text(&text), Err(AmountProblem::OutOfRange));
            prop_assert_eq!(Amount::parse_json_number(&text), Err(AmountProblem::OutOfRange));
            prop_assert_eq!(Amount::parse_json_number(&format!("-{text}")), Err(AmountProblem::OutOfRange));
        }

        #[test]
        fn any_text_as_a_json_number_either_parses_in_range_or_is_refused(raw in "[-+.eE0-9]{0,30}|\\PC{0,24}") {
            if let Ok(amount) = Amount::parse_json_number(&raw) {
                prop_assert!((MIN_AMOUNT..=MAX_AMOUNT).contains(&amount.francs()));
            }
        }

        #[test]
        fn a_non_zero_fraction_is_always_refused(francs in MIN_AMOUNT..=MAX_AMOUNT, cents in 1u32..100) {
            prop_assert_eq!(Amount::parse_text(&format!("{francs}.{cents:02}")), Err(AmountProblem::Malformed));
        }
    }
}
