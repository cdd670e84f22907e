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

/// Every setting in the order values are applied (`listen` before `public_url`): the core
/// ones, then the operator connectors' (`connector_settings.rs`).
pub fn all() -> impl Iterator<Item = &'static Setting> {
    CORE.iter().chain(super::connector_settings::CONNECTORS.iter())
}

/// The core settings.
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
        key: "operator_breaker_failures",
        var: "MOMO_OPERATOR_BREAKER_FAILURES",
        default: Initial::Value("5"),
        accepts: "a whole number of failures from 1 to 1000",
        doc: "consecutive transport failures after which an operator's calls fail at once (503)",
        secret: false,
        write: |c, v| put(&mut c.breaker.failures, parse::whole(v, 1, 1_000)),
    },
    Setting {
        key: "operator_breaker_cool_down_s",
        var: "MOMO_OPERATOR_BREAKER_COOL_DOWN_S",
        default: Initial::Value("30"),
        accepts: "a whole number of seconds from 1 to 3600",
        doc: "how long an open breaker fails calls at once before one call probes the operator",
        secret: false,
        write: |c, v| put(&mut c.breaker.cool_down, parse::seconds(v, 1, 3_600)),
    },
    Setting {
        key: "write_batch_max",
        var: "MOMO_WRITE_BATCH_MAX",
        default: Initial::Value("128"),
        accepts: "a whole number of writes from 1 to 10000",
        doc: "the most creations and settlements committed together in one database transaction (group commit)",
        secret: false,
        write: |c, v| put(&mut c.batching.max, parse::whole(v, 1, 10_000)),
    },
    Setting {
        key: "write_batch_wait_us",
        var: "MOMO_WRITE_BATCH_WAIT_US",
        default: Initial::Value("0"),
        accepts: "a whole number of microseconds from 0 to 100000",
        doc: "how long a writer waits for more writes to join a batch; 0 commits what is queued at once",
        secret: false,
        write: |c, v| put(&mut c.batching.wait, parse::whole(v, 0, 100_000).map(std::time::Duration::from_micros)),
    },
    Setting {
        key: "writers",
        var: "MOMO_WRITERS",
        default: Initial::Value("4"),
        accepts: "a whole number of writer tasks from 1 to 64",
        doc: "batch writers on PostgreSQL (SQLite always has one: its one writer connection)",
        secret: false,
        write: |c, v| put(&mut c.batching.writers, parse::whole(v, 1, 64)),
    },
    Setting {
        key: "simulator_delay_ms",
        var: "MOMO_SIMULATOR_DELAY_MS",
        default: Initial::Value("2000"),
        accepts: "a whole number of milliseconds from 0 to 86400000",
        doc: "delay before the simulator settles a pending payment",
        secret: false,
        write: |c, v| put(&mut c.simulator.delay, parse::millis(v, 0, 86_400_000)),
    },
    Setting {
        key: "reconcile_interval_ms",
        var: "MOMO_RECONCILE_INTERVAL_MS",
        default: Initial::Value("5000"),
        accepts: "a whole number of milliseconds from 10 to 86400000",
        doc: "how often the reconciler and collection expiry run",
        secret: false,
        write: |c, v| put(&mut c.reconcile.interval, parse::millis(v, 10, 86_400_000)),
    },
    Setting {
        key: "reconcile_after_ms",
        var: "MOMO_RECONCILE_AFTER_MS",
        default: Initial::Value("30000"),
        accepts: "a whole number of milliseconds from 0 to 86400000",
        doc: "age after which a pending transaction is checked with its operator",
        secret: false,
        write: |c, v| put(&mut c.reconcile.after, parse::millis(v, 0, 86_400_000)),
    },
    Setting {
        key: "collection_ttl_s",
        var: "MOMO_COLLECTION_TTL_S",
        default: Initial::Value("900"),
        accepts: "a whole number of seconds from 1 to 2592000",
        doc: "a collection still pending after this fails with cause `EXPIRED`; a transfer needs review",
        secret: false,
        write: |c, v| put(&mut c.reconcile.collection_ttl, parse::seconds(v, 1, 2_592_000)),
    },
    Setting {
        key: "webhook_timeout_ms",
        var: "MOMO_WEBHOOK_TIMEOUT_MS",
        default: Initial::Value("15000"),
        accepts: "a whole number of milliseconds from 100 to 120000",
        doc: "timeout of one webhook attempt",
        secret: false,
        write: |c, v| put(&mut c.webhook.timeout, parse::millis(v, 100, 120_000)),
    },
    Setting {
        key: "webhook_retry_schedule",
        var: "MOMO_WEBHOOK_RETRY_SCHEDULE",
        default: Initial::Value("5,300,1800,7200,18000,36000,50400,72000,86400"),
        accepts: "comma-separated whole seconds, e.g. 5,300,1800",
        doc: "delays between webhook attempts (each at most 604800); empty: one attempt only",
        secret: false,
        write: |c, v| put(&mut c.webhook.retry_schedule, parse::seconds_list(v, 604_800)),
    },
    Setting {
        key: "webhook_allow_private",
        var: "MOMO_WEBHOOK_ALLOW_PRIVATE",
        default: Initial::Value("false"),
        accepts: "true or false",
        doc: "allow webhook targets on private, loopback and other special-purpose addresses (local testing)",
        secret: false,
        write: |c, v| put(&mut c.webhook.allow_private, parse::boolean(v)),
    },
    Setting {
        key: "webhook_lease_s",
        var: "MOMO_WEBHOOK_LEASE_S",
        default: Initial::Value("30"),
        accepts: "a whole number of seconds from 1 to 86400",
        doc: "how long a dispatcher holds a delivery before another may take it (a settled payment's event is handed to its own process's dispatcher with this lease, so one left unsent by a process that died is sent this long after); must exceed the webhook timeout by 5 s",
        secret: false,
        write: |c, v| put(&mut c.webhook.lease, parse::seconds(v, 1, 86_400)),
    },
    Setting {
        key: "webhook_secret_overlap_s",
        var: "MOMO_WEBHOOK_SECRET_OVERLAP_S",
        default: Initial::Value("86400"),
        accepts: "a whole number of seconds from 0 to 2592000",
        doc: "after a webhook signing secret rotation, how long deliveries carry the old secret's signature beside the new one; 0: the old secret stops at once",
        secret: false,
        write: |c, v| put(&mut c.webhook.secret_overlap, parse::seconds(v, 0, 2_592_000)),
    },
    Setting {
        key: "idempotency_key_ttl_s",
        var: "MOMO_IDEMPOTENCY_KEY_TTL_S",
        default: Initial::Value("86400"),
        accepts: "a whole number of seconds from 60 to 2592000",
        doc: "how long an Idempotency-Key and its first answer are kept, from the first request; then the key may be used again",
        secret: false,
        write: |c, v| put(&mut c.idempotency_key_ttl, parse::seconds(v, 60, 2_592_000)),
    },
    Setting {
        key: "sandbox_initial_balance",
        var: "MOMO_SANDBOX_INITIAL_BALANCE",
        default: Initial::Value("10000000"),
        accepts: "a whole number of francs from 0 to 1000000000000",
        doc: "francs credited to a new Sandbox environment",
        secret: false,
        write: |c, v| put(&mut c.sandbox_initial_balance, parse::whole(v, 0, 1_000_000_000_000)),
    },
    Setting {
        key: "max_body_bytes",
        var: "MOMO_MAX_BODY_BYTES",
        default: Initial::Value("65536"),
        accepts: "a number of bytes from 1024 to 16777216",
        doc: "largest request body",
        secret: false,
        write: |c, v| put(&mut c.max_body_bytes, parse::whole(v, 1024, 16 * 1024 * 1024)),
    },
    Setting {
        key: "rate_limit_per_s",
        var: "MOMO_RATE_LIMIT_PER_S",
        default: Initial::Value("200"),
        accepts: "requests per second from 0 (off) to 1000000",
        doc: "requests per second per merchant and environment, in bursts of up to twice that; over it, 429 with Retry-After",
        secret: false,
        write: |c, v| put(&mut c.rate_limit_per_s, parse::whole(v, 0, 1_000_000)),
    },
    Setting {
        key: "auth_rate_limit_per_min",
        var: "MOMO_AUTH_RATE_LIMIT_PER_MIN",
        default: Initial::Value("600"),
        accepts: "requests per minute from 0 (off) to 1000000",
        doc: "token requests per minute per API key and per client address (see MOMO_TRUSTED_PROXIES), in bursts of up to that many",
        secret: false,
        write: |c, v| put(&mut c.auth_rate_limit_per_min, parse::whole(v, 0, 1_000_000)),
    },
    Setting {
        key: "trusted_proxies",
        var: "MOMO_TRUSTED_PROXIES",
        default: Initial::Unset("none: the connection's peer is the client"),
        accepts: "comma-separated addresses or CIDR blocks, e.g. 10.0.0.0/8,192.0.2.7",
        doc: "reverse proxies in front of the gateway: from one of them, the client is the rightmost address of X-Forwarded-For (else Forwarded) that is not one of them",
        secret: false,
        write: |c, v| put(&mut c.http.trusted_proxies, parse::ip_ranges(v)),
    },
    Setting {
        key: "log_format",
        var: "MOMO_LOG_FORMAT",
        default: Initial::Value("text"),
        accepts: "text or json",
        doc: "how log lines are written (logs go to stderr, written by a thread of their own that drops no line while the gateway runs; `RUST_LOG` filters)",
        secret: false,
        write: |c, v| put(&mut c.log_format, parse::log_format(v)),
    },
    Setting {
        key: "v2_successfull_spelling",
        var: "MOMO_V2_SUCCESSFULL_SPELLING",
        default: Initial::Value("true"),
        accepts: "true or false",
        doc: "spell an immediate v2 collection success `SUCCESSFULL`, as the live service does",
        secret: false,
        write: |c, v| put(&mut c.v2_successfull_spelling, parse::boolean(v)),
    },
    Setting {
        key: "disabled_operators",
        var: "MOMO_DISABLED_OPERATORS",
        default: Initial::Unset("none"),
        accepts: "comma-separated operators, each optionally with :collecte or :transfer, e.g. GAMMA,BETA:transfer",
        doc: "operators (or one direction of one) refused as unsupported",
        secret: false,
        write: |c, v| put(&mut c.disabled_operators, parse::disabled_operators(v)),
    },
    Setting {
        key: "operator_aliases",
        var: "MOMO_OPERATOR_ALIASES",
        default: Initial::Unset("none: the reference's codes only"),
        accepts: "comma-separated ALIAS=CODE, e.g. ORANGE_MONEY_CI=ALPHA_MONEY_CI,WAVE_CI=BETA_MONEY_CI (in TOML also a table); an alias is A-Z, a-z, 0-9, _, - or . (at most 32) and not a reference code",
        doc: "operator names of this deployment, accepted wherever an operator code is; a transaction created with one shows it as its operator code (answers, lookups, lists, webhooks)",
        secret: false,
        write: |c, v| put(&mut c.operator_aliases, parse::operator_aliases(v)),
    },
    Setting {
        key: "fees",
        var: "MOMO_FEES",
        default: Initial::Unset("the live service's"),
        accepts: "comma-separated OPERATOR:DIRECTION=BASIS_POINTS[+FIXED], e.g. BETA:collecte=150,GAMMA:transfer=100+25",
        doc: "fee rules replacing the defaults: basis points up to 10000 plus francs up to 100000, rounded up to the franc",
        secret: false,
        write: |c, v| put(&mut c.fee_overrides, parse::fees(v)),
    },
];
