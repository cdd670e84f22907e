//! The four operators and their codes, which differ between the generations.

use std::fmt;

/// A mobile-money operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OperatorCode {
    Alpha,
    Beta,
    Gamma,
    Delta,
}

/// An operator code that names no operator we know.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown operator {0:?}: expected one of ALPHA_MONEY_CI, BETA_MONEY_CI, BETA_CI, GAMMA_MONEY_CI, GAMMA_MONEY, DELTA_MONEY_CI")]
pub struct UnknownOperator(pub String);

impl OperatorCode {
    pub const ALL: [OperatorCode; 4] = [
        OperatorCode::Alpha,
        OperatorCode::Beta,
        OperatorCode::Gamma,
        OperatorCode::Delta,
    ];

    /// Every alias either generation sends.
    pub fn parse(code: &str) -> Result<OperatorCode, UnknownOperator> {
        match code {
            "ALPHA_MONEY_CI" => Ok(OperatorCode::Alpha),
            "BETA_MONEY_CI" | "BETA_CI" => Ok(OperatorCode::Beta),
            "GAMMA_MONEY_CI" | "GAMMA_MONEY" => Ok(OperatorCode::Gamma),
            "DELTA_MONEY_CI" => Ok(OperatorCode::Delta),
            other => Err(UnknownOperator(other.to_owned())),
        }
    }

    /// The canonical name, used in storage and configuration.
    pub fn name(self) -> &'static str {
        match self {
            OperatorCode::Alpha => "ALPHA",
            OperatorCode::Beta => "BETA",
            OperatorCode::Gamma => "GAMMA",
            OperatorCode::Delta => "DELTA",
        }
    }

    pub fn from_name(name: &str) -> Option<OperatorCode> {
        OperatorCode::ALL.into_iter().find(|o| o.name() == name)
    }

    /// The code v1 shows: `<X>_MONEY_CI` for all four.
    pub fn v1_code(self) -> &'static str {
        match self {
            OperatorCode::Alpha => "ALPHA_MONEY_CI",
            OperatorCode::Beta => "BETA_MONEY_CI",
            OperatorCode::Gamma => "GAMMA_MONEY_CI",
            OperatorCode::Delta => "DELTA_MONEY_CI",
        }
    }

    /// The code v2 shows (BETA is `BETA_CI` there).
    pub fn v2_code(self) -> &'static str {
        match self {
            OperatorCode::Alpha => "ALPHA_MONEY_CI",
            OperatorCode::Beta => "BETA_CI",
            OperatorCode::Gamma => "GAMMA_MONEY_CI",
            OperatorCode::Delta => "DELTA_MONEY_CI",
        }
    }
}

impl fmt::Display for OperatorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_alias_parses_and_each_generation_has_its_codes() {
        let cases = [
            ("ALPHA_MONEY_CI", OperatorCode::Alpha),
            ("BETA_MONEY_CI", OperatorCode::Beta),
            ("BETA_CI", OperatorCode::Beta),
            ("GAMMA_MONEY_CI", OperatorCode::Gamma),
            ("GAMMA_MONEY", OperatorCode::Gamma),
            ("DELTA_MONEY_CI", OperatorCode::Delta),
        ];
        for (code, op) in cases {
            assert_eq!(OperatorCode::parse(code), Ok(op));
        }
        assert_eq!(OperatorCode::Beta.v1_code(), "BETA_MONEY_CI");
        assert_eq!(OperatorCode::Beta.v2_code(), "BETA_CI");
        assert_eq!(OperatorCode::Gamma.v2_code(), "GAMMA_MONEY_CI");
        for bad in ["", "alpha_money_ci", "OMEGA_CI", "BETA"] {
            assert!(OperatorCode::parse(bad).is_err(), "{bad}");
        }
        for op in OperatorCode::ALL {
            assert_eq!(OperatorCode::from_name(op.name()), Some(op));
        }
    }
}
