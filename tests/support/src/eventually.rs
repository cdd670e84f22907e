//! Waiting for what happens on its own time (a process starting, a callback's status check, a
//! delivery), with no fixed pause: [`eventually`] asks again and again, 5 ms apart at first and
//! then up to 200 ms, until the answer comes, and panics after a deadline with what it waited
//! for and what it last saw. Every test binary waits through here, so this is the one place the
//! tests' own code pauses between looks.

use std::fmt::Debug;
use std::time::{Duration, Instant};

/// The first pause between two looks.
const FIRST_PAUSE: Duration = Duration::from_millis(5);
/// The longest pause between two looks.
const LONGEST_PAUSE: Duration = Duration::from_millis(200);

/// Asks `probe` until it answers `Ok`, and returns that; its `Err` says what it saw instead.
/// After `within`, `Err` with the last thing seen.
pub async fn poll<T, E>(within: Duration, mut probe: impl AsyncFnMut() -> Result<T, E>) -> Result<T, E> {
    let deadline = Instant::now() + within;
    let mut pause = FIRST_PAUSE;
    loop {
        let seen = match probe().await {
            Ok(found) => return Ok(found),
            Err(seen) => seen,
        };
        let now = Instant::now();
        if now >= deadline {
            return Err(seen);
        }
        tokio::time::sleep(pause.min(deadline - now)).await;
        pause = (pause * 2).min(LONGEST_PAUSE);
    }
}

/// [`poll`], panicking after `within` with `what` was waited for and what `probe` last saw.
pub async fn eventually<T, E: Debug>(what: &str, within: Duration, probe: impl AsyncFnMut() -> Result<T, E>) -> T {
    match poll(within, probe).await {
        Ok(found) => found,
        Err(seen) => panic!("waited {within:?} for {what}; last seen: {seen:?}"),
    }
}

/// Waits until `condition` holds, panicking after `within` with what was waited for.
pub async fn until(what: &str, within: Duration, mut condition: impl AsyncFnMut() -> bool) {
    eventually(
        what,
        within,
        async || if condition().await { Ok(()) } else { Err("not yet") },
    )
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn it_returns_what_the_probe_found_once_it_finds_it() {
        let mut looks = 0;
        let found = eventually("the third look", Duration::from_secs(5), async || {
            looks += 1;
            if looks == 3 {
                Ok(looks)
            } else {
                Err(looks)
            }
        })
        .await;
        assert_eq!(found, 3);
    }

    #[tokio::test]
    async fn past_the_deadline_poll_gives_what_it_last_saw() {
        let started = Instant::now();
        let last = poll(Duration::from_millis(50), async || Err::<(), _>(started.elapsed())).await;
        assert!(last.unwrap_err() >= Duration::from_millis(50));
    }

    #[tokio::test]
    #[should_panic(expected = "for a condition that never holds; last seen: \"not yet\"")]
    async fn past_the_deadline_until_panics_saying_what_it_waited_for() {
        until("a condition that never holds", Duration::from_millis(20), async || {
            false
        })
        .await;
    }
}
