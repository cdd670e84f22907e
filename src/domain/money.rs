//! Sums of XOF as the ledger and the balance hold them: whole francs, signed (a posting takes
//! money out of an account as a negative sum), never floats. A payment's own amount, within the
//! service's limits, is an [`Amount`](super::Amount); every other sum of money is `Francs`.

use std::fmt;
use std::iter::Sum;
use std::ops::{Add, AddAssign, Neg, Sub, SubAssign};
use std::str::FromStr;

/// A whole, signed number of francs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Francs(pub i64);

impl Francs {
    pub const ZERO: Francs = Francs(0);

    pub fn get(self) -> i64 {
        self.0
    }

    pub fn is_positive(self) -> bool {
        self.0 > 0
    }

    pub fn is_negative(self) -> bool {
        self.0 < 0
    }
}

impl Add for Francs {
    type Output = Francs;
    fn add(self, other: Francs) -> Francs {
        Francs(self.0 + other.0)
    }
}

impl AddAssign for Francs {
    fn add_assign(&mut self, other: Francs) {
        self.0 += other.0;
    }
}

impl SubAssign for Francs {
    fn sub_assign(&mut self, other: Francs) {
        self.0 -= other.0;
    }
}

impl Sub for Francs {
    type Output = Francs;
    fn sub(self, other: Francs) -> Francs {
        Francs(self.0 - other.0)
    }
}

impl Neg for Francs {
    type Output = Francs;
    fn neg(self) -> Francs {
        Francs(-self.0)
    }
}

impl Sum for Francs {
    fn sum<I: Iterator<Item = Francs>>(iter: I) -> Francs {
        iter.fold(Francs::ZERO, Add::add)
    }
}

impl fmt::Display for Francs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// Why a text is not a sum of francs.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("must be a whole number of francs like \"25000\" (digits only: no sign, decimals or separators)")]
pub struct NotFrancs;

/// The text an operator types (the command line's money commands): digits only, at most 18.
impl FromStr for Francs {
    type Err = NotFrancs;
    fn from_str(raw: &str) -> Result<Francs, NotFrancs> {
        let digits = raw.trim();
        if digits.is_empty() || digits.len() > 18 || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(NotFrancs);
        }
        digits.parse().map(Francs).map_err(|_| NotFrancs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_whole_unsigned_numbers_of_francs_parse() {
        assert_eq!("25000".parse(), Ok(Francs(25_000)));
        assert_eq!(" 0 ".parse(), Ok(Francs(0)));
        for raw in ["", "-5", "+5", "1.5", "1e3", "1 000", "abc", "9999999999999999999"] {
            assert_eq!(raw.parse::<Francs>(), Err(NotFrancs), "{raw:?}");
        }
    }

    #[test]
    fn sums_add_and_negate() {
        let sum: Francs = [Francs(5), -Francs(3), Francs(10) - Francs(2)].into_iter().sum();
        assert_eq!(sum, Francs(10));
        assert!(sum.is_positive() && !sum.is_negative());
    }
}
