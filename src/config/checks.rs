//! Checks across settings, made once every setting has its value: each one alone is valid, but
//! together they would break a promise.

use std::time::Duration;

use super::{Config, ConfigError};

/// How much longer than one webhook attempt its lease must last: the time to record the batch's
/// results after the slowest attempt, and some clock difference between processes.
pub const LEASE_MARGIN: Duration = Duration::from_secs(5);

/// Every check, in the order their errors are reported.
pub(super) fn consistent(config: &Config) -> Result<(), ConfigError> {
    webhook_lease_outlasts_an_attempt(config)
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
