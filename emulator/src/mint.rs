//! The identifiers and timestamps the emulator makes up, in the shapes the real operators use:
//! Wave's `cos-…` sessions, `pt-…` payouts, `AE_…` events and `T…` transaction ids, MoMo's
//! numeric `financialTransactionId`, opaque access tokens, and RFC 3339 UTC times to the second.

use rand::distributions::{Alphanumeric, Distribution, Uniform};
use rand::Rng;
use time::format_description::well_known::Rfc3339;
use time::OffsetDateTime;

/// `len` random characters from `alphabet`.
fn pick(alphabet: &[u8], len: usize) -> String {
    let mut rng = rand::thread_rng();
    let index = Uniform::from(0..alphabet.len());
    (0..len).map(|_| alphabet[index.sample(&mut rng)] as char).collect()
}

const LOWER: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789";
const UPPER: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

/// A Wave checkout session id, like `cos-1ya2rewh0139m`.
pub fn checkout_id() -> String {
    format!("cos-{}", pick(LOWER, 13))
}

/// A Wave payout id, like `pt-185sewgm8100t`.
pub fn payout_id() -> String {
    format!("pt-{}", pick(LOWER, 13))
}

/// A Wave webhook event id, like `AE_ci_H1N-vRZsWyU1`.
pub fn event_id() -> String {
    format!(
        "AE_ci_{}",
        rand::thread_rng()
            .sample_iter(&Alphanumeric)
            .take(12)
            .map(char::from)
            .collect::<String>()
    )
}

/// A Wave transaction id, visible in the payer's app, like `TRG7XHH6UNR2SOACI`.
pub fn wave_transaction_id() -> String {
    format!("T{}", pick(UPPER, 16))
}

/// A MoMo `financialTransactionId`: digits only.
pub fn financial_transaction_id() -> String {
    let first = rand::thread_rng().gen_range(1..10);
    format!("{first}{}", pick(b"0123456789", 8))
}

/// An opaque bearer token (the real one is a JWT; clients must not read it).
pub fn access_token() -> String {
    rand::thread_rng()
        .sample_iter(&Alphanumeric)
        .take(48)
        .map(char::from)
        .collect()
}

/// Now, to the second, in UTC.
pub fn now() -> OffsetDateTime {
    let now = OffsetDateTime::now_utc();
    now.replace_nanosecond(0).unwrap_or(now)
}

/// `2025-06-25T16:55:44Z`.
pub fn rfc3339(at: OffsetDateTime) -> String {
    at.replace_nanosecond(0)
        .unwrap_or(at)
        .format(&Rfc3339)
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_have_the_operators_shapes() {
        assert!(checkout_id().starts_with("cos-") && checkout_id().len() == 17);
        assert!(payout_id().starts_with("pt-") && payout_id().len() == 16);
        assert!(financial_transaction_id().chars().all(|c| c.is_ascii_digit()));
        assert_eq!(
            rfc3339(time::macros::datetime!(2025-06-25 16:55:44.5 UTC)),
            "2025-06-25T16:55:44Z"
        );
    }
}
