//! The payments whose status a callback is asking the operator for, in this process. Callbacks
//! are hints that anyone holding a valid token or one authentic signature can repeat: without
//! this set, each one would start a status call to the operator, so 1,000 callbacks for one
//! payment would be 1,000 calls. With it, a payment has at most one callback-started check in
//! flight; a callback that comes while it runs asks for one more check afterwards (the first
//! may have asked before the operator settled), never for a second one at once.
//!
//! The set is bounded ([`MAX_CHECKING`]): when it is full, a callback starts no check and the
//! reconciler, which asks about every pending payment anyway, settles the payment.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use crate::domain::TransactionKey;

/// How many payments may have a callback-started check in flight at once.
pub const MAX_CHECKING: usize = 10_000;

/// Payments being checked, each with whether a callback came while it was.
#[derive(Debug, Default)]
pub struct Checking {
    keys: Mutex<HashMap<TransactionKey, Again>>,
}

/// Whether another check is wanted once the running one ends.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct Again(bool);

/// What a callback should do about its payment.
#[derive(Debug)]
pub enum Admission {
    /// Check it: the payment is the caller's until the claim is dropped.
    Check(CheckClaim),
    /// A check is running; it will run once more when it ends.
    AlreadyChecking,
    /// Too many payments are being checked: leave it to the reconciler.
    Full,
}

/// The right to check one payment; dropping it frees the payment for the next callback.
#[derive(Debug)]
pub struct CheckClaim {
    set: Arc<Checking>,
    key: TransactionKey,
}

impl Checking {
    fn keys(&self) -> MutexGuard<'_, HashMap<TransactionKey, Again>> {
        // Nothing runs under the lock that can panic and leave the map half-changed.
        self.keys.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Admits a callback for the payment `key`.
    pub fn admit(self: &Arc<Self>, key: &TransactionKey) -> Admission {
        let mut keys = self.keys();
        if let Some(again) = keys.get_mut(key) {
            *again = Again(true);
            return Admission::AlreadyChecking;
        }
        if keys.len() >= MAX_CHECKING {
            return Admission::Full;
        }
        keys.insert(key.clone(), Again(false));
        Admission::Check(CheckClaim {
            set: self.clone(),
            key: key.clone(),
        })
    }

    /// How many payments are being checked.
    pub fn len(&self) -> usize {
        self.keys().len()
    }

    /// Whether none is.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl CheckClaim {
    /// Whether a callback came since the check began (or since the last call), which asks for
    /// one more check; resets the request.
    pub fn again(&self) -> bool {
        let mut keys = self.set.keys();
        match keys.get_mut(&self.key) {
            Some(again) => std::mem::take(again).0,
            None => false,
        }
    }
}

impl Drop for CheckClaim {
    fn drop(&mut self) {
        self.set.keys().remove(&self.key);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(n: usize) -> TransactionKey {
        TransactionKey::from(format!("key-{n}"))
    }

    #[test]
    fn one_check_per_payment_at_a_time_and_one_more_if_asked_meanwhile() {
        let set = Arc::new(Checking::default());
        let Admission::Check(claim) = set.admit(&key(1)) else {
            panic!("the first callback checks");
        };
        assert!(!claim.again(), "nobody asked yet");
        for _ in 0..1_000 {
            assert!(matches!(set.admit(&key(1)), Admission::AlreadyChecking));
        }
        assert!(
            matches!(set.admit(&key(2)), Admission::Check(_)),
            "another payment is not held up"
        );
        assert!(claim.again(), "callbacks came meanwhile: one more check");
        assert!(!claim.again(), "and only one");
        drop(claim);
        assert!(set.is_empty());
        assert!(matches!(set.admit(&key(1)), Admission::Check(_)), "free again");
    }

    #[test]
    fn a_full_set_admits_no_new_payment() {
        let set = Arc::new(Checking::default());
        let claims: Vec<_> = (0..MAX_CHECKING).map(|n| set.admit(&key(n))).collect();
        assert!(claims.iter().all(|c| matches!(c, Admission::Check(_))));
        assert!(matches!(set.admit(&key(MAX_CHECKING)), Admission::Full));
        assert!(matches!(set.admit(&key(0)), Admission::AlreadyChecking));
        drop(claims);
        assert!(set.is_empty());
    }
}
