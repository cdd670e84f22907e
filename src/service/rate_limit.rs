//! Token buckets: per merchant environment for the API, and for sign-in (`/v1/auth`, the
//! dashboard's) per client address and per API key and address. Kept in each process's memory: with several processes behind a load balancer the
//! effective limit is the sum, which is the usual trade for not touching the database on every
//! request.
//!
//! Written here rather than with `governor`: a bucket is a dozen lines, its clock is a
//! parameter (`take(key, now)`), so the tests and the callers decide what time it is, and the
//! memory bound is explicit (`MAX_KEYS`). `governor` would bring a concurrent map and its own
//! clock crate for the same arithmetic.

use std::collections::HashMap;
use std::hash::{BuildHasher, Hash, RandomState};
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Buckets that refill at `rate` tokens per second up to `burst`. A bucket is found by a hash
/// of its key (with this process's random seed), never by the key as sent: a key of any size
/// costs the same few bytes, and no key can be chosen to land on another's bucket.
pub struct TokenBuckets {
    rate: f64,
    burst: f64,
    seed: RandomState,
    buckets: Mutex<HashMap<u64, (f64, Instant)>>,
}

/// Bound on remembered buckets, so the limiter's memory has a fixed ceiling (a few MB): when it
/// is reached, full buckets are forgotten; if none is full, half of them are, so that the map
/// never grows past it whatever the keys sent.
const MAX_KEYS: usize = 100_000;

impl TokenBuckets {
    /// `None` when `rate` is zero: limits are off.
    pub fn new(rate_per_s: f64, burst: f64) -> Option<TokenBuckets> {
        (rate_per_s > 0.0).then(|| TokenBuckets {
            rate: rate_per_s,
            burst: burst.max(1.0),
            seed: RandomState::new(),
            buckets: Mutex::new(HashMap::new()),
        })
    }

    /// Takes a token for `key`, or says how long until one is available.
    pub fn take(&self, key: impl Hash, now: Instant) -> Result<(), Duration> {
        self.with_bucket(key, now, true)
    }

    /// Whether `key` has a token, without taking it; else how long until it has one.
    pub fn check(&self, key: impl Hash, now: Instant) -> Result<(), Duration> {
        self.with_bucket(key, now, false)
    }

    fn with_bucket(&self, key: impl Hash, now: Instant, take: bool) -> Result<(), Duration> {
        let key = self.seed.hash_one(key);
        let mut buckets = self.buckets.lock().unwrap_or_else(|p| p.into_inner());
        if buckets.len() >= MAX_KEYS && !buckets.contains_key(&key) {
            let (rate, burst) = (self.rate, self.burst);
            buckets.retain(|_, (tokens, at)| *tokens + now.saturating_duration_since(*at).as_secs_f64() * rate < burst);
            if buckets.len() >= MAX_KEYS / 2 {
                let keep: Vec<u64> = buckets.keys().copied().take(MAX_KEYS / 2).collect();
                let mut kept = HashMap::with_capacity(MAX_KEYS);
                for k in keep {
                    if let Some(v) = buckets.remove(&k) {
                        kept.insert(k, v);
                    }
                }
                *buckets = kept;
            }
        }
        let (tokens, at) = buckets.entry(key).or_insert((self.burst, now));
        *tokens = (*tokens + now.saturating_duration_since(*at).as_secs_f64() * self.rate).min(self.burst);
        *at = now;
        if *tokens >= 1.0 {
            if take {
                *tokens -= 1.0;
            }
            Ok(())
        } else {
            Err(Duration::from_secs_f64((1.0 - *tokens) / self.rate))
        }
    }

    #[cfg(test)]
    fn remembered(&self) -> usize {
        self.buckets.lock().unwrap().len()
    }
}

/// Sign-in (`/v1/auth`, `/dashboard/login`): every attempt counts against its client address,
/// and only wrong secrets count against the key. Failures are counted per key *and* address,
/// so wrong secrets sent from elsewhere never refuse the merchant's right one; an address that
/// keeps failing, whatever the keys, is slowed, then refused.
pub struct SignInLimits {
    /// Every attempt, per client address.
    attempts: TokenBuckets,
    /// Wrong secrets per API key and address: `failures` at once, then one every
    /// `FAILURE_WINDOW / failures`.
    key_failures: TokenBuckets,
    /// Wrong secrets per address, any keys: ten times as many, refilled over an hour.
    address_failures: TokenBuckets,
}

/// Why a sign-in is not even tried, and for how long.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SignInRefused {
    pub wait: Duration,
    /// The metrics label of the limit that refused it.
    pub limit: &'static str,
}

/// The period over which a key's failures from one address refill.
const FAILURE_WINDOW: Duration = Duration::from_secs(600);

/// The period over which an address's failures refill.
const ADDRESS_FAILURE_WINDOW: Duration = Duration::from_secs(3_600);

impl SignInLimits {
    /// `None` when `attempts_per_min` is zero: sign-in limits are off.
    pub fn new(attempts_per_min: u32, failures: u32) -> Option<SignInLimits> {
        let failures = f64::from(failures.max(1));
        Some(SignInLimits {
            attempts: TokenBuckets::new(f64::from(attempts_per_min) / 60.0, f64::from(attempts_per_min))?,
            key_failures: TokenBuckets::new(failures / FAILURE_WINDOW.as_secs_f64(), failures)?,
            address_failures: TokenBuckets::new(
                10.0 * failures / ADDRESS_FAILURE_WINDOW.as_secs_f64(),
                10.0 * failures,
            )?,
        })
    }

    /// Admits a sign-in with `api_key` from `address` (its own namespace: `scope`), or says
    /// why not and for how long. Charges the address's attempts; the failures are charged by
    /// [`failed`](Self::failed) once the secret is known to be wrong.
    pub fn admit(
        &self,
        scope: &str,
        address: Option<IpAddr>,
        api_key: &str,
        now: Instant,
    ) -> Result<(), SignInRefused> {
        let refused = |limit| move |wait| SignInRefused { wait, limit };
        self.address_failures
            .check((scope, address), now)
            .map_err(refused("auth_address_failures"))?;
        self.key_failures
            .check((scope, address, api_key), now)
            .map_err(refused("auth_key"))?;
        self.attempts
            .take((scope, address), now)
            .map_err(refused("auth_address"))
    }

    /// Counts a wrong key or secret against the key from `address`, and against `address`.
    pub fn failed(&self, scope: &str, address: Option<IpAddr>, api_key: &str, now: Instant) {
        let _ = self.key_failures.take((scope, address, api_key), now);
        let _ = self.address_failures.take((scope, address), now);
    }
}

/// Every limit the HTTP layer applies.
pub struct RateLimits {
    pub api: Option<TokenBuckets>,
    pub sign_in: Option<SignInLimits>,
    /// Payments started through each payment link.
    pub link_payments: Option<TokenBuckets>,
    /// Payments started through payment links from each client address (an IPv6 one by its
    /// /64: [`address_group`]).
    pub link_payers: Option<TokenBuckets>,
    /// Payments asked of each payer number through payment links.
    pub link_numbers: Option<TokenBuckets>,
}

/// The key a client address is limited under: an IPv4 address itself; an IPv6 address its /64,
/// the block one subscriber line or host is given, so that walking its 2^64 addresses gains
/// nothing.
pub fn address_group(address: std::net::IpAddr) -> std::net::IpAddr {
    match address {
        std::net::IpAddr::V4(v4) => std::net::IpAddr::V4(v4),
        std::net::IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => std::net::IpAddr::V4(v4),
            None => std::net::IpAddr::V6(std::net::Ipv6Addr::from(u128::from(v6) & !((1u128 << 64) - 1))),
        },
    }
}

impl RateLimits {
    pub fn new(config: &crate::config::Config) -> RateLimits {
        let per_minute = |n: u32| TokenBuckets::new(f64::from(n) / 60.0, f64::from(n));
        RateLimits {
            api: TokenBuckets::new(config.rate_limit_per_s as f64, 2.0 * config.rate_limit_per_s as f64),
            sign_in: SignInLimits::new(config.auth_rate_limit_per_min, config.sign_in_failures),
            link_payments: per_minute(config.link_payments_per_min),
            link_payers: per_minute(config.link_payments_per_address_per_min),
            link_numbers: TokenBuckets::new(
                f64::from(config.link_payments_per_number_per_hour) / 3600.0,
                f64::from(config.link_payments_per_number_per_hour),
            ),
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
    fn an_ipv6_address_counts_as_its_64_and_ipv4_as_itself() {
        let group = |a: &str| address_group(a.parse().unwrap()).to_string();
        assert_eq!(group("2001:db8:1:2:aaaa::1"), "2001:db8:1:2::");
        assert_eq!(group("2001:db8:1:2:ffff:ffff:ffff:ffff"), "2001:db8:1:2::");
        assert_ne!(group("2001:db8:1:3::1"), group("2001:db8:1:2::1"));
        assert_eq!(group("192.0.2.7"), "192.0.2.7");
        assert_eq!(group("::ffff:192.0.2.7"), "192.0.2.7");
    }

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

    #[test]
    fn the_buckets_memory_has_a_ceiling_whatever_the_keys() {
        let b = TokenBuckets::new(1.0, 2.0).unwrap();
        let t0 = Instant::now();
        for i in 0..(MAX_KEYS + 10_000) {
            let _ = b.take(i, t0);
            let _ = b.take(i, t0);
        }
        assert!(b.remembered() <= MAX_KEYS, "{}", b.remembered());
        let long_key = "k".repeat(64 * 1024);
        assert!(b.take(&long_key, t0).is_ok());
    }

    #[test]
    fn wrong_secrets_from_one_address_never_refuse_the_key_from_another() {
        let limits = SignInLimits::new(600, 10).unwrap();
        let t0 = Instant::now();
        let (attacker, merchant) = (
            Some(IpAddr::from([192, 0, 2, 1])),
            Some(IpAddr::from([198, 51, 100, 7])),
        );
        let mut refused = 0;
        for _ in 0..700 {
            match limits.admit("api", attacker, "pk_live", t0) {
                Ok(()) => limits.failed("api", attacker, "pk_live", t0),
                Err(r) => {
                    assert!(r.wait > Duration::ZERO);
                    refused += 1;
                }
            }
        }
        assert_eq!(refused, 690, "ten tries, then slowed");
        assert!(
            limits.admit("api", merchant, "pk_live", t0).is_ok(),
            "the merchant's own address"
        );
        assert!(
            limits.admit("dashboard", attacker, "pk_live", t0).is_ok(),
            "scopes are apart"
        );
        // Failing with many keys: the address is refused after ten times as many failures.
        let mut failures = 0;
        for key in 0..1_000 {
            if limits.admit("api", merchant, &format!("pk_{key}"), t0).is_ok() {
                limits.failed("api", merchant, &format!("pk_{key}"), t0);
                failures += 1;
            }
        }
        assert_eq!(failures, 100);
        assert_eq!(
            limits.admit("api", merchant, "pk_live", t0).unwrap_err().limit,
            "auth_address_failures"
        );
    }
}
