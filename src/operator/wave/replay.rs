//! The Wave signatures a connector has accepted, kept as long as their timestamp is within the
//! tolerance (`callback::TOLERANCE_S`): a webhook sent again with the same `t` and `v1` is a
//! replay, refused like a forgery. Past the tolerance the timestamp check refuses it anyway, so
//! nothing older needs remembering.
//!
//! Memory is bounded: an entry is a timestamp and a 32-byte MAC, at most [`MAX_SEEN`] of them.
//! Only an authentic signature gets in, so filling the set takes Wave itself sending that many
//! webhooks within the tolerance; when it is full, new webhooks are refused (Wave retries them,
//! and the reconciler settles their payments meanwhile) rather than forgetting one that could
//! then be replayed.

use std::collections::HashMap;
use std::sync::Mutex;

/// How many accepted signatures are remembered at most.
pub const MAX_SEEN: usize = 100_000;

/// One accepted signature: its `t` and the `v1` that matched.
pub type Signed = (i64, Vec<u8>);

/// The signatures accepted within the tolerance, each with when it may be forgotten.
#[derive(Debug, Default)]
pub struct SeenSignatures {
    seen: Mutex<HashMap<Signed, i64>>,
}

impl SeenSignatures {
    /// Records `signed` as accepted at `now` (unix seconds), to be remembered until
    /// `forget_after`; an error when it was accepted before, or when the set is full.
    pub fn first_use(&self, signed: Signed, now: i64, forget_after: i64) -> Result<(), String> {
        // Nothing under the lock can panic half-way through a change.
        let mut seen = self.seen.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if seen.contains_key(&signed) {
            return Err("this signature was used already: a replay".into());
        }
        if seen.len() >= MAX_SEEN {
            seen.retain(|_, until| *until >= now);
        }
        if seen.len() >= MAX_SEEN {
            return Err("too many recent webhooks to tell a replay; send it again later".into());
        }
        seen.insert(signed, forget_after);
        Ok(())
    }

    /// How many signatures are remembered.
    pub fn len(&self) -> usize {
        self.seen.lock().map(|s| s.len()).unwrap_or_default()
    }

    /// Whether none is.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_signature_is_accepted_once() {
        let seen = SeenSignatures::default();
        assert_eq!(seen.first_use((100, vec![1; 32]), 100, 400), Ok(()));
        assert!(seen.first_use((100, vec![1; 32]), 101, 400).is_err());
        assert_eq!(seen.first_use((101, vec![1; 32]), 101, 401), Ok(()), "another t");
        assert_eq!(seen.first_use((100, vec![2; 32]), 101, 400), Ok(()), "another v1");
    }

    #[test]
    fn the_set_is_bounded_and_forgets_what_the_timestamp_check_refuses_anyway() {
        let seen = SeenSignatures::default();
        for n in 0..MAX_SEEN {
            let mac = (n as u64).to_be_bytes().to_vec();
            seen.first_use((0, mac), 0, 300).unwrap();
        }
        assert!(
            seen.first_use((1, vec![0xff]), 300, 301).is_err(),
            "full, none forgettable"
        );
        assert_eq!(
            seen.first_use((1, vec![0xff]), 301, 601),
            Ok(()),
            "the old ones are let go"
        );
        assert_eq!(seen.len(), 1);
    }
}
