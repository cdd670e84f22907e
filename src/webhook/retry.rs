//! The retry schedule, as data: N delays between attempts, so N + 1 attempts at most.

use std::time::Duration;

/// The longest a receiver's `Retry-After` can hold an event back: a receiver asking for more
/// (or for `u64::MAX` seconds) gets one day, and the schedule goes on from there.
pub const MAX_RETRY_AFTER: Duration = Duration::from_secs(24 * 3600);

/// A receiver's `Retry-After` (RFC 9110): delay-seconds, or an HTTP-date, read as the time
/// left until it at `now` (zero when it has passed). `None` when it is neither.
pub fn retry_after(value: &str, now: time::OffsetDateTime) -> Option<Duration> {
    let value = value.trim();
    if let Ok(seconds) = value.parse::<u64>() {
        return Some(Duration::from_secs(seconds));
    }
    // IMF-fixdate ("Sun, 06 Nov 1994 08:49:37 GMT") is RFC 2822's format with the zone "GMT".
    let at = time::OffsetDateTime::parse(value, &time::format_description::well_known::Rfc2822).ok()?;
    Some(Duration::try_from(at - now).unwrap_or(Duration::ZERO))
}

/// When to try again after a failed attempt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetrySchedule {
    delays: Vec<Duration>,
}

impl RetrySchedule {
    pub fn from_seconds(delays: &[u64]) -> RetrySchedule {
        RetrySchedule::new(delays.iter().map(|s| Duration::from_secs(*s)).collect())
    }

    pub fn new(delays: Vec<Duration>) -> RetrySchedule {
        RetrySchedule { delays }
    }

    /// The most attempts an event gets.
    pub fn max_attempts(&self) -> u32 {
        self.delays.len() as u32 + 1
    }

    /// The wait after failed attempt number `attempt` (1-based), or `None` when it was the
    /// last. `jitter` in `[0, 1)` stretches the delay by up to 20 %; a `Retry-After` is a
    /// minimum, never shortened below the schedule, and capped at [`MAX_RETRY_AFTER`].
    pub fn delay_after(&self, attempt: u32, jitter: f64, retry_after: Option<Duration>) -> Option<Duration> {
        let base = *self.delays.get(attempt.checked_sub(1)? as usize)?;
        let stretched = base.mul_f64(1.0 + 0.2 * jitter.clamp(0.0, 1.0));
        Some(match retry_after {
            Some(minimum) => stretched.max(minimum.min(MAX_RETRY_AFTER)),
            None => stretched,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_schedule_spans_about_three_days_in_ten_attempts() {
        let s = RetrySchedule::new(crate::config::Config::default().webhook.retry_schedule);
        assert_eq!(s.max_attempts(), 10);
        let total: Duration = (1..10).map(|a| s.delay_after(a, 0.0, None).unwrap()).sum();
        assert_eq!(
            total.as_secs(),
            5 + 300 + 1_800 + 7_200 + 18_000 + 36_000 + 50_400 + 72_000 + 86_400
        );
        assert!(total.as_secs() > 3 * 86_400 - 7 * 3600 && total.as_secs() < 4 * 86_400);
        assert_eq!(s.delay_after(10, 0.0, None), None, "the tenth attempt was the last");
    }

    #[test]
    fn retry_after_is_seconds_or_an_http_date() {
        let now = time::macros::datetime!(2026-11-23 12:00:00 UTC);
        assert_eq!(retry_after(" 120 ", now), Some(Duration::from_secs(120)));
        assert_eq!(
            retry_after("Mon, 23 Nov 2026 12:05:00 GMT", now),
            Some(Duration::from_secs(300))
        );
        assert_eq!(
            retry_after("Mon, 23 Nov 2026 11:00:00 GMT", now),
            Some(Duration::ZERO),
            "passed"
        );
        for junk in ["", "soon", "-5", "1.5", "Mon, 99 Nov 2026 12:05:00 GMT"] {
            assert_eq!(retry_after(junk, now), None, "{junk:?}");
        }
    }

    #[test]
    fn jitter_stretches_by_at_most_a_fifth_and_retry_after_is_a_minimum() {
        let s = RetrySchedule::from_seconds(&[100]);
        assert_eq!(s.delay_after(1, 0.0, None), Some(Duration::from_secs(100)));
        assert_eq!(s.delay_after(1, 0.999_999, None).unwrap().as_secs(), 119);
        assert_eq!(
            s.delay_after(1, 0.5, Some(Duration::from_secs(3_600))),
            Some(Duration::from_secs(3_600))
        );
        assert_eq!(
            s.delay_after(1, 0.0, Some(Duration::from_secs(10))),
            Some(Duration::from_secs(100))
        );
        assert_eq!(
            s.delay_after(1, 0.0, Some(Duration::from_secs(u64::MAX))),
            Some(MAX_RETRY_AFTER),
            "a receiver cannot hold an event back for more than a day"
        );
        let long = RetrySchedule::from_seconds(&[7 * 86_400]);
        assert_eq!(
            long.delay_after(1, 0.0, Some(Duration::from_secs(u64::MAX))),
            Some(Duration::from_secs(7 * 86_400)),
            "the cap never shortens the schedule"
        );
        assert_eq!(s.delay_after(0, 0.0, None), None);
        assert_eq!(RetrySchedule::from_seconds(&[]).max_attempts(), 1);
    }
}
