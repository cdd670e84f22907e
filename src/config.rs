//! Configuration: defaults, then an optional TOML file, then `MOMO_*` environment variables.
//!
//! Every setting is read through one parser whatever its source, so a bad value gets the same
//! one-line error naming the setting, where it came from and what it accepts.

use std::collections::BTreeMap;
use std::fmt;
use std::net::SocketAddr;
use std::path::Path;

use crate::domain::fees::FeeRule;
use crate::domain::{FeeSchedule, Kind, OperatorCode};

/// How log lines are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogFormat {
    Text,
    Json,
}

/// What the webhook dispatcher needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebhookSettings {
    /// How long one attempt may take, connection to last byte.
    pub timeout: std::time::Duration,
    /// Waits between attempts; its length is the number of retries.
    pub retry_schedule: Vec<std::time::Duration>,
    /// Send to private and loopback addresses (tests, local receivers).
    pub allow_private: bool,
    /// How long a claimed event is reserved for its dispatcher.
    pub lease: std::time::Duration,
}

/// The gateway's settings. `Debug` redacts secrets.
#[derive(Clone, PartialEq, Eq)]
pub struct Config {
    pub database_url: String,
    pub listen: SocketAddr,
    pub public_url: String,
    pub token_ttl_s: u64,
    pub jwt_secret: Option<String>,
    pub simulator_delay_ms: u64,
    pub reconcile_interval_ms: u64,
    pub reconcile_after_ms: u64,
    pub collection_ttl_s: u64,
    pub webhook_timeout_ms: u64,
    pub webhook_retry_schedule: Vec<u64>,
    pub webhook_allow_private: bool,
    pub webhook_lease_s: u64,
    pub sandbox_initial_balance: i64,
    pub max_body_bytes: usize,
    pub rate_limit_per_s: u32,
    pub auth_rate_limit_per_min: u32,
    pub log_format: LogFormat,
    /// Spell an immediate v2 collection success `SUCCESSFULL`, as the live service does.
    pub v2_successfull_spelling: bool,
    /// Operators (or one direction of an operator) turned off: their codes are refused.
    pub disabled_operators: Vec<(OperatorCode, Option<Kind>)>,
    /// Fee rules replacing the defaults, per operator and direction.
    pub fee_overrides: Vec<(OperatorCode, Kind, FeeRule)>,
}

impl fmt::Debug for Config {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Config")
            .field("database_url", &redact_url(&self.database_url))
            .field("listen", &self.listen)
            .field("public_url", &self.public_url)
            .field("token_ttl_s", &self.token_ttl_s)
            .field("jwt_secret", &self.jwt_secret.as_ref().map(|_| "[redacted]"))
            .field("simulator_delay_ms", &self.simulator_delay_ms)
            .field("reconcile_interval_ms", &self.reconcile_interval_ms)
            .field("reconcile_after_ms", &self.reconcile_after_ms)
            .field("collection_ttl_s", &self.collection_ttl_s)
            .field("webhook_timeout_ms", &self.webhook_timeout_ms)
            .field("webhook_retry_schedule", &self.webhook_retry_schedule)
            .field("webhook_allow_private", &self.webhook_allow_private)
            .field("webhook_lease_s", &self.webhook_lease_s)
            .field("sandbox_initial_balance", &self.sandbox_initial_balance)
            .field("max_body_bytes", &self.max_body_bytes)
            .field("rate_limit_per_s", &self.rate_limit_per_s)
            .field("auth_rate_limit_per_min", &self.auth_rate_limit_per_min)
            .field("log_format", &self.log_format)
            .field("v2_successfull_spelling", &self.v2_successfull_spelling)
            .field("disabled_operators", &self.disabled_operators)
            .field("fee_overrides", &self.fee_overrides)
            .finish()
    }
}

/// Hides the password of a database URL.
pub fn redact_url(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme_end), Some(at)) if at > scheme_end => {
            let userinfo = &url[scheme_end + 3..at];
            match userinfo.split_once(':') {
                Some((user, _)) => format!("{}{user}:***{}", &url[..scheme_end + 3], &url[at..]),
                None => url.to_owned(),
            }
        }
        _ => url.to_owned(),
    }
}

impl Default for Config {
    fn default() -> Self {
        let listen: SocketAddr = ([127, 0, 0, 1], 8080).into();
        Config {
            database_url: "sqlite://data/momo-gateway.db".to_owned(),
            listen,
            public_url: format!("http://{listen}"),
            token_ttl_s: 600,
            jwt_secret: None,
            simulator_delay_ms: 2_000,
            reconcile_interval_ms: 5_000,
            reconcile_after_ms: 30_000,
            collection_ttl_s: 900,
            webhook_timeout_ms: 15_000,
            webhook_retry_schedule: vec![5, 300, 1_800, 7_200, 18_000, 36_000, 50_400, 72_000, 86_400],
            webhook_allow_private: false,
            webhook_lease_s: 30,
            sandbox_initial_balance: 10_000_000,
            max_body_bytes: 64 * 1024,
            rate_limit_per_s: 0,
            auth_rate_limit_per_min: 0,
            log_format: LogFormat::Text,
            v2_successfull_spelling: true,
            disabled_operators: Vec::new(),
            fee_overrides: Vec::new(),
        }
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
            read_file(path, &mut raw)?;
        }
        for name in SETTINGS {
            let var = format!("MOMO_{}", name.to_ascii_uppercase());
            if let Some(value) = lookup(&var) {
                raw.insert(
                    name,
                    Raw {
                        value,
                        source: "environment".to_owned(),
                    },
                );
            }
        }
        Config::from_raw(&raw)
    }

    fn from_raw(raw: &BTreeMap<&'static str, Raw>) -> Result<Config, ConfigError> {
        let mut c = Config::default();
        let get = |name: &str| raw.get(name);
        if let Some(r) = get("database_url") {
            c.database_url = parse(r, "database_url", "a sqlite:// or postgres:// URL", |v| {
                (v.starts_with("sqlite:") || v.starts_with("postgres://") || v.starts_with("postgresql://"))
                    .then(|| v.to_owned())
            })?;
        }
        if let Some(r) = get("listen") {
            c.listen = parse(r, "listen", "an address like 127.0.0.1:8080", |v| v.parse().ok())?;
            c.public_url = format!("http://{}", c.listen);
        }
        if let Some(r) = get("public_url") {
            c.public_url = parse(r, "public_url", "an http:// or https:// URL", |v| {
                (v.starts_with("http://") || v.starts_with("https://")).then(|| v.trim_end_matches('/').to_owned())
            })?;
        }
        let seconds = "a whole number of seconds from 1 to 86400";
        let millis = "a whole number of milliseconds from 0 to 86400000";
        if let Some(r) = get("token_ttl_s") {
            c.token_ttl_s = parse(r, "token_ttl_s", seconds, |v| in_range(v, 1, 86_400))?;
        }
        if let Some(r) = get("jwt_secret") {
            c.jwt_secret = Some(parse(r, "jwt_secret", "at least 32 bytes of secret text", |v| {
                (v.len() >= 32).then(|| v.to_owned())
            })?);
        }
        if let Some(r) = get("simulator_delay_ms") {
            c.simulator_delay_ms = parse(r, "simulator_delay_ms", millis, |v| in_range(v, 0, 86_400_000))?;
        }
        if let Some(r) = get("reconcile_interval_ms") {
            c.reconcile_interval_ms = parse(
                r,
                "reconcile_interval_ms",
                "a whole number of milliseconds from 10 to 86400000",
                |v| in_range(v, 10, 86_400_000),
            )?;
        }
        if let Some(r) = get("reconcile_after_ms") {
            c.reconcile_after_ms = parse(r, "reconcile_after_ms", millis, |v| in_range(v, 0, 86_400_000))?;
        }
        if let Some(r) = get("collection_ttl_s") {
            c.collection_ttl_s = parse(
                r,
                "collection_ttl_s",
                "a whole number of seconds from 1 to 2592000",
                |v| in_range(v, 1, 2_592_000),
            )?;
        }
        if let Some(r) = get("webhook_timeout_ms") {
            c.webhook_timeout_ms = parse(
                r,
                "webhook_timeout_ms",
                "a whole number of milliseconds from 100 to 120000",
                |v| in_range(v, 100, 120_000),
            )?;
        }
        if let Some(r) = get("webhook_retry_schedule") {
            c.webhook_retry_schedule = parse(
                r,
                "webhook_retry_schedule",
                "comma-separated whole seconds, e.g. 5,300,1800",
                |v| {
                    if v.trim().is_empty() {
                        return Some(Vec::new());
                    }
                    v.split(',')
                        .map(|s| s.trim().parse::<u64>().ok().filter(|n| *n <= 604_800))
                        .collect()
                },
            )?;
        }
        if let Some(r) = get("webhook_allow_private") {
            c.webhook_allow_private = parse(r, "webhook_allow_private", "true or false", parse_bool)?;
        }
        if let Some(r) = get("webhook_lease_s") {
            c.webhook_lease_s = parse(r, "webhook_lease_s", seconds, |v| in_range(v, 1, 86_400))?;
        }
        if let Some(r) = get("sandbox_initial_balance") {
            c.sandbox_initial_balance = parse(
                r,
                "sandbox_initial_balance",
                "a whole number of francs from 0 to 1000000000000",
                |v| in_range(v, 0, 1_000_000_000_000).map(|n| n as i64),
            )?;
        }
        if let Some(r) = get("max_body_bytes") {
            c.max_body_bytes = parse(r, "max_body_bytes", "a number of bytes from 1024 to 16777216", |v| {
                in_range(v, 1024, 16 * 1024 * 1024).map(|n| n as usize)
            })?;
        }
        if let Some(r) = get("rate_limit_per_s") {
            c.rate_limit_per_s = parse(
                r,
                "rate_limit_per_s",
                "requests per second from 0 (off) to 1000000",
                |v| in_range(v, 0, 1_000_000).map(|n| n as u32),
            )?;
        }
        if let Some(r) = get("auth_rate_limit_per_min") {
            c.auth_rate_limit_per_min = parse(
                r,
                "auth_rate_limit_per_min",
                "requests per minute from 0 (off) to 1000000",
                |v| in_range(v, 0, 1_000_000).map(|n| n as u32),
            )?;
        }
        if let Some(r) = get("log_format") {
            c.log_format = parse(r, "log_format", "text or json", |v| match v {
                "text" => Some(LogFormat::Text),
                "json" => Some(LogFormat::Json),
                _ => None,
            })?;
        }
        if let Some(r) = get("v2_successfull_spelling") {
            c.v2_successfull_spelling = parse(r, "v2_successfull_spelling", "true or false", parse_bool)?;
        }
        if let Some(r) = get("disabled_operators") {
            c.disabled_operators = parse(
                r,
                "disabled_operators",
                "comma-separated operators, each optionally with :collecte or :transfer, e.g. GAMMA,BETA:transfer",
                parse_disabled_operators,
            )?;
        }
        if let Some(r) = get("fees") {
            c.fee_overrides = parse(
                r,
                "fees",
                "comma-separated OPERATOR:DIRECTION=BASIS_POINTS[+FIXED], e.g. BETA:collecte=150,GAMMA:transfer=100+25",
                parse_fees,
            )?;
        }
        Ok(c)
    }

    /// The webhook dispatcher's settings.
    pub fn webhook_settings(&self) -> WebhookSettings {
        WebhookSettings {
            timeout: std::time::Duration::from_millis(self.webhook_timeout_ms),
            retry_schedule: self
                .webhook_retry_schedule
                .iter()
                .map(|s| std::time::Duration::from_secs(*s))
                .collect(),
            allow_private: self.webhook_allow_private,
            lease: std::time::Duration::from_secs(self.webhook_lease_s),
        }
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
}

/// Every setting's name, as written in the TOML file; the variable is `MOMO_` + upper case.
const SETTINGS: [&str; 21] = [
    "database_url",
    "listen",
    "public_url",
    "token_ttl_s",
    "jwt_secret",
    "simulator_delay_ms",
    "reconcile_interval_ms",
    "reconcile_after_ms",
    "collection_ttl_s",
    "webhook_timeout_ms",
    "webhook_retry_schedule",
    "webhook_allow_private",
    "webhook_lease_s",
    "sandbox_initial_balance",
    "max_body_bytes",
    "rate_limit_per_s",
    "auth_rate_limit_per_min",
    "log_format",
    "v2_successfull_spelling",
    "disabled_operators",
    "fees",
];

fn read_file(path: &Path, raw: &mut BTreeMap<&'static str, Raw>) -> Result<(), ConfigError> {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| ConfigError::File {
        file: file.clone(),
        reason: e.to_string(),
    })?;
    let table: toml::Table = text.parse().map_err(|e: toml::de::Error| ConfigError::File {
        file: file.clone(),
        reason: e.message().to_owned(),
    })?;
    for (key, value) in table {
        let Some(name) = SETTINGS.iter().copied().find(|n| *n == key) else {
            return Err(ConfigError::UnknownKey { key, file });
        };
        let value = match &value {
            toml::Value::Array(items) => items.iter().map(toml_scalar).collect::<Vec<_>>().join(","),
            scalar => toml_scalar(scalar),
        };
        raw.insert(
            name,
            Raw {
                value,
                source: file.clone(),
            },
        );
    }
    Ok(())
}

/// A TOML value as the text an environment variable would hold.
fn toml_scalar(value: &toml::Value) -> String {
    match value {
        toml::Value::String(s) => s.clone(),
        toml::Value::Integer(i) => i.to_string(),
        toml::Value::Float(f) => f.to_string(),
        toml::Value::Boolean(b) => b.to_string(),
        // Dates, tables and nested arrays fit no setting: the setting's parser refuses them.
        _ => "(unsupported TOML value)".to_owned(),
    }
}

fn parse<T>(
    raw: &Raw,
    name: &str,
    expected: &'static str,
    parser: impl Fn(&str) -> Option<T>,
) -> Result<T, ConfigError> {
    parser(raw.value.trim()).ok_or_else(|| ConfigError::Invalid {
        name: format!("MOMO_{}", name.to_ascii_uppercase()),
        origin: raw.source.clone(),
        expected,
        value: if name == "jwt_secret" {
            "[redacted]".to_owned()
        } else {
            raw.value.clone()
        },
    })
}

fn parse_disabled_operators(value: &str) -> Option<Vec<(OperatorCode, Option<Kind>)>> {
    value
        .split(',')
        .map(str::trim)
        .filter(|item| !item.is_empty())
        .map(|item| {
            let (name, kind) = match item.split_once(':') {
                Some((name, kind)) => (name, Some(Kind::parse(kind)?)),
                None => (item, None),
            };
            let operator = OperatorCode::from_name(name).or_else(|| OperatorCode::parse(name).ok())?;
            Some((operator, kind))
        })
        .collect()
}

/// `BETA:collecte=150,GAMMA:transfer=100+25`: basis points up to 10,000, fixed part in francs.
fn parse_fees(value: &str) -> Option<Vec<(OperatorCode, Kind, FeeRule)>> {
    value
        .split(',')
        .map(str::trim)
        .filter(|item| !item.is_empty())
        .map(|item| {
            let (target, rule) = item.split_once('=')?;
            let (name, kind) = target.trim().split_once(':')?;
            let operator = OperatorCode::from_name(name).or_else(|| OperatorCode::parse(name).ok())?;
            let kind = Kind::parse(kind)?;
            let (bp, fixed) = match rule.trim().split_once('+') {
                Some((bp, fixed)) => (bp, fixed),
                None => (rule.trim(), "0"),
            };
            let basis_points = bp.trim().parse::<u32>().ok().filter(|b| *b <= 10_000)?;
            let fixed = fixed.trim().parse::<i64>().ok().filter(|f| (0..=100_000).contains(f))?;
            Some((operator, kind, FeeRule { basis_points, fixed }))
        })
        .collect()
}

fn in_range(value: &str, min: u64, max: u64) -> Option<u64> {
    value.parse::<u64>().ok().filter(|n| (min..=max).contains(n))
}

fn parse_bool(value: &str) -> Option<bool> {
    match value.to_ascii_lowercase().as_str() {
        "true" | "1" | "yes" | "on" => Some(true),
        "false" | "0" | "no" | "off" => Some(false),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn from_env(vars: &[(&str, &str)]) -> Result<Config, ConfigError> {
        let map: HashMap<String, String> = vars.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        Config::from_sources(None, |name| map.get(name).cloned())
    }

    #[test]
    fn defaults_need_no_settings() {
        let c = from_env(&[]).unwrap();
        assert_eq!(c, Config::default());
        assert_eq!(c.listen.to_string(), "127.0.0.1:8080");
        assert_eq!(c.webhook_retry_schedule.len(), 9);
    }

    #[test]
    fn environment_values_override_defaults() {
        let c = from_env(&[
            ("MOMO_TOKEN_TTL_S", "60"),
            ("MOMO_LISTEN", "0.0.0.0:9000"),
            ("MOMO_WEBHOOK_RETRY_SCHEDULE", "1, 2,3"),
        ])
        .unwrap();
        assert_eq!(c.token_ttl_s, 60);
        assert_eq!(c.public_url, "http://0.0.0.0:9000");
        assert_eq!(c.webhook_retry_schedule, vec![1, 2, 3]);
    }

    #[test]
    fn an_invalid_value_names_the_setting_and_what_it_accepts() {
        let err = from_env(&[("MOMO_TOKEN_TTL_S", "ten")]).unwrap_err().to_string();
        assert_eq!(err, "invalid MOMO_TOKEN_TTL_S (from environment): expected a whole number of seconds from 1 to 86400, got \"ten\"");
        let err = from_env(&[("MOMO_JWT_SECRET", "short")]).unwrap_err().to_string();
        assert!(err.contains("MOMO_JWT_SECRET") && !err.contains("short"), "{err}");
    }

    #[test]
    fn the_file_comes_before_the_environment_and_refuses_unknown_keys() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("momo.toml");
        std::fs::write(
            &path,
            "token_ttl_s = 120\nsimulator_delay_ms = 5\nwebhook_retry_schedule = [1, 2]\n",
        )
        .unwrap();
        let c = Config::from_sources(Some(&path), |n| (n == "MOMO_TOKEN_TTL_S").then(|| "30".to_owned())).unwrap();
        assert_eq!((c.token_ttl_s, c.simulator_delay_ms), (30, 5));
        assert_eq!(c.webhook_retry_schedule, vec![1, 2]);
        std::fs::write(&path, "token_tll_s = 120\n").unwrap();
        let err = Config::from_sources(Some(&path), |_| None).unwrap_err();
        assert!(matches!(err, ConfigError::UnknownKey { .. }));
    }

    #[test]
    fn operators_can_be_disabled_whole_or_by_direction() {
        let c = from_env(&[("MOMO_DISABLED_OPERATORS", "GAMMA, BETA:transfer")]).unwrap();
        assert!(c.operator_disabled(OperatorCode::Gamma, Kind::Collection));
        assert!(c.operator_disabled(OperatorCode::Beta, Kind::Transfer));
        assert!(!c.operator_disabled(OperatorCode::Beta, Kind::Collection));
        assert!(from_env(&[("MOMO_DISABLED_OPERATORS", "OMEGA")]).is_err());
    }

    #[test]
    fn fees_are_configured_per_operator_and_direction() {
        let c = from_env(&[("MOMO_FEES", "BETA:collecte=175, GAMMA_MONEY:transfer=50+25")]).unwrap();
        let fees = c.fee_schedule();
        assert_eq!(
            fees.rule(OperatorCode::Beta, Kind::Collection),
            FeeRule {
                basis_points: 175,
                fixed: 0
            }
        );
        assert_eq!(
            fees.rule(OperatorCode::Gamma, Kind::Transfer),
            FeeRule {
                basis_points: 50,
                fixed: 25
            }
        );
        assert_eq!(
            fees.rule(OperatorCode::Alpha, Kind::Collection),
            FeeRule {
                basis_points: 200,
                fixed: 0
            },
            "defaults stay"
        );
        for bad in [
            "BETA=150",
            "BETA:refund=1",
            "OMEGA:collecte=1",
            "BETA:collecte=10001",
            "BETA:collecte=1+-5",
            "BETA:collecte=x",
        ] {
            assert!(from_env(&[("MOMO_FEES", bad)]).is_err(), "{bad}");
        }
    }

    #[test]
    fn database_passwords_are_redacted() {
        assert_eq!(redact_url("postgres://u:secret@h/db"), "postgres://u:***@h/db");
        assert_eq!(redact_url("sqlite://data/x.db"), "sqlite://data/x.db");
    }
}
