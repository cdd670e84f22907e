//! Ivorian mobile numbers (MSISDN).
//!
//! Since 2021 Côte d'Ivoire numbers have 10 digits; mobile numbers start `01`, `05` or `07`
//! (fixed lines start `2`, and cannot hold mobile money). Clients send them as the national
//! number, with `+225` or `225` in front, with spaces, or (v2) as a JSON integer that has lost
//! its leading zero. All of these normalize to the 10-digit national number.

use std::fmt;

/// A normalized 10-digit Ivorian mobile number.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Msisdn(String);

/// Why a phone number was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MsisdnProblem {
    #[error("must be a 10-digit Ivorian mobile number like 0701020304, optionally with +225 in front")]
    Malformed,
    #[error("must start with 01, 05 or 07 (an Ivorian mobile number)")]
    NotMobile,
}

impl Msisdn {
    /// Parses a number sent as text.
    pub fn parse(raw: &str) -> Result<Msisdn, MsisdnProblem> {
        let compact: String = raw.chars().filter(|c| *c != ' ').collect();
        let national = if let Some(rest) = compact.strip_prefix("+225") {
            rest
        } else if compact.len() == 13 && compact.starts_with("225") {
            &compact[3..]
        } else {
            compact.as_str()
        };
        Self::from_national(national)
    }

    /// Parses a number sent as a JSON integer (v2 `customer_id`): the leading zero is lost, so
    /// 9 digits get it back, and 12 digits starting with 225 lose the country code first.
    pub fn from_integer(value: u64) -> Result<Msisdn, MsisdnProblem> {
        let digits = value.to_string();
        let national = match digits.len() {
            9 => format!("0{digits}"),
            12 if digits.starts_with("225") => format!("0{}", &digits[3..]),
            _ => return Err(MsisdnProblem::Malformed),
        };
        Self::from_national(&national)
    }

    fn from_national(national: &str) -> Result<Msisdn, MsisdnProblem> {
        if national.len() != 10 || !national.bytes().all(|b| b.is_ascii_digit()) {
            return Err(MsisdnProblem::Malformed);
        }
        if !matches!(&national[..2], "01" | "05" | "07") {
            return Err(MsisdnProblem::NotMobile);
        }
        Ok(Msisdn(national.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The last two digits, which also select the simulator's behaviour.
    pub fn last_two_digits(&self) -> &str {
        &self.0[8..]
    }

    /// The number as logs may show it: all but the last two digits hidden.
    pub fn masked(&self) -> String {
        format!("********{}", self.last_two_digits())
    }
}

impl fmt::Debug for Msisdn {
    /// Masked like `Display`: a `{:?}` in a log line must not leak a number either.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Msisdn({})", self.masked())
    }
}

impl fmt::Display for Msisdn {
    /// Displays masked, so a number that slips into a log line does not leak.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.masked())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn any_text_is_a_mobile_number_or_refused(raw in "[+0-9 ]{0,20}|\\PC{0,20}|.{0,20}") {
            if let Ok(m) = Msisdn::parse(&raw) {
                prop_assert_eq!(m.as_str().len(), 10);
                prop_assert!(m.as_str().bytes().all(|b| b.is_ascii_digit()));
                prop_assert!(["01", "05", "07"].contains(&&m.as_str()[..2]));
            }
        }

        #[test]
        fn every_written_form_of_a_number_is_that_number(
            prefix in prop_oneof![Just("01"), Just("05"), Just("07")],
            rest in "[0-9]{8}",
            country in prop_oneof![Just(""), Just("+225"), Just("225")],
            spaces in proptest::collection::vec(0usize..14, 0..4),
        ) {
            let national = format!("{prefix}{rest}");
            let mut written: Vec<char> = format!("{country}{national}").chars().collect();
            for at in spaces {
                written.insert(at.min(written.len()), ' ');
            }
            let written: String = written.into_iter().collect();
            prop_assert_eq!(Msisdn::parse(&written).map(|m| m.as_str().to_owned()), Ok(national), "{}", written);
        }

        #[test]
        fn any_integer_is_a_mobile_number_or_refused(n in prop_oneof![any::<u64>(), 100_000_000u64..1_000_000_000, 225_000_000_000u64..226_000_000_000]) {
            if let Ok(m) = Msisdn::from_integer(n) {
                prop_assert!(m.as_str().ends_with(&(n % 1_000_000_000).to_string()));
            }
        }
    }

    #[test]
    fn national_and_international_forms_normalize_to_ten_digits() {
        for raw in [
            "0701020304",
            "+2250701020304",
            "2250701020304",
            "07 01 02 03 04",
            "+225 07 01 02 03 04",
        ] {
            assert_eq!(Msisdn::parse(raw).unwrap().as_str(), "0701020304", "{raw}");
        }
    }

    #[test]
    fn wrong_lengths_letters_and_prefixes_are_refused() {
        for raw in [
            "070102030",
            "07010203045",
            "07010203ab",
            "",
            "+2260701020304",
            "+22507010203",
            "22507010203045",
            "0-701020304",
        ] {
            assert_eq!(Msisdn::parse(raw), Err(MsisdnProblem::Malformed), "{raw}");
        }
        assert_eq!(Msisdn::parse("0901020304"), Err(MsisdnProblem::NotMobile));
        assert_eq!(Msisdn::parse("2721020304"), Err(MsisdnProblem::NotMobile));
    }

    #[test]
    fn integers_get_their_leading_zero_back() {
        assert_eq!(Msisdn::from_integer(701020304).unwrap().as_str(), "0701020304");
        assert_eq!(Msisdn::from_integer(225701020304).unwrap().as_str(), "0701020304");
        assert!(Msisdn::from_integer(70102030).is_err());
        assert!(Msisdn::from_integer(7010203045).is_err());
    }

    #[test]
    fn display_masks_all_but_the_last_two_digits() {
        let m = Msisdn::parse("0701020304").unwrap();
        assert_eq!(m.to_string(), "********04");
        assert_eq!(format!("{m:?}"), "Msisdn(********04)");
    }
}
