//! The operator registry that configuration names: the simulator in the Sandbox and nothing in
//! Production, except where `MOMO_OPERATOR_CONNECTORS` routes an operator in an environment to
//! a connector (a public protocol, or the simulator by name).

use std::sync::Arc;

use anyhow::Context;

use crate::config::{ApiCredentials, Config, Protocol};
use crate::domain::{Environment, OperatorCode};
use crate::operator::momo::callback::route_token;
use crate::operator::momo::{MomoConnector, MomoCredentials, MomoSettings};
use crate::operator::paydunya::{PaydunyaConnector, PaydunyaSettings};
use crate::operator::simulator::Simulator;
use crate::operator::wave::{WaveConnector, WaveSettings};
use crate::operator::{Connector, Operator, Operators};

/// Builds the registry; an error names the missing or invalid setting.
pub fn operators(config: &Config) -> anyhow::Result<Operators> {
    let simulator: Arc<dyn Operator> = Arc::new(Simulator {
        delay: config.simulator.delay,
    });
    let mut operators = Operators::new(simulator.clone());
    for (operator, environment, chain) in &config.connectors.routes {
        let (operator, environment) = (*operator, *environment);
        let mut connectors = Vec::new();
        for &protocol in chain.protocols() {
            let connector: Arc<dyn Operator> = match protocol {
                Protocol::Simulator => simulator.clone(),
                Protocol::MomoOpenApi => Arc::new(momo(config, operator, environment)?),
                Protocol::WaveCheckout => Arc::new(wave(config, operator, environment)?),
                Protocol::Paydunya => Arc::new(paydunya(config, operator, environment)?),
            };
            connectors.push(Connector::new(protocol.name(), connector));
        }
        operators = operators.route(operator, environment, connectors);
    }
    Ok(operators)
}

/// What serves each operator in each environment, as `serve` prints it at start:
/// `ALPHA:Sandbox=simulator, ..., ALPHA:Production=refused, GAMMA:Production=momo-openapi|paydunya, ...`
/// (a fallback after `|`).
pub fn routing_table(config: &Config) -> String {
    let served = |operator: OperatorCode, environment: Environment| {
        config
            .connectors
            .chain(operator, environment)
            .map_or_else(|| "refused".to_owned(), |chain| chain.to_string())
    };
    Environment::ALL
        .iter()
        .flat_map(|&environment| OperatorCode::ALL.iter().map(move |&operator| (operator, environment)))
        .map(|(operator, environment)| format!("{operator}:{environment}={}", served(operator, environment)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A connector's base URL, set in `var` (else the error `missing` words), unless it is plain
/// http for Production money and `MOMO_OPERATOR_ALLOW_HTTP` does not allow it: credentials and
/// payments would cross the network in clear.
fn base_url(
    config: &Config,
    environment: Environment,
    url: &Option<String>,
    var: &str,
    missing: impl Fn(&str) -> String,
) -> anyhow::Result<String> {
    let url = url.clone().with_context(|| missing(var))?;
    if environment == Environment::Production && !url.starts_with("https://") && !config.connectors.allow_http {
        anyhow::bail!(
            "{var} is {url}: a Production connector must use https (set MOMO_OPERATOR_ALLOW_HTTP=true for a test rig)"
        );
    }
    Ok(url)
}

/// Where operators call back about `operator` in `environment`.
pub fn callback_url(config: &Config, operator: OperatorCode, environment: Environment, token: &str) -> String {
    format!(
        "{}/operator-callbacks/{}/{}?token={token}",
        config.public_url,
        operator.name(),
        environment
    )
}

fn momo(config: &Config, operator: OperatorCode, environment: Environment) -> anyhow::Result<MomoConnector> {
    let c = &config.connectors;
    let missing = |var: &str| format!("{operator}:{environment} is routed to momo-openapi, but {var} is not set");
    let credentials = |creds: &Option<ApiCredentials>, var: &str| -> anyhow::Result<MomoCredentials> {
        let creds = creds.as_ref().with_context(|| missing(var))?;
        Ok(MomoCredentials {
            api_user: creds.user.clone(),
            api_key: creds.key.clone(),
            subscription_key: creds.subscription_key.clone(),
        })
    };
    // The route's own token, from the current secret and, during a rotation, from the previous
    // one too (configuration refuses a previous secret without a current one).
    let token = |secret: &Option<String>| secret.as_deref().map(|s| route_token(s, operator, environment));
    let current = token(&c.momo_callback_token);
    let settings = MomoSettings {
        base_url: base_url(config, environment, &c.momo_url, "MOMO_MOMO_OPENAPI_URL", missing)?,
        collection: credentials(&c.momo_collection, "MOMO_MOMO_OPENAPI_COLLECTION")?,
        disbursement: credentials(&c.momo_disbursement, "MOMO_MOMO_OPENAPI_DISBURSEMENT")?,
        target_environment: c.momo_target_environment.clone(),
        callback_url: current
            .as_deref()
            .map(|t| callback_url(config, operator, environment, t)),
        callback_tokens: current
            .iter()
            .cloned()
            .chain(token(&c.momo_callback_token_previous))
            .collect(),
        timeout: c.timeout_for(operator, environment),
        max_answer_bytes: c.max_answer_bytes,
    };
    MomoConnector::new(settings).context("cannot build the MoMo Open API client")
}

fn wave(config: &Config, operator: OperatorCode, environment: Environment) -> anyhow::Result<WaveConnector> {
    let c = &config.connectors;
    let missing = |var: &str| format!("{operator}:{environment} is routed to wave-checkout, but {var} is not set");
    let settings = WaveSettings {
        base_url: base_url(config, environment, &c.wave_url, "MOMO_WAVE_URL", missing)?,
        api_key: c.wave_api_key.clone().with_context(|| missing("MOMO_WAVE_API_KEY"))?,
        webhook_secret: c
            .wave_webhook_secret
            .clone()
            .with_context(|| missing("MOMO_WAVE_WEBHOOK_SECRET"))?,
        timeout: c.timeout_for(operator, environment),
        max_answer_bytes: c.max_answer_bytes,
        // Wave requires both; a collection that names none sends its payer back to the
        // gateway's public address.
        success_url_fallback: config.public_url.clone(),
        error_url_fallback: config.public_url.clone(),
    };
    WaveConnector::new(settings).context("cannot build the Wave client")
}

fn paydunya(config: &Config, operator: OperatorCode, environment: Environment) -> anyhow::Result<PaydunyaConnector> {
    let c = &config.connectors;
    let missing = |var: &str| format!("{operator}:{environment} is routed to paydunya, but {var} is not set");
    let secret = |value: &Option<String>, var: &str| value.clone().with_context(|| missing(var));
    let settings = PaydunyaSettings {
        base_url: base_url(config, environment, &c.paydunya_url, "MOMO_PAYDUNYA_URL", missing)?,
        master_key: secret(&c.paydunya_master_key, "MOMO_PAYDUNYA_MASTER_KEY")?,
        private_key: secret(&c.paydunya_private_key, "MOMO_PAYDUNYA_PRIVATE_KEY")?,
        token: secret(&c.paydunya_token, "MOMO_PAYDUNYA_TOKEN")?,
        // PayDunya notifies the URL each invoice and disbursement names: this route's. Its
        // notifications carry their own proof (the hash), so the URL holds no token.
        callback_url: format!(
            "{}/operator-callbacks/{}/{environment}",
            config.public_url,
            operator.name()
        ),
        timeout: c.timeout_for(operator, environment),
        max_answer_bytes: c.max_answer_bytes,
    };
    PaydunyaConnector::new(settings).context("cannot build the PayDunya client")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::connectors::{parse_credentials, parse_routes};

    fn momo_in_production(url: &str, allow_http: bool) -> Config {
        let mut config = Config::default();
        let c = &mut config.connectors;
        c.routes = parse_routes("ALPHA:Production=momo-openapi").unwrap();
        c.momo_url = Some(url.to_owned());
        c.momo_collection = parse_credentials("u:k:s");
        c.momo_disbursement = parse_credentials("u:k:s");
        c.allow_http = allow_http;
        config
    }

    #[test]
    fn a_production_connector_must_use_https_unless_http_is_allowed() {
        let refused = operators(&momo_in_production("http://momo.example", false)).unwrap_err();
        assert!(refused.to_string().contains("MOMO_OPERATOR_ALLOW_HTTP"), "{refused}");
        assert!(operators(&momo_in_production("http://127.0.0.1:9", true)).is_ok());
        assert!(operators(&momo_in_production("https://momo.example", false)).is_ok());
    }

    #[test]
    fn the_routing_table_names_every_operator_in_both_environments() {
        let mut config = Config::default();
        config.connectors.routes =
            parse_routes("*:Production=simulator,BETA:Production=wave-checkout,GAMMA:Production=momo-openapi|paydunya")
                .unwrap();
        let table = routing_table(&config);
        for expected in [
            "ALPHA:Sandbox=simulator",
            "ALPHA:Production=simulator",
            "BETA:Production=wave-checkout",
            "GAMMA:Production=momo-openapi|paydunya",
        ] {
            assert!(table.contains(expected), "{table}");
        }
        assert!(routing_table(&Config::default()).contains("DELTA:Production=refused"));
    }
}
