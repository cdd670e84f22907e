//! Environments and tenants: the walls that data never crosses.

use std::fmt;
use std::str::FromStr;

use super::merchant::MerchantId;

/// A merchant's environment. Each has its own credentials, customers, balance and webhooks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Environment {
    Production,
    Sandbox,
}

impl Environment {
    pub const ALL: [Environment; 2] = [Environment::Production, Environment::Sandbox];

    /// The spelling used on the wire (`X-Environment`) and in the database.
    pub fn as_str(self) -> &'static str {
        match self {
            Environment::Production => "Production",
            Environment::Sandbox => "Sandbox",
        }
    }

    /// Short form used inside generated API keys, so a key tells which environment it opens.
    pub fn key_prefix(self) -> &'static str {
        match self {
            Environment::Production => "live",
            Environment::Sandbox => "sandbox",
        }
    }
}

impl fmt::Display for Environment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The error of parsing an environment name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown environment {0:?}: expected Production or Sandbox")]
pub struct UnknownEnvironment(pub String);

impl FromStr for Environment {
    type Err = UnknownEnvironment;

    /// Case-insensitive, since clients and shells are not careful about it.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s.eq_ignore_ascii_case("production") {
            Ok(Environment::Production)
        } else if s.eq_ignore_ascii_case("sandbox") {
            Ok(Environment::Sandbox)
        } else {
            Err(UnknownEnvironment(s.to_owned()))
        }
    }
}

/// One merchant in one environment: the scope of every record a merchant can see.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tenant {
    pub merchant_id: MerchantId,
    pub environment: Environment,
}

#[cfg(test)]
impl Tenant {
    /// Merchant `merchant`'s Sandbox, for unit tests.
    pub(crate) fn sandbox(merchant: &str) -> Tenant {
        Tenant {
            merchant_id: MerchantId::from(merchant),
            environment: Environment::Sandbox,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn environments_parse_case_insensitively_and_refuse_others() {
        assert_eq!("Production".parse(), Ok(Environment::Production));
        assert_eq!("sandbox".parse(), Ok(Environment::Sandbox));
        assert!("Staging".parse::<Environment>().is_err());
        assert!("".parse::<Environment>().is_err());
    }
}
