//! Token buckets: per merchant environment for the API, per API key and per client address for
//! `/v1/auth`. Kept in each process's memory: with several processes behind a load balancer the
//! effective limit is the sum, which is the usual trade for not touching the database on every
//! request.
//!
//! Written here rather than with `governor`: a bucket is a dozen lines, its clock is a
//! parameter (`take(key, now)`), so the tests and the callers decide what time it is, and the
//! memory bound is explicit (`MAX_KEYS`). `governor` would bring a concurrent map and its own
//! clock crate for the same arithmetic.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Buckets that refill at `rate` tokens per second up to `burst`.
pub struct TokenBuckets {
    rate: f64,
    burst: f64,
    buckets: Mutex<HashMap<String, (f64, Instant)>>,
}

/// Bound on remembered keys: full buckets are forgotten when it is reached.
const MAX_KEYS: usize = 100_000;

impl TokenBuckets {
    /// `None` when `rate` is zero: limits are off.
    pub fn new(rate_per_s: f64, burst: f64) -> Option<TokenBuckets> {
        (rate_per_s > 0.0).then(|| TokenBuckets {
            rate: rate_per_s,
            burst: burst.max(1.0),
            buckets: Mutex::new(HashMap::new()),
        })
    }

    /// Takes a token for `key`, or says how long until one is available.
    pub fn take(&self, key: &str, now: Instant) -> Result<(), Duration> {
        let mut buckets = self.buckets.lock().unwrap_or_else(|p| p.into_inner());
        if buckets.len() >= MAX_KEYS {
            let (rate, burst) = (self.rate, self.burst);
            buckets.retain(|_, (tokens, at)| *tokens + now.saturating_duration_since(*at).as_secs_f64() * rate < burst);
        }
        let (tokens, at) = buckets.entry(key.to_owned()).or_insert((self.burst, now));
        *tokens = (*tokens + now.saturating_duration_since(*at).as_secs_f64() * self.rate).min(self.burst);
        *at = now;
        if *tokens >= 1.0 {
            *tokens -= 1.0;
            Ok(())
        } else {
            Err(Duration::from_secs_f64((1.0 - *tokens) / self.rate))
        }
    }
}

/// Every limit the HTTP layer applies.
pub struct RateLimits {
    pub api: Option<TokenBuckets>,
    pub auth_per_key: Option<TokenBuckets>,
    pub auth_per_address: Option<TokenBuckets>,
}

impl RateLimits {
    pub fn new(api_per_s: u32, auth_per_min: u32) -> RateLimits {
        let auth = || TokenBuckets::new(auth_per_min as f64 / 60.0, auth_per_min as f64);
        RateLimits {
            api: TokenBuckets::new(api_per_s as f64, 2.0 * api_per_s as f64),
            auth_per_key: auth(),
            auth_per_address: auth(),
        }
    }
}

/// Whole seconds to announce in `Retry-After`: never zero.
pub fn retry_after_seconds(wait: Duration) -> u64 {
    wait.as_secs_f64().ceil().max(1.0) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_burst_passes_then_the_rate_refills() {
        let b = TokenBuckets::new(2.0, 4.0).unwrap();
        let t0 = Instant::now();
        for _ in 0..4 {
            assert!(b.take("m", t0).is_ok());
        }
        let wait = b.take("m", t0).unwrap_err();
        assert!(wait <= Duration::from_millis(500) && wait > Duration::ZERO);
        assert!(b.take("other", t0).is_ok(), "keys are independent");
        assert!(
            b.take("m", t0 + Duration::from_millis(500)).is_ok(),
            "one token after half a second"
        );
        assert!(b.take("m", t0 + Duration::from_millis(500)).is_err());
        assert_eq!(retry_after_seconds(Duration::from_millis(10)), 1);
        assert!(TokenBuckets::new(0.0, 0.0).is_none(), "zero turns it off");
    }
}
