//! Parsers of setting values, from the text an environment variable holds (a TOML file's
//! values are first turned into that text). Each answers `None` for a value it does not accept; the table
//! in `settings.rs` turns that into an error saying what is accepted.

use std::path::Path;
use std::time::Duration;

use super::{ConfigError, LogFormat};
use crate::domain::fees::FeeRule;
use crate::domain::{Francs, Kind, OperatorAliases, OperatorCode};
use crate::net::IpRange;

/// The keys of a TOML file with their values as the text an environment variable would hold.
pub fn toml_file(path: &Path) -> Result<Vec<(String, String)>, ConfigError> {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| ConfigError::File {
        file: file.clone(),
        reason: e.to_string(),
    })?;
    let table: toml::Table = text.parse().map_err(|e: toml::de::Error| ConfigError::File {
        file,
        reason: e.message().to_owned(),
    })?;
    Ok(table
        .into_iter()
        .map(|(key, value)| (key, toml_as_text(&value)))
        .collect())
}

/// A TOML value as text; an array becomes a comma-separated list, and a table of scalars a
/// comma-separated list of `KEY=VALUE` (`[operator_aliases]` with `WAVE_CI = "BETA_CI"`).
fn toml_as_text(value: &toml::Value) -> String {
    match value {
        toml::Value::Array(items) => items.iter().map(toml_scalar).collect::<Vec<_>>().join(","),
        toml::Value::Table(entries) => entries
            .iter()
            .map(|(key, value)| format!("{key}={}", toml_scalar(value)))
            .collect::<Vec<_>>()
            .join(","),
        scalar => toml_scalar(scalar),
    }
}

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

/// A whole number from `min` to `max`, as the integer type of its field.
pub fn whole<T: TryFrom<u64>>(value: &str, min: u64, max: u64) -> Option<T> {
    let n = value.parse::<u64>().ok().filter(|n| (min..=max).contains(n))?;
    T::try_from(n).ok()
}

/// A whole number of seconds from `min` to `max`.
pub fn seconds(value: &str, min: u64, max: u64) -> Option<Duration> {
    whole(value, min, max).map(Duration::from_secs)
}

/// A whole number of milliseconds from `min` to `max`.
pub fn millis(value: &str, min: u64, max: u64) -> Option<Duration> {
    whole(value, min, max).map(Duration::from_millis)
}

/// Comma-separated whole seconds, each at most `max`; empty text is an empty list.
pub fn seconds_list(value: &str, max: u64) -> Option<Vec<Duration>> {
    if value.trim().is_empty() {
        return Some(Vec::new());
    }
    value.split(',').map(|s| seconds(s.trim(), 0, max)).collect()
}

pub fn boolean(value: &str) -> Option<bool> {
    match value.to_ascii_lowercase().as_str() {
        "true" | "1" | "yes" | "on" => Some(true),
        "false" | "0" | "no" | "off" => Some(false),
        _ => None,
    }
}

pub fn database_url(value: &str) -> Option<String> {
    (value.starts_with("sqlite:") || value.starts_with("postgres://") || value.starts_with("postgresql://"))
        .then(|| value.to_owned())
}

/// An `http://` or `https://` URL, without a trailing slash.
pub fn http_url(value: &str) -> Option<String> {
    (value.starts_with("http://") || value.starts_with("https://")).then(|| value.trim_end_matches('/').to_owned())
}

/// Comma-separated addresses or CIDR blocks; empty text is an empty list.
pub fn ip_ranges(value: &str) -> Option<Vec<IpRange>> {
    value
        .split(',')
        .map(str::trim)
        .filter(|item| !item.is_empty())
        .map(IpRange::parse)
        .collect()
}

pub fn log_format(value: &str) -> Option<LogFormat> {
    match value {
        "text" => Some(LogFormat::Text),
        "json" => Some(LogFormat::Json),
        _ => None,
    }
}

/// `GAMMA,BETA:transfer`: whole operators, or one direction of one.
pub fn disabled_operators(value: &str) -> Option<Vec<(OperatorCode, Option<Kind>)>> {
    value
        .split(',')
        .map(str::trim)
        .filter(|item| !item.is_empty())
        .map(|item| {
            let (name, kind) = match item.split_once(':') {
                Some((name, kind)) => (name, Some(Kind::parse(kind)?)),
                None => (item, None),
            };
            Some((operator(name)?, kind))
        })
        .collect()
}

/// `BETA:collecte=150,GAMMA:transfer=100+25`: basis points up to 10,000, fixed part in francs.
pub fn fees(value: &str) -> Option<Vec<(OperatorCode, Kind, FeeRule)>> {
    value
        .split(',')
        .map(str::trim)
        .filter(|item| !item.is_empty())
        .map(|item| {
            let (target, rule) = item.split_once('=')?;
            let (name, kind) = target.trim().split_once(':')?;
            let operator = operator(name)?;
            let kind = Kind::parse(kind)?;
            let (bp, fixed) = match rule.trim().split_once('+') {
                Some((bp, fixed)) => (bp, fixed),
                None => (rule.trim(), "0"),
            };
            let basis_points = bp.trim().parse::<u32>().ok().filter(|b| *b <= 10_000)?;
            let fixed = fixed.trim().parse::<i64>().ok().filter(|f| (0..=100_000).contains(f))?;
            Some((
                operator,
                kind,
                FeeRule {
                    basis_points,
                    fixed: Francs(fixed),
                },
            ))
        })
        .collect()
}

/// `ORANGE_MONEY_CI=ALPHA_MONEY_CI,WAVE_CI=BETA`: each alias and the operator it names.
pub fn operator_aliases(value: &str) -> Option<OperatorAliases> {
    let pairs = value
        .split(',')
        .map(str::trim)
        .filter(|item| !item.is_empty())
        .map(|item| {
            let (alias, code) = item.split_once('=')?;
            Some((alias.trim().to_owned(), operator(code.trim())?))
        })
        .collect::<Option<Vec<_>>>()?;
    OperatorAliases::new(pairs)
}

/// An operator by name (`GAMMA_MONEY`) or code (`GAMMA`).
fn operator(name: &str) -> Option<OperatorCode> {
    OperatorCode::from_name(name).or_else(|| OperatorCode::parse(name).ok())
}
