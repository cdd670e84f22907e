//! Which connector serves each operator in each environment, and how to reach the public
//! protocols' deployments. An unnamed operator is served by the built-in simulator in the
//! Sandbox and by nothing in Production (its payments are refused). `Debug` hides every secret.

use std::fmt;
use std::time::Duration;

use crate::domain::{Environment, OperatorCode};

pub use super::chain::{Chain, Protocol};

/// An API user, its key and the product's subscription key.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiCredentials {
    pub user: String,
    pub key: String,
    pub subscription_key: String,
}

impl fmt::Debug for ApiCredentials {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "ApiCredentials {{ user: {:?}, key: [redacted], subscription_key: [redacted] }}",
            self.user
        )
    }
}

/// The connectors' settings.
#[derive(Clone, PartialEq, Eq)]
pub struct ConnectorSettings {
    /// Routes away from the simulator, by operator and environment.
    pub routes: Vec<(OperatorCode, Environment, Chain)>,
    /// Each call to an operator, connection to last byte, unless `timeouts` names the route.
    pub timeout: Duration,
    /// Timeouts of their own, by operator and environment.
    pub timeouts: Vec<(OperatorCode, Environment, Duration)>,
    /// The most of an operator's answer that is read; a larger one is refused as too large.
    pub max_answer_bytes: usize,
    /// Whether a Production route may reach its operator over plain http (a test rig).
    pub allow_http: bool,
    pub momo_url: Option<String>,
    pub momo_target_environment: String,
    pub momo_collection: Option<ApiCredentials>,
    pub momo_disbursement: Option<ApiCredentials>,
    /// The secret each MoMo route's callback token is derived from; without it, MoMo payments
    /// are polled only.
    pub momo_callback_token: Option<String>,
    /// The secret before the last rotation: its routes' tokens are still accepted.
    pub momo_callback_token_previous: Option<String>,
    pub wave_url: Option<String>,
    pub wave_api_key: Option<String>,
    pub wave_webhook_secret: Option<String>,
    pub paydunya_url: Option<String>,
    pub paydunya_master_key: Option<String>,
    pub paydunya_private_key: Option<String>,
    pub paydunya_token: Option<String>,
}

impl ConnectorSettings {
    /// The connectors serving `operator` in `environment`: the last route naming it (an
    /// operator named on its own comes after what `*` gives), else the simulator in the
    /// Sandbox and none in Production, whose payments to that operator are refused.
    pub fn chain(&self, operator: OperatorCode, environment: Environment) -> Option<Chain> {
        self.routes
            .iter()
            .rev()
            .find(|(o, e, _)| *o == operator && *e == environment)
            .map(|(_, _, chain)| chain.clone())
            .or((environment == Environment::Sandbox).then(|| Protocol::Simulator.into()))
    }

    /// The most operator calls one send of a payment makes, whatever its route: each of its
    /// connectors' calls ([`Protocol::calls_per_send`]), summed along a route with a fallback,
    /// which may try each in turn.
    pub fn longest_send(&self) -> u32 {
        self.longest(|chain| chain.0.iter().map(|p| p.calls_per_send()).sum())
    }

    /// The most operator calls one status lookup makes, whatever its route (it asks the one
    /// connector that carries the payment).
    pub fn longest_status(&self) -> u32 {
        self.longest(|chain| chain.0.iter().map(|p| p.calls_per_status()).max().unwrap_or(1))
    }

    /// The most `calls` says of any route (the simulator's alone when none is named), at least one.
    fn longest(&self, calls: impl Fn(&Chain) -> u32) -> u32 {
        self.routes
            .iter()
            .map(|(_, _, chain)| calls(chain))
            .max()
            .unwrap_or(1)
            .max(1)
    }

    /// The longest any one operator call may take, whatever the route.
    pub fn longest_timeout(&self) -> Duration {
        self.timeouts
            .iter()
            .map(|(_, _, t)| *t)
            .fold(self.timeout, Duration::max)
    }

    /// How long one call to `operator` in `environment` may take.
    pub fn timeout_for(&self, operator: OperatorCode, environment: Environment) -> Duration {
        self.timeouts
            .iter()
            .rev()
            .find(|(o, e, _)| *o == operator && *e == environment)
            .map(|(_, _, t)| *t)
            .unwrap_or(self.timeout)
    }
}

impl fmt::Debug for ConnectorSettings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let hidden = |s: &Option<String>| s.as_ref().map(|_| "[redacted]");
        f.debug_struct("ConnectorSettings")
            .field("routes", &self.routes)
            .field("timeout", &self.timeout)
            .field("timeouts", &self.timeouts)
            .field("max_answer_bytes", &self.max_answer_bytes)
            .field("allow_http", &self.allow_http)
            .field("momo_url", &self.momo_url)
            .field("momo_target_environment", &self.momo_target_environment)
            .field("momo_collection", &self.momo_collection)
            .field("momo_disbursement", &self.momo_disbursement)
            .field("momo_callback_token", &hidden(&self.momo_callback_token))
            .field(
                "momo_callback_token_previous",
                &hidden(&self.momo_callback_token_previous),
            )
            .field("wave_url", &self.wave_url)
            .field("wave_api_key", &hidden(&self.wave_api_key))
            .field("wave_webhook_secret", &hidden(&self.wave_webhook_secret))
            .field("paydunya_url", &self.paydunya_url)
            .field("paydunya_master_key", &hidden(&self.paydunya_master_key))
            .field("paydunya_private_key", &hidden(&self.paydunya_private_key))
            .field("paydunya_token", &hidden(&self.paydunya_token))
            .finish()
    }
}

impl Default for ConnectorSettings {
    fn default() -> Self {
        ConnectorSettings {
            routes: Vec::new(),
            timeout: Duration::ZERO,
            timeouts: Vec::new(),
            max_answer_bytes: 64 * 1024,
            allow_http: false,
            momo_url: None,
            momo_target_environment: String::new(),
            momo_collection: None,
            momo_disbursement: None,
            momo_callback_token: None,
            momo_callback_token_previous: None,
            wave_url: None,
            wave_api_key: None,
            wave_webhook_secret: None,
            paydunya_url: None,
            paydunya_master_key: None,
            paydunya_private_key: None,
            paydunya_token: None,
        }
    }
}

/// `ALPHA:Production=momo-openapi,BETA:Production=wave-checkout|paydunya`.
pub fn parse_routes(value: &str) -> Option<Vec<(OperatorCode, Environment, Chain)>> {
    per_route(value, Chain::parse)
}

/// `BETA:Production=30000`: milliseconds from 100 to 120000 for each named route.
pub fn parse_timeouts(value: &str) -> Option<Vec<(OperatorCode, Environment, Duration)>> {
    per_route(value, |ms| super::parse::millis(ms, 100, 120_000))
}

/// A comma-separated list of `OPERATOR:Environment=VALUE`, where `*` names every operator.
/// What `*` gives comes first in the list, so that an operator named on its own wins whatever
/// the order it was written in (the registry keeps the last route of each pair).
fn per_route<T: Clone>(value: &str, parse: impl Fn(&str) -> Option<T>) -> Option<Vec<(OperatorCode, Environment, T)>> {
    let mut every = Vec::new();
    let mut named = Vec::new();
    for item in value.split(',').map(str::trim).filter(|item| !item.is_empty()) {
        let (target, value) = item.split_once('=')?;
        let (operator, environment) = target.trim().split_once(':')?;
        let environment = environment.trim().parse::<Environment>().ok()?;
        let value = parse(value.trim())?;
        match operator.trim() {
            "*" => every.extend(OperatorCode::ALL.iter().map(|&op| (op, environment, value.clone()))),
            name => {
                let operator = OperatorCode::from_name(name).or_else(|| OperatorCode::parse(name).ok())?;
                named.push((operator, environment, value));
            }
        }
    }
    every.extend(named);
    Some(every)
}

/// `API_USER:API_KEY:SUBSCRIPTION_KEY`, none empty.
pub fn parse_credentials(value: &str) -> Option<ApiCredentials> {
    let mut parts = value.splitn(3, ':');
    let (user, key, subscription_key) = (parts.next()?, parts.next()?, parts.next()?);
    (!user.is_empty() && !key.is_empty() && !subscription_key.is_empty()).then(|| ApiCredentials {
        user: user.to_owned(),
        key: key.to_owned(),
        subscription_key: subscription_key.to_owned(),
    })
}

/// A secret of at least 16 characters.
pub fn parse_secret(value: &str) -> Option<String> {
    (value.len() >= 16).then(|| value.to_owned())
}

/// Any non-empty text.
pub fn parse_text(value: &str) -> Option<String> {
    (!value.is_empty()).then(|| value.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chain(protocols: &[Protocol]) -> Option<Chain> {
        Some(Chain(protocols.to_vec()))
    }

    #[test]
    fn routes_name_an_operator_an_environment_and_its_connectors_in_order() {
        let routes = parse_routes(
            "ALPHA:Production=momo-openapi, BETA_CI:Sandbox=wave-checkout, GAMMA:Production=momo-openapi|paydunya",
        )
        .unwrap();
        assert_eq!(
            routes,
            vec![
                (
                    OperatorCode::Alpha,
                    Environment::Production,
                    Protocol::MomoOpenApi.into()
                ),
                (OperatorCode::Beta, Environment::Sandbox, Protocol::WaveCheckout.into()),
                (
                    OperatorCode::Gamma,
                    Environment::Production,
                    Chain(vec![Protocol::MomoOpenApi, Protocol::Paydunya])
                ),
            ]
        );
        for bad in [
            "ALPHA=momo-openapi",
            "ALPHA:Live=momo-openapi",
            "OMEGA:Sandbox=simulator",
            "ALPHA:Sandbox=soap",
            "ALPHA:Sandbox=paydunya|",
            "ALPHA:Sandbox=paydunya|paydunya",
        ] {
            assert!(parse_routes(bad).is_none(), "{bad}");
        }
        let settings = ConnectorSettings {
            routes,
            ..ConnectorSettings::default()
        };
        let served = |op, env| settings.chain(op, env);
        assert_eq!(
            served(OperatorCode::Alpha, Environment::Production),
            chain(&[Protocol::MomoOpenApi])
        );
        assert_eq!(
            served(OperatorCode::Alpha, Environment::Sandbox),
            chain(&[Protocol::Simulator])
        );
        assert_eq!(
            served(OperatorCode::Gamma, Environment::Production).map(|c| c.to_string()),
            Some("momo-openapi|paydunya".to_owned())
        );
        assert_eq!(
            served(OperatorCode::Beta, Environment::Production),
            None,
            "Production serves only what is routed"
        );
    }

    #[test]
    fn a_star_names_every_operator_and_an_operator_named_on_its_own_wins_in_any_order() {
        for value in [
            "*:Production=simulator, ALPHA:Production=momo-openapi",
            "ALPHA:Production=momo-openapi, *:Production=simulator",
        ] {
            let settings = ConnectorSettings {
                routes: parse_routes(value).unwrap(),
                timeouts: parse_timeouts("ALPHA:Production=9000, *:Production=20000").unwrap(),
                ..ConnectorSettings::default()
            };
            assert_eq!(
                settings.chain(OperatorCode::Alpha, Environment::Production),
                chain(&[Protocol::MomoOpenApi]),
                "{value}"
            );
            for op in [OperatorCode::Beta, OperatorCode::Gamma, OperatorCode::Delta] {
                assert_eq!(
                    settings.chain(op, Environment::Production),
                    chain(&[Protocol::Simulator]),
                    "{value}"
                );
            }
            assert_eq!(
                settings.timeout_for(OperatorCode::Alpha, Environment::Production),
                Duration::from_secs(9)
            );
            assert_eq!(
                settings.timeout_for(OperatorCode::Delta, Environment::Production),
                Duration::from_secs(20)
            );
        }
        assert!(parse_routes("*=simulator").is_none());
        assert!(parse_routes("**:Production=simulator").is_none());
    }

    #[test]
    fn a_route_may_have_a_timeout_of_its_own() {
        let settings = ConnectorSettings {
            timeout: Duration::from_secs(15),
            timeouts: parse_timeouts("BETA:Production=30000").unwrap(),
            ..ConnectorSettings::default()
        };
        assert_eq!(
            settings.timeout_for(OperatorCode::Beta, Environment::Production),
            Duration::from_secs(30)
        );
        assert_eq!(
            settings.timeout_for(OperatorCode::Beta, Environment::Sandbox),
            Duration::from_secs(15),
            "the others keep MOMO_OPERATOR_TIMEOUT_MS"
        );
        for bad in ["BETA:Production=50", "BETA:Production=fast", "BETA=30000"] {
            assert!(parse_timeouts(bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn credentials_have_three_parts_and_debug_hides_them() {
        let c = parse_credentials("user:key:sub:with:colons").unwrap();
        assert_eq!(c.subscription_key, "sub:with:colons");
        assert!(parse_credentials("user::sub").is_none());
        assert!(!format!("{c:?}").contains("sub:with"), "{c:?}");
    }
}
