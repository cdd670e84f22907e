//! The table of settings: each one's TOML key, `MOMO_*` variable, default, what it accepts,
//! one line of meaning, and where its parsed value goes in [`Config`]. Loading, defaults, error
//! messages and `docs/configuration.md` (`docs.rs`) all read this table.
//!
//! The variables' names and units are a public interface: `MOMO_SIMULATOR_DELAY_MS` takes
//! milliseconds even though the configuration holds a `Duration`.

use super::{parse, Config, ConfigError, Raw};

/// One setting.
pub struct Setting {
    /// The key in the TOML file: the variable in lower case without `MOMO_`.
    pub key: &'static str,
    /// The environment variable.
    pub var: &'static str,
    /// The value when neither the file nor the environment gives one.
    pub default: Initial,
    /// What a value may be, as errors and the documentation say it.
    pub accepts: &'static str,
    /// What the setting does, in one line.
    pub doc: &'static str,
    /// Never echoed in an error.
    pub secret: bool,
    /// Parses a (trimmed) value into the configuration; `None` when it is not acceptable.
    pub(super) write: fn(&mut Config, &str) -> Option<()>,
}

/// A setting's default.
pub enum Initial {
    /// This value, written as in the environment.
    Value(&'static str),
    /// No value of its own; the text says what happens then.
    Unset(&'static str),
}

impl Setting {
    /// Parses `value` into `config`; false when it is not acceptable.
    pub(super) fn set(&self, config: &mut Config, value: &str) -> bool {
        (self.write)(config, value.trim()).is_some()
    }

    /// Parses a value from a file or the environment into `config`.
    pub(super) fn apply(&self, config: &mut Config, raw: &Raw) -> Result<(), ConfigError> {
        if self.set(config, &raw.value) {
            return Ok(());
        }
        Err(ConfigError::Invalid {
            name: self.var.to_owned(),
            origin: raw.source.clone(),
            expected: self.accepts,
            value: if self.secret {
                "[redacted]".to_owned()
            } else {
                raw.value.clone()
            },
        })
    }
}

/// Stores a parsed value, if there is one.
pub(super) fn put<T>(field: &mut T, value: Option<T>) -> Option<()> {
    *field = value?;
    Some(())
}

/// Every setting in the order values are applied (`listen` before `public_url`): the server's,
/// then how the service behaves (`service_settings.rs`), then the operator connectors'
/// (`connector_settings.rs`).
pub fn all() -> impl Iterator<Item = &'static Setting> {
    CORE.iter()
        .chain(super::service_settings::SERVICE.iter())
        .chain(super::connector_settings::CONNECTORS.iter())
}

/// The server's settings: its database, address, HTTP limits, tokens, sessions and metrics.
pub static CORE: &[Setting] = &[
    Setting {
        key: "database_url",
        var: "MOMO_DATABASE_URL",
        default: Initial::Value("sqlite://data/momo-gateway.db"),
        accepts: "a sqlite:// or postgres:// URL",
        doc: "the database: a SQLite file or a PostgreSQL database",
        secret: false,
        write: |c, v| put(&mut c.database_url, parse::database_url(v)),
    },
    Setting {
        key: "listen",
        var: "MOMO_LISTEN",
        default: Initial::Value("127.0.0.1:8080"),
        accepts: "an address like 127.0.0.1:8080",
        doc: "address to serve on; a loopback address allows the demo merchant",
        secret: false,
        write: |c, v| {
            c.listen = v.parse().ok()?;
            c.public_url = format!("http://{}", c.listen);
            Some(())
        },
    },
    Setting {
        key: "public_url",
        var: "MOMO_PUBLIC_URL",
        default: Initial::Unset("`http://<listen>`"),
        accepts: "an http:// or https:// URL",
        doc: "how merchants and payers reach the gateway (BETA launch pages)",
        secret: false,
        write: |c, v| put(&mut c.public_url, parse::http_url(v)),
    },
    Setting {
        key: "http_header_read_timeout_ms",
        var: "MOMO_HTTP_HEADER_READ_TIMEOUT_MS",
        default: Initial::Value("10000"),
        accepts: "a whole number of milliseconds from 100 to 600000",
        doc: "how long a client may take to send a request's headers, from connecting or from the first byte of a later request; then the connection is closed",
        secret: false,
        write: |c, v| put(&mut c.http.header_read_timeout, parse::millis(v, 100, 600_000)),
    },
    Setting {
        key: "http_request_timeout_ms",
        var: "MOMO_HTTP_REQUEST_TIMEOUT_MS",
        default: Initial::Value("30000"),
        accepts: "a whole number of milliseconds from 100 to 600000",
        doc: "the longest from a request's headers to its answer; then it is answered 503 in its envelope, and work already begun (an operator call) carries on",
        secret: false,
        write: |c, v| put(&mut c.http.request_timeout, parse::millis(v, 100, 600_000)),
    },
    Setting {
        key: "http_idle_timeout_ms",
        var: "MOMO_HTTP_IDLE_TIMEOUT_MS",
        default: Initial::Value("60000"),
        accepts: "a whole number of milliseconds from 100 to 3600000",
        doc: "how long a kept-alive connection may sit with nothing moving (no next request, an answer not being read) before it is closed",
        secret: false,
        write: |c, v| put(&mut c.http.idle_timeout, parse::millis(v, 100, 3_600_000)),
    },
    Setting {
        key: "http_max_connections",
        var: "MOMO_HTTP_MAX_CONNECTIONS",
        default: Initial::Value("1024"),
        accepts: "a whole number of connections from 1 to 1000000",
        doc: "connections served at once; further ones wait in the listen queue until one closes (keep the open-files limit above it)",
        secret: false,
        write: |c, v| put(&mut c.http.max_connections, parse::whole(v, 1, 1_000_000)),
    },
    Setting {
        key: "token_ttl_s",
        var: "MOMO_TOKEN_TTL_S",
        default: Initial::Value("600"),
        accepts: "a whole number of seconds from 1 to 86400",
        doc: "access token lifetime",
        secret: false,
        write: |c, v| put(&mut c.token_ttl, parse::seconds(v, 1, 86_400)),
    },
    Setting {
        key: "dashboard_session_idle_s",
        var: "MOMO_DASHBOARD_SESSION_IDLE_S",
        default: Initial::Value("1800"),
        accepts: "a whole number of seconds from 1 to 86400",
        doc: "a merchant dashboard session unused for this long ends (docs/dashboard.md)",
        secret: false,
        write: |c, v| put(&mut c.dashboard.session_idle, parse::seconds(v, 1, 86_400)),
    },
    Setting {
        key: "dashboard_session_max_s",
        var: "MOMO_DASHBOARD_SESSION_MAX_S",
        default: Initial::Value("28800"),
        accepts: "a whole number of seconds from 1 to 604800",
        doc: "a merchant dashboard session ends this long after sign-in, however it is used",
        secret: false,
        write: |c, v| put(&mut c.dashboard.session_max, parse::seconds(v, 1, 604_800)),
    },
    Setting {
        key: "jwt_secret",
        var: "MOMO_JWT_SECRET",
        default: Initial::Unset("generated and kept in the database"),
        accepts: "at least 32 bytes of secret text",
        doc: "token signing key, the same in every process sharing a database",
        secret: true,
        write: |c, v| put(&mut c.jwt_secret, (v.len() >= 32).then(|| Some(v.to_owned()))),
    },
    Setting {
        key: "metrics_token",
        var: "MOMO_METRICS_TOKEN",
        default: Initial::Unset("none: `/metrics` answers anyone who reaches it, unless the gateway serves Production (see MOMO_METRICS_PUBLIC)"),
        accepts: "at least 16 printable ASCII characters without spaces",
        doc: "the bearer token `/metrics` requires (`Authorization: Bearer <token>`); without it or with another, 401 in the v1 envelope",
        secret: true,
        write: |c, v| {
            let ok = v.len() >= 16 && v.bytes().all(|b| b.is_ascii_graphic());
            put(&mut c.metrics.token, ok.then(|| Some(v.to_owned())))
        },
    },
    Setting {
        key: "metrics_public",
        var: "MOMO_METRICS_PUBLIC",
        default: Initial::Value("false"),
        accepts: "true or false",
        doc: "serve `/metrics` to anyone even though the gateway serves Production (a route in MOMO_OPERATOR_CONNECTORS names Production) and no MOMO_METRICS_TOKEN is set; otherwise such a gateway answers `/metrics` 401 to everyone, since its figures describe real merchants' business",
        secret: false,
        write: |c, v| put(&mut c.metrics.public, parse::boolean(v)),
    },
    Setting {
        key: "metrics_database_refresh_ms",
        var: "MOMO_METRICS_DATABASE_REFRESH_MS",
        default: Initial::Value("5000"),
        accepts: "a whole number of milliseconds from 0 to 300000",
        doc: "how often at most `/metrics` reads the database's figures (pending payments, transfers to review, outbox); scrapes in between show the last reading; 0 reads them at every scrape",
        secret: false,
        write: |c, v| put(&mut c.metrics.database_refresh, parse::millis(v, 0, 300_000)),
    },
];

#[cfg(test)]
mod tests {
    use super::super::Config;

    fn metrics_token(value: &str) -> Result<Option<String>, String> {
        Config::from_sources(None, |name| (name == "MOMO_METRICS_TOKEN").then(|| value.to_owned()))
            .map(|c| c.metrics.token)
            .map_err(|e| e.to_string())
    }

    #[test]
    fn a_metrics_token_is_16_printable_characters_and_never_echoed() {
        assert_eq!(
            metrics_token("0123456789abcdef"),
            Ok(Some("0123456789abcdef".to_owned()))
        );
        for bad in ["short-token", "0123456789 abcdef", "0123456789abcdé"] {
            let e = metrics_token(bad).unwrap_err();
            assert!(e.contains("MOMO_METRICS_TOKEN") && !e.contains(bad), "{e}");
        }
    }
}
