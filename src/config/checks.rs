//! Checks across settings, made once every setting has its value: each one alone is valid, but
//! together they would break a promise.

use std::time::Duration;

use super::{Config, ConfigError};

/// How much longer than one webhook attempt its lease must last: the time to record the batch's
/// results after the slowest attempt, and some clock difference between processes.
pub const LEASE_MARGIN: Duration = Duration::from_secs(5);

/// Every check, in the order their errors are reported.
pub(super) fn consistent(config: &Config) -> Result<(), ConfigError> {
    webhook_lease_outlasts_an_attempt(config)?;
    previous_callback_secret_overlaps_a_current_one(config)
}

/// A previous MoMo callback secret is an overlap during a rotation: alone, it would accept
/// callbacks while our callback URLs carry no token at all.
fn previous_callback_secret_overlaps_a_current_one(config: &Config) -> Result<(), ConfigError> {
    let c = &config.connectors;
    if c.momo_callback_token_previous.is_some() && c.momo_callback_token.is_none() {
        return Err(ConfigError::Inconsistent(
            "MOMO_MOMO_OPENAPI_CALLBACK_TOKEN_PREVIOUS is set without MOMO_MOMO_OPENAPI_CALLBACK_TOKEN: \
             set the new secret there, or unset the previous one"
                .into(),
        ));
    }
    Ok(())
}

/// A delivery whose lease runs out while it is still being sent is claimed and sent again by
/// another dispatcher: a 60 s timeout with a 30 s lease delivers a slow receiver's events twice.
fn webhook_lease_outlasts_an_attempt(config: &Config) -> Result<(), ConfigError> {
    let (lease, timeout) = (config.webhook.lease, config.webhook.timeout);
    if lease >= timeout + LEASE_MARGIN {
        return Ok(());
    }
    let least_lease = (timeout + LEASE_MARGIN).as_millis().div_ceil(1000);
    let most_timeout = lease.saturating_sub(LEASE_MARGIN).as_millis();
    let or_timeout = if most_timeout >= 100 {
        format!(", or lower MOMO_WEBHOOK_TIMEOUT_MS to at most {most_timeout}")
    } else {
        String::new()
    };
    Err(ConfigError::Inconsistent(format!(
        "MOMO_WEBHOOK_LEASE_S ({} s) must exceed MOMO_WEBHOOK_TIMEOUT_MS ({} ms) by at least {} s, or a \
         webhook still being sent when its lease runs out is sent twice: set MOMO_WEBHOOK_LEASE_S to at \
         least {least_lease}{or_timeout}",
        lease.as_secs(),
        timeout.as_millis(),
        LEASE_MARGIN.as_secs(),
    )))
}

#[cfg(test)]
mod tests {
    use super::super::{Config, ConfigError};

    fn from_env(vars: &[(&str, &str)]) -> Result<Config, ConfigError> {
        let vars: Vec<(String, String)> = vars.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        Config::from_sources(None, |name| {
            vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone())
        })
    }

    #[test]
    fn a_previous_callback_secret_needs_a_current_one() {
        let (current, previous) = (
            "MOMO_MOMO_OPENAPI_CALLBACK_TOKEN",
            "MOMO_MOMO_OPENAPI_CALLBACK_TOKEN_PREVIOUS",
        );
        let err = from_env(&[(previous, "the-old-callback-secret")]).unwrap_err();
        assert!(err.to_string().starts_with(previous), "{err}");
        let both = from_env(&[
            (current, "the-new-callback-secret"),
            (previous, "the-old-callback-secret"),
        ])
        .unwrap();
        assert_eq!(
            both.connectors.momo_callback_token_previous.as_deref(),
            Some("the-old-callback-secret")
        );
        assert!(format!("{both:?}").contains("momo_callback_token_previous"));
        assert!(!format!("{both:?}").contains("the-old-callback-secret"), "redacted");
    }
}
