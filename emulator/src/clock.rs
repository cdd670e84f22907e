//! The emulator's clock: the wall clock plus an offset that only grows, moved forward through
//! the admin API (`POST /_emulator/clock`). Everything the emulated operator decides by time
//! reads it: when a payment settles (the Sandbox delay, `approve_after`, a settlement's
//! `after_ms`), when a callback is due (`callback_delay`), when a checkout session expires and
//! an access token runs out, and the times the protocols show. Advancing it makes what falls
//! due by the new time happen at once: statuses change, and the callbacks due are sent (the
//! tasks waiting for them are woken). With no advance it is the wall clock.
//!
//! The wire itself stays on the wall clock: fault latencies and timeouts, the callback client's
//! timeout, and the `t=` of a `Wave-Signature` (a receiver checks it against its own clock).

use std::time::{Duration, Instant};

use time::OffsetDateTime;
use tokio::sync::watch;

/// The emulator's clock.
#[derive(Debug)]
pub struct Clock {
    /// How far ahead of the wall clock it is; watched by the tasks waiting for a due time.
    offset: watch::Sender<Duration>,
}

impl Default for Clock {
    fn default() -> Self {
        Clock {
            offset: watch::Sender::new(Duration::ZERO),
        }
    }
}

impl Clock {
    /// How far ahead of the wall clock the emulator is.
    pub fn offset(&self) -> Duration {
        *self.offset.borrow()
    }

    /// Now, on the emulator's clock, as an instant.
    pub fn now(&self) -> Instant {
        Instant::now() + self.offset()
    }

    /// Now, on the emulator's clock, as a time of day (to the second, UTC).
    pub fn wall(&self) -> OffsetDateTime {
        let now = OffsetDateTime::now_utc() + self.offset();
        now.replace_nanosecond(0).unwrap_or(now)
    }

    /// Moves the clock `by` forward and wakes every task waiting for a due time; the new offset.
    pub fn advance(&self, by: Duration) -> Duration {
        self.offset.send_modify(|offset| *offset = offset.saturating_add(by));
        self.offset()
    }

    /// Waits until `due` on the emulator's clock: its wall-clock time, or sooner when the clock
    /// is advanced past it.
    pub async fn sleep_until(&self, due: Instant) {
        let mut advanced = self.offset.subscribe();
        loop {
            let now = self.now();
            if due <= now {
                return;
            }
            tokio::select! {
                () = tokio::time::sleep(due - now) => {}
                // The sender lives as long as the clock, which outlives this borrow of it.
                _ = advanced.changed() => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_an_advance_it_is_the_wall_clock() {
        let clock = Clock::default();
        let before = Instant::now();
        let now = clock.now();
        assert!(now >= before && now <= Instant::now());
        assert_eq!(clock.offset(), Duration::ZERO);
        let wall = OffsetDateTime::now_utc();
        assert!((clock.wall() - wall).abs() < time::Duration::seconds(2));
    }

    #[test]
    fn an_advance_moves_both_readings_forward_and_adds_up() {
        let clock = Clock::default();
        clock.advance(Duration::from_secs(60));
        assert_eq!(clock.advance(Duration::from_secs(30)), Duration::from_secs(90));
        let wall = Instant::now();
        assert!(clock.now() >= wall + Duration::from_secs(90));
        let ahead = clock.wall() - OffsetDateTime::now_utc();
        assert!(ahead > time::Duration::seconds(88) && ahead < time::Duration::seconds(91));
    }

    #[tokio::test]
    async fn a_sleeper_wakes_when_the_clock_passes_its_due_time() {
        let clock = std::sync::Arc::new(Clock::default());
        let due = clock.now() + Duration::from_secs(3600);
        let sleeper = tokio::spawn({
            let clock = clock.clone();
            async move { clock.sleep_until(due).await }
        });
        clock.advance(Duration::from_secs(1800));
        tokio::task::yield_now().await;
        assert!(!sleeper.is_finished(), "half way: still asleep");
        clock.advance(Duration::from_secs(1800));
        tokio::time::timeout(Duration::from_secs(5), sleeper)
            .await
            .expect("woken by the advance, not by the hour")
            .unwrap();
    }

    #[tokio::test]
    async fn without_an_advance_a_sleeper_waits_its_time() {
        let clock = Clock::default();
        let started = Instant::now();
        clock.sleep_until(clock.now() + Duration::from_millis(60)).await;
        assert!(started.elapsed() >= Duration::from_millis(60));
    }
}
