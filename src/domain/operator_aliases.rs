//! Operator names of one deployment: `ORANGE_MONEY_CI` for ALPHA, say, so a client written
//! against brand names works unchanged. An alias is accepted wherever an operator code is, and
//! a transaction created with one gives it back as its operator code (`Transaction::operator_alias`).
//! Without aliases only the reference's codes are accepted.

use super::operator::{OperatorCode, UnknownOperator};

/// The longest alias: about twice the longest reference code.
const MAX_ALIAS_LEN: usize = 32;

/// The aliases of a deployment, each naming one operator.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OperatorAliases(Vec<(String, OperatorCode)>);

/// An operator code that is neither a reference code nor an alias of this deployment.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{unknown}{}", aliases_hint(.aliases))]
pub struct UnknownOperatorCode {
    pub unknown: UnknownOperator,
    aliases: Vec<String>,
}

fn aliases_hint(aliases: &[String]) -> String {
    if aliases.is_empty() {
        String::new()
    } else {
        format!(", or an alias of this deployment: {}", aliases.join(", "))
    }
}

/// An operator as a request named it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NamedOperator {
    pub operator: OperatorCode,
    /// The alias sent, when it was one (a reference code is not kept: each generation shows its own).
    pub alias: Option<String>,
}

impl OperatorAliases {
    /// Aliases from `(alias, operator)` pairs. `None` when an alias is empty, longer than 32
    /// characters, holds anything but `A-Z`, `a-z`, `0-9`, `_`, `-` and `.`, is a reference
    /// code (which would change what a reference client means) or comes twice.
    pub fn new(pairs: Vec<(String, OperatorCode)>) -> Option<OperatorAliases> {
        for (i, (alias, _)) in pairs.iter().enumerate() {
            let well_formed = !alias.is_empty()
                && alias.len() <= MAX_ALIAS_LEN
                && alias
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
            let taken = OperatorCode::parse(alias).is_ok() || pairs[..i].iter().any(|(a, _)| a == alias);
            if !well_formed || taken {
                return None;
            }
        }
        Some(OperatorAliases(pairs))
    }

    /// The operator `code` names: a reference code, or an alias (kept to give it back).
    pub fn resolve(&self, code: &str) -> Result<NamedOperator, UnknownOperatorCode> {
        if let Ok(operator) = OperatorCode::parse(code) {
            return Ok(NamedOperator { operator, alias: None });
        }
        match self.0.iter().find(|(alias, _)| alias == code) {
            Some((alias, operator)) => Ok(NamedOperator {
                operator: *operator,
                alias: Some(alias.clone()),
            }),
            None => Err(UnknownOperatorCode {
                unknown: UnknownOperator(code.to_owned()),
                aliases: self.0.iter().map(|(a, _)| a.clone()).collect(),
            }),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn brands() -> OperatorAliases {
        OperatorAliases::new(vec![
            ("ORANGE_MONEY_CI".into(), OperatorCode::Alpha),
            ("WAVE_CI".into(), OperatorCode::Beta),
            ("MTN_MONEY_CI".into(), OperatorCode::Gamma),
        ])
        .unwrap()
    }

    #[test]
    fn an_alias_names_its_operator_and_is_kept_while_reference_codes_are_not() {
        let aliases = brands();
        let named = aliases.resolve("WAVE_CI").unwrap();
        assert_eq!(named.operator, OperatorCode::Beta);
        assert_eq!(named.alias.as_deref(), Some("WAVE_CI"));
        let named = aliases.resolve("BETA_CI").unwrap();
        assert_eq!((named.operator, named.alias), (OperatorCode::Beta, None));
        let err = aliases.resolve("MOOV_CI").unwrap_err().to_string();
        assert!(
            err.contains("MOOV_CI") && err.contains("ORANGE_MONEY_CI, WAVE_CI, MTN_MONEY_CI"),
            "{err}"
        );
        let err = OperatorAliases::default().resolve("WAVE_CI").unwrap_err().to_string();
        assert!(
            !err.contains("alias"),
            "without aliases, the reference's message: {err}"
        );
    }

    #[test]
    fn aliases_that_would_change_a_reference_code_or_repeat_are_refused() {
        let one = |alias: &str| OperatorAliases::new(vec![(alias.to_owned(), OperatorCode::Alpha)]);
        assert!(one("ORANGE_MONEY_CI").is_some());
        for bad in ["", "BETA_CI", "GAMMA_MONEY", "A B", "X=Y", &"X".repeat(33)] {
            assert!(one(bad).is_none(), "{bad:?}");
        }
        let twice = OperatorAliases::new(vec![
            ("WAVE_CI".into(), OperatorCode::Beta),
            ("WAVE_CI".into(), OperatorCode::Alpha),
        ]);
        assert!(twice.is_none());
    }
}
