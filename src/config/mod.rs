//! Configuration: defaults, then an optional TOML file, then environment variables: `MOMO_*`,
//! and where one is not set, what a hosting platform sets instead (`PORT`, `DATABASE_URL`,
//! `platform.rs`).
//!
//! Every setting is one row of the table [`settings`] gives (`settings.rs`): its TOML key, its variable, its
//! default, what it accepts and where its value goes. Values are read as text whatever their
//! source and go through the row's parser, so a bad value gets the same one-line error naming
//! the setting, where it came from and what it accepts. `docs/configuration.md` is rendered from
//! the same table. Each worker reads its own group of settings ([`WebhookSettings`],
//! [`ReconcileSettings`], [`SimulatorSettings`]); durations are [`Duration`]s.
//!
//! clap's `env` names only the file (`--config` or `MOMO_CONFIG`, in `cli`), the one value
//! needed before settings can be read. The settings are not clap arguments with `env`: each
//! would also become a command-line flag (over forty, a second interface to document and
//! test); clap reads only the process's environment, where [`Config::from_sources`] takes any
//! lookup (tests and the reliability harness load settings without changing it); a clap error
//! names `--flag`, not the variable and where its value came from; and the order defaults <
//! file < environment, with `PORT` under `MOMO_LISTEN`, would still be ours to apply.

mod chain;
mod checks;
mod connector_settings;
pub mod connectors;
mod docs;
mod parse;
mod platform;
mod service_settings;
mod settings;
mod workers;

#[cfg(test)]
mod fee_tests;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::fmt;
use std::net::SocketAddr;
use std::path::Path;
use std::time::Duration;

use crate::domain::fees::FeeRule;
use crate::domain::{FeeSchedule, Kind, OperatorAliases, OperatorCode};
use crate::net::redact_url;

pub use connectors::{ApiCredentials, ConnectorSettings, Protocol};
pub use docs::markdown;
pub use settings::{all as settings, Initial, Setting};
pub use workers::{
    BatchSettings, BreakerSettings, DashboardSettings, HttpSettings, MetricsSettings, PayoutSettings,
    ReconcileSettings, SimulatorSettings, WebhookSettings,
};

/// How log lines are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LogFormat {
    #[default]
    Text,
    Json,
}

/// The gateway's settings. `Debug` redacts secrets. What each one means is in [`settings`].
#[derive(Clone, PartialEq, Eq)]
pub struct Config {
    pub database_url: String,
    pub listen: SocketAddr,
    pub public_url: String,
    pub http: HttpSettings,
    pub token_ttl: Duration,
    pub dashboard: DashboardSettings,
    pub jwt_secret: Option<String>,
    pub metrics: MetricsSettings,
    pub simulator: SimulatorSettings,
    pub breaker: BreakerSettings,
    pub batching: BatchSettings,
    pub connectors: ConnectorSettings,
    pub reconcile: ReconcileSettings,
    pub webhook: WebhookSettings,
    /// How long an idempotency key and its first answer are kept.
    pub idempotency_key_ttl: Duration,
    pub sandbox_initial_balance: i64,
    pub max_body_bytes: usize,
    pub rate_limit_per_s: u32,
    pub auth_rate_limit_per_min: u32,
    /// Wrong secrets per API key and client address before sign-in from there is slowed.
    pub sign_in_failures: u32,
    /// Payments a payment link may start per minute, whoever pays (0: no limit).
    pub link_payments_per_min: u32,
    /// Payments one client address may start per minute through payment links (0: no limit).
    pub link_payments_per_address_per_min: u32,
    /// Payments one payer number may be asked for per hour through payment links (0: no limit).
    pub link_payments_per_number_per_hour: u32,
    /// How payout batches are taken and sent.
    pub payouts: PayoutSettings,
    pub log_format: LogFormat,
    /// Spell an immediate v2 collection success `SUCCESSFULL`, as the live service does.
    pub v2_successfull_spelling: bool,
    /// Operators (or one direction of an operator) turned off: their codes are refused.
    pub disabled_operators: Vec<(OperatorCode, Option<Kind>)>,
    /// Fee rules replacing the defaults, per operator and direction.
    pub fee_overrides: Vec<(OperatorCode, Kind, FeeRule)>,
    /// Operator names of this deployment, accepted beside the reference's codes.
    pub operator_aliases: OperatorAliases,
}

impl fmt::Debug for Config {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Destructured, so a new field cannot be forgotten here.
        let Config {
            database_url,
            listen,
            public_url,
            http,
            token_ttl,
            dashboard,
            jwt_secret,
            metrics,
            simulator,
            breaker,
            batching,
            connectors,
            reconcile,
            webhook,
            idempotency_key_ttl,
            sandbox_initial_balance,
            max_body_bytes,
            rate_limit_per_s,
            auth_rate_limit_per_min,
            sign_in_failures,
            link_payments_per_min,
            link_payments_per_address_per_min,
            link_payments_per_number_per_hour,
            payouts,
            log_format,
            v2_successfull_spelling,
            disabled_operators,
            fee_overrides,
            operator_aliases,
        } = self;
        f.debug_struct("Config")
            .field("database_url", &redact_url(database_url))
            .field("listen", listen)
            .field("public_url", public_url)
            .field("http", http)
            .field("token_ttl", token_ttl)
            .field("dashboard", dashboard)
            .field("jwt_secret", &jwt_secret.as_ref().map(|_| "[redacted]"))
            .field("metrics", metrics)
            .field("simulator", simulator)
            .field("breaker", breaker)
            .field("batching", batching)
            .field("connectors", connectors)
            .field("reconcile", reconcile)
            .field("webhook", webhook)
            .field("idempotency_key_ttl", idempotency_key_ttl)
            .field("sandbox_initial_balance", sandbox_initial_balance)
            .field("max_body_bytes", max_body_bytes)
            .field("rate_limit_per_s", rate_limit_per_s)
            .field("auth_rate_limit_per_min", auth_rate_limit_per_min)
            .field("sign_in_failures", sign_in_failures)
            .field("link_payments_per_min", link_payments_per_min)
            .field("link_payments_per_address_per_min", link_payments_per_address_per_min)
            .field("link_payments_per_number_per_hour", link_payments_per_number_per_hour)
            .field("payouts", payouts)
            .field("log_format", log_format)
            .field("v2_successfull_spelling", v2_successfull_spelling)
            .field("disabled_operators", disabled_operators)
            .field("fee_overrides", fee_overrides)
            .field("operator_aliases", operator_aliases)
            .finish()
    }
}

/// Every setting at its default: the table's defaults, parsed as a value would be.
impl Default for Config {
    fn default() -> Self {
        let mut config = Config::unset();
        for setting in settings() {
            if let Initial::Value(value) = setting.default {
                if !setting.set(&mut config, value) {
                    panic!("the default of {} does not parse: {value:?}", setting.var);
                }
            }
        }
        config
    }
}

/// A setting that could not be used. Its `Display` is the one line printed before exiting.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    #[error("invalid {name} (from {origin}): expected {expected}, got {value:?}")]
    Invalid {
        name: String,
        origin: String,
        expected: &'static str,
        value: String,
    },
    #[error("unknown setting {key:?} in {file}: settings are the MOMO_* names in lower case without the prefix, e.g. database_url")]
    UnknownKey { key: String, file: String },
    #[error("cannot read config file {file}: {reason}")]
    File { file: String, reason: String },
    /// Settings valid one by one that cannot go together; the text says what to change.
    #[error("{0}")]
    Inconsistent(String),
}

/// One raw setting and where it came from.
struct Raw {
    value: String,
    source: String,
}

impl Config {
    /// Loads the configuration from the optional TOML file and the process environment.
    pub fn load(file: Option<&Path>) -> Result<Config, ConfigError> {
        Config::from_sources(file, |name| std::env::var(name).ok())
    }

    /// Loads the configuration from the optional TOML file and `lookup` (the environment).
    pub fn from_sources(file: Option<&Path>, lookup: impl Fn(&str) -> Option<String>) -> Result<Config, ConfigError> {
        let mut raw: BTreeMap<&'static str, Raw> = BTreeMap::new();
        if let Some(path) = file {
            let name = path.display().to_string();
            for (key, value) in parse::toml_file(path)? {
                let Some(setting) = settings().find(|s| s.key == key) else {
                    return Err(ConfigError::UnknownKey { key, file: name });
                };
                let source = name.clone();
                raw.insert(setting.key, Raw { value, source });
            }
        }
        for setting in settings() {
            if let Some(value) = lookup(setting.var) {
                let source = "environment".to_owned();
                raw.insert(setting.key, Raw { value, source });
            }
        }
        for platform in platform::PLATFORM {
            let Some(setting) = settings().find(|s| s.key == platform.key) else {
                continue;
            };
            if lookup(setting.var).is_some() {
                continue;
            }
            if let Some(given) = lookup(platform.var) {
                let value = (platform.to_setting)(given.trim()).ok_or_else(|| ConfigError::Invalid {
                    name: platform.var.to_owned(),
                    origin: "environment".to_owned(),
                    expected: platform.accepts,
                    value: given.clone(),
                })?;
                let source = format!("environment variable {}", platform.var);
                raw.insert(setting.key, Raw { value, source });
            }
        }
        // In the table's order, whatever the source: `listen` sets `public_url`, which may follow.
        let mut config = Config::default();
        for setting in settings() {
            if let Some(raw) = raw.get(setting.key) {
                setting.apply(&mut config, raw)?;
            }
        }
        checks::consistent(&config)?;
        Ok(config)
    }

    /// The fee schedule: the live service's defaults with the configured overrides.
    pub fn fee_schedule(&self) -> FeeSchedule {
        let mut schedule = FeeSchedule::default();
        for (operator, kind, rule) in &self.fee_overrides {
            schedule.set(*operator, *kind, *rule);
        }
        schedule
    }

    /// Whether configuration turned off `operator` for `kind`.
    pub fn operator_disabled(&self, operator: OperatorCode, kind: Kind) -> bool {
        self.disabled_operators
            .iter()
            .any(|(o, k)| *o == operator && k.is_none_or(|k| k == kind))
    }

    /// The SQLite file path when the database is SQLite, for messages and demo files.
    pub fn sqlite_path(&self) -> Option<&str> {
        self.database_url
            .strip_prefix("sqlite://")
            .or_else(|| self.database_url.strip_prefix("sqlite:"))
            .map(|rest| rest.split('?').next().unwrap_or(rest))
    }

    /// Every field empty (zero, or its group's own default), before the table's defaults are
    /// applied, which set every field.
    fn unset() -> Config {
        Config {
            database_url: String::new(),
            listen: SocketAddr::from(([0, 0, 0, 0], 0)),
            public_url: String::new(),
            http: HttpSettings::default(),
            token_ttl: Duration::ZERO,
            dashboard: DashboardSettings::default(),
            jwt_secret: None,
            metrics: MetricsSettings::default(),
            simulator: SimulatorSettings::default(),
            breaker: BreakerSettings::default(),
            batching: BatchSettings::default(),
            connectors: ConnectorSettings::default(),
            reconcile: ReconcileSettings::default(),
            webhook: WebhookSettings::default(),
            idempotency_key_ttl: Duration::ZERO,
            sandbox_initial_balance: 0,
            max_body_bytes: 0,
            rate_limit_per_s: 0,
            auth_rate_limit_per_min: 0,
            sign_in_failures: 10,
            link_payments_per_min: 0,
            link_payments_per_address_per_min: 0,
            link_payments_per_number_per_hour: 0,
            payouts: PayoutSettings::default(),
            log_format: LogFormat::default(),
            v2_successfull_spelling: false,
            disabled_operators: Vec::new(),
            fee_overrides: Vec::new(),
            operator_aliases: OperatorAliases::default(),
        }
    }
}
