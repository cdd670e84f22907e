//! Loading, errors, and the settings table against its own documentation.

use super::*;
use std::collections::HashMap;

pub(super) fn from_env(vars: &[(&str, &str)]) -> Result<Config, ConfigError> {
    let map: HashMap<String, String> = vars.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    Config::from_sources(None, |name| map.get(name).cloned())
}

/// A settings file holding `text`, in a folder removed when the returned guard is dropped.
fn settings_file(text: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("momo.toml");
    std::fs::write(&path, text).unwrap();
    (dir, path)
}

fn secs(list: &[u64]) -> Vec<Duration> {
    list.iter().map(|s| Duration::from_secs(*s)).collect()
}

#[test]
fn defaults_need_no_settings() {
    let c = from_env(&[]).unwrap();
    assert_eq!(c, Config::default());
    assert_eq!(c.listen.to_string(), "127.0.0.1:8080");
    assert_eq!(c.public_url, "http://127.0.0.1:8080");
    assert_eq!(c.webhook.retry_schedule.len(), 9);
    assert_eq!(c.simulator.delay, Duration::from_secs(2));
    assert_eq!(c.reconcile.collection_ttl, Duration::from_secs(900));
    assert_eq!(c.jwt_secret, None);
    assert!(c.fee_overrides.is_empty() && c.disabled_operators.is_empty());
    assert_eq!(
        c.http,
        HttpSettings {
            header_read_timeout: Duration::from_secs(10),
            request_timeout: Duration::from_secs(30),
            idle_timeout: Duration::from_secs(60),
            max_connections: 1024,
            trusted_proxies: Vec::new(),
        }
    );
    assert_eq!(
        (c.rate_limit_per_s, c.auth_rate_limit_per_min),
        (200, 600),
        "rate limits are on unless turned off"
    );
}

#[test]
fn connection_limits_and_trusted_proxies_come_from_a_file_too() {
    let (_dir, path) = settings_file(
        "http_header_read_timeout_ms = 5000\nhttp_request_timeout_ms = 20000\nhttp_idle_timeout_ms = 90000\n\
         http_max_connections = 4096\ntrusted_proxies = [\"10.0.0.0/8\", \"192.0.2.7\"]\n",
    );
    let c = Config::from_sources(Some(&path), |_| None).unwrap();
    assert_eq!(
        (c.http.header_read_timeout, c.http.request_timeout, c.http.idle_timeout),
        (Duration::from_secs(5), Duration::from_secs(20), Duration::from_secs(90))
    );
    assert_eq!(c.http.max_connections, 4096);
    assert_eq!(c.http.trusted_proxies.len(), 2);
}

#[test]
fn trusted_proxies_are_addresses_or_blocks() {
    let c = from_env(&[("MOMO_TRUSTED_PROXIES", "10.0.0.0/8, 192.0.2.7,fd00::/8")]).unwrap();
    let shown: Vec<String> = c.http.trusted_proxies.iter().map(|r| r.to_string()).collect();
    assert_eq!(shown, ["10.0.0.0/8", "192.0.2.7/32", "fd00::/8"]);
    assert!(from_env(&[("MOMO_TRUSTED_PROXIES", "")])
        .unwrap()
        .http
        .trusted_proxies
        .is_empty());
    for bad in ["10.0.0.0/33", "proxy.internal", "10.0.0.1/8"] {
        let err = from_env(&[("MOMO_TRUSTED_PROXIES", bad)]).unwrap_err().to_string();
        assert!(
            err.contains("MOMO_TRUSTED_PROXIES") && err.contains("CIDR"),
            "{bad}: {err}"
        );
    }
}

#[test]
fn environment_values_override_defaults() {
    let c = from_env(&[
        ("MOMO_TOKEN_TTL_S", "60"),
        ("MOMO_LISTEN", "0.0.0.0:9000"),
        ("MOMO_WEBHOOK_RETRY_SCHEDULE", "1, 2,3"),
        ("MOMO_WEBHOOK_TIMEOUT_MS", "250"),
    ])
    .unwrap();
    assert_eq!(c.token_ttl, Duration::from_secs(60));
    assert_eq!(c.public_url, "http://0.0.0.0:9000");
    assert_eq!(c.webhook.retry_schedule, secs(&[1, 2, 3]));
    assert_eq!(
        c.webhook.timeout,
        Duration::from_millis(250),
        "the variable's unit is milliseconds"
    );
}

#[test]
fn a_given_public_url_wins_over_the_one_listen_implies() {
    let c = from_env(&[
        ("MOMO_LISTEN", "0.0.0.0:9000"),
        ("MOMO_PUBLIC_URL", "https://pay.example.ci/"),
    ])
    .unwrap();
    assert_eq!(c.public_url, "https://pay.example.ci");
}

#[test]
fn an_invalid_value_names_the_setting_and_what_it_accepts() {
    let err = from_env(&[("MOMO_TOKEN_TTL_S", "ten")]).unwrap_err().to_string();
    assert_eq!(
        err,
        "invalid MOMO_TOKEN_TTL_S (from environment): expected a whole number of seconds from 1 to 86400, got \"ten\""
    );
    let err = from_env(&[("MOMO_JWT_SECRET", "short")]).unwrap_err().to_string();
    assert!(err.contains("MOMO_JWT_SECRET") && !err.contains("short"), "{err}");
}

#[test]
fn a_webhook_lease_no_longer_than_an_attempt_stops_the_start() {
    let err = from_env(&[("MOMO_WEBHOOK_TIMEOUT_MS", "60000"), ("MOMO_WEBHOOK_LEASE_S", "30")])
        .unwrap_err()
        .to_string();
    assert_eq!(
        err,
        "MOMO_WEBHOOK_LEASE_S (30 s) must exceed MOMO_WEBHOOK_TIMEOUT_MS (60000 ms) by at least 5 s, or a \
         webhook still being sent when its lease runs out is sent twice: set MOMO_WEBHOOK_LEASE_S to at least \
         65, or lower MOMO_WEBHOOK_TIMEOUT_MS to at most 25000"
    );
    let err = from_env(&[("MOMO_WEBHOOK_TIMEOUT_MS", "1500"), ("MOMO_WEBHOOK_LEASE_S", "6")]).unwrap_err();
    assert!(
        err.to_string()
            .ends_with("at least 7, or lower MOMO_WEBHOOK_TIMEOUT_MS to at most 1000"),
        "{err}"
    );
    let err = from_env(&[("MOMO_WEBHOOK_TIMEOUT_MS", "100"), ("MOMO_WEBHOOK_LEASE_S", "5")]).unwrap_err();
    assert!(
        err.to_string().ends_with("at least 6"),
        "no timeout fits a 5 s lease: {err}"
    );
    assert!(from_env(&[("MOMO_WEBHOOK_TIMEOUT_MS", "25000"), ("MOMO_WEBHOOK_LEASE_S", "30")]).is_ok());
    assert!(from_env(&[("MOMO_WEBHOOK_TIMEOUT_MS", "60000"), ("MOMO_WEBHOOK_LEASE_S", "65")]).is_ok());
}

#[test]
fn the_webhook_secret_overlap_is_a_day_unless_set_and_may_be_none() {
    assert_eq!(
        from_env(&[]).unwrap().webhook.secret_overlap,
        Duration::from_secs(86_400)
    );
    let none = from_env(&[("MOMO_WEBHOOK_SECRET_OVERLAP_S", "0")]).unwrap();
    assert_eq!(none.webhook.secret_overlap, Duration::ZERO);
    assert!(from_env(&[("MOMO_WEBHOOK_SECRET_OVERLAP_S", "2592001")]).is_err());
}

#[test]
fn debug_redacts_secrets() {
    let c = Config {
        database_url: "postgres://u:hunter2@h/db".to_owned(),
        jwt_secret: Some("s".repeat(40)),
        metrics: MetricsSettings {
            token: Some("m".repeat(20)),
            ..MetricsSettings::default()
        },
        ..Config::default()
    };
    let debug = format!("{c:?}");
    for secret in ["hunter2".to_owned(), "s".repeat(40), "m".repeat(20)] {
        assert!(!debug.contains(&secret), "{debug}");
    }
}

#[test]
fn the_file_comes_before_the_environment_and_refuses_unknown_keys() {
    let (_dir, path) = settings_file("token_ttl_s = 120\nsimulator_delay_ms = 5\nwebhook_retry_schedule = [1, 2]\n");
    let c = Config::from_sources(Some(&path), |n| (n == "MOMO_TOKEN_TTL_S").then(|| "30".to_owned())).unwrap();
    assert_eq!(
        (c.token_ttl, c.simulator.delay),
        (Duration::from_secs(30), Duration::from_millis(5))
    );
    assert_eq!(c.webhook.retry_schedule, secs(&[1, 2]));
    std::fs::write(&path, "token_tll_s = 120\n").unwrap();
    let err = Config::from_sources(Some(&path), |_| None).unwrap_err();
    assert!(matches!(err, ConfigError::UnknownKey { .. }));
}

#[test]
fn each_variable_is_its_key_in_upper_case_and_each_key_is_unique() {
    let all: Vec<&Setting> = settings().collect();
    for (i, s) in all.iter().enumerate() {
        assert_eq!(s.var, format!("MOMO_{}", s.key.to_ascii_uppercase()));
        assert!(all[..i].iter().all(|t| t.key != s.key), "{} twice", s.key);
    }
}

/// A range a setting's `accepts` text states ("from 1 to 86400"), to check its parser against.
fn stated_range(accepts: &str) -> Option<(u64, u64)> {
    let number = |text: &str| -> Option<u64> {
        let digits: String = text.chars().take_while(char::is_ascii_digit).collect();
        digits.parse().ok()
    };
    let from = accepts.find("from ")?;
    let to = accepts[from..].find(" to ")? + from;
    Some((number(&accepts[from + 5..])?, number(&accepts[to + 4..])?))
}

#[test]
fn every_stated_range_is_the_range_the_parser_accepts() {
    let mut checked = 0;
    for s in settings() {
        let Some((min, max)) = stated_range(s.accepts) else {
            continue;
        };
        let mut c = Config::default();
        assert!(s.set(&mut c, &min.to_string()), "{} refuses {min}", s.var);
        assert!(s.set(&mut c, &max.to_string()), "{} refuses {max}", s.var);
        assert!(!s.set(&mut c, &(max + 1).to_string()), "{} accepts {}", s.var, max + 1);
        if min > 0 {
            assert!(!s.set(&mut c, &(min - 1).to_string()), "{} accepts {}", s.var, min - 1);
        }
        checked += 1;
    }
    assert_eq!(checked, 37, "every numeric setting states its range");
}

#[test]
fn docs_configuration_md_is_rendered_from_the_table() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/configuration.md");
    let rendered = markdown();
    if std::env::var("UPDATE_DOCS").as_deref() == Ok("1") {
        std::fs::write(&path, &rendered).unwrap();
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    if committed != rendered {
        let line = committed
            .lines()
            .zip(rendered.lines())
            .position(|(a, b)| a != b)
            .unwrap_or_else(|| committed.lines().count().min(rendered.lines().count()));
        panic!(
            "docs/configuration.md differs from src/config/settings.rs (first at line {}): regenerate it with \
             `UPDATE_DOCS=1 cargo test --lib config::` and commit it",
            line + 1
        );
    }
}

#[test]
fn a_platforms_port_and_database_url_count_when_no_momo_variable_is_set() {
    let c = from_env(&[("PORT", "5000"), ("DATABASE_URL", "postgres://app@db/app")]).unwrap();
    assert_eq!(c.listen.to_string(), "0.0.0.0:5000");
    assert_eq!(c.database_url, "postgres://app@db/app");
    let c = from_env(&[
        ("PORT", "5000"),
        ("MOMO_LISTEN", "127.0.0.1:9000"),
        ("DATABASE_URL", "postgres://app@db/app"),
        ("MOMO_DATABASE_URL", "sqlite://data/x.db"),
    ])
    .unwrap();
    assert_eq!(c.listen.to_string(), "127.0.0.1:9000", "MOMO_LISTEN wins");
    assert_eq!(c.database_url, "sqlite://data/x.db", "MOMO_DATABASE_URL wins");
    // Over the file, as every environment variable.
    let (_dir, path) = settings_file("listen = \"127.0.0.1:7000\"\n");
    let c = Config::from_sources(Some(&path), |n| (n == "PORT").then(|| "5000".to_owned())).unwrap();
    assert_eq!(c.listen.to_string(), "0.0.0.0:5000");
    for (var, bad) in [
        ("PORT", "http"),
        ("PORT", "0"),
        ("PORT", "70000"),
        ("DATABASE_URL", "mysql://x"),
    ] {
        let err = from_env(&[(var, bad)]).unwrap_err().to_string();
        assert!(err.contains(var) && err.contains("expected"), "{err}");
    }
    // A bad platform value under a MOMO_* variable that wins is never read.
    let c = from_env(&[("PORT", "http"), ("MOMO_LISTEN", "127.0.0.1:9000")]).unwrap();
    assert_eq!(c.listen.to_string(), "127.0.0.1:9000");
}

#[test]
fn operator_aliases_come_from_the_environment_or_a_toml_table_or_array() {
    let brands = OperatorAliases::new(vec![
        ("ORANGE_MONEY_CI".into(), OperatorCode::Alpha),
        ("WAVE_CI".into(), OperatorCode::Beta),
        ("MTN_MONEY_CI".into(), OperatorCode::Gamma),
    ])
    .unwrap();
    let c = from_env(&[(
        "MOMO_OPERATOR_ALIASES",
        "ORANGE_MONEY_CI=ALPHA_MONEY_CI, WAVE_CI=BETA_MONEY_CI,MTN_MONEY_CI=GAMMA",
    )])
    .unwrap();
    assert_eq!(c.operator_aliases, brands);
    assert!(
        Config::default().operator_aliases.is_empty(),
        "the reference's codes only"
    );
    let (_dir, path) =
        settings_file("[operator_aliases]\nWAVE_CI = \"BETA_CI\"\nORANGE_MONEY_CI = \"ALPHA_MONEY_CI\"\n");
    let c = Config::from_sources(Some(&path), |_| None).unwrap();
    assert_eq!(
        c.operator_aliases.resolve("WAVE_CI").unwrap().operator,
        OperatorCode::Beta
    );
    assert_eq!(
        c.operator_aliases.resolve("ORANGE_MONEY_CI").unwrap().operator,
        OperatorCode::Alpha
    );
    std::fs::write(&path, "operator_aliases = [\"MTN_MONEY_CI=GAMMA_MONEY_CI\"]\n").unwrap();
    let c = Config::from_sources(Some(&path), |_| None).unwrap();
    assert_eq!(
        c.operator_aliases.resolve("MTN_MONEY_CI").unwrap().operator,
        OperatorCode::Gamma
    );
    for bad in [
        "WAVE_CI",
        "WAVE_CI=OMEGA",
        "BETA_CI=ALPHA_MONEY_CI",
        "W=BETA,W=ALPHA",
        "A B=BETA",
    ] {
        let err = from_env(&[("MOMO_OPERATOR_ALIASES", bad)]).unwrap_err().to_string();
        assert!(
            err.contains("MOMO_OPERATOR_ALIASES") && err.contains("ALIAS=CODE"),
            "{bad}: {err}"
        );
    }
}
