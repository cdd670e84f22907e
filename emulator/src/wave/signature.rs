//! `Wave-Signature`, as docs.wave.com's webhook security section describes it:
//! `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t><raw body>" keyed with the webhook secret>`, the
//! timestamp and the body concatenated with no separator. A header may carry several `v1=`
//! (during a secret rotation); one match is enough.

use hmac::{Hmac, Mac};
use sha2::Sha256;

fn digest(secret: &str, timestamp: i64, body: &[u8]) -> Hmac<Sha256> {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).expect("HMAC takes keys of any length");
    mac.update(timestamp.to_string().as_bytes());
    mac.update(body);
    mac
}

/// The header value for `body` sent at `timestamp`.
pub fn sign(secret: &str, timestamp: i64, body: &[u8]) -> String {
    format!(
        "t={timestamp},v1={}",
        hex::encode(digest(secret, timestamp, body).finalize().into_bytes())
    )
}

/// Whether `header` signs `body` with `secret`, and its timestamp is within `tolerance_s` of
/// `now` (Unix seconds).
pub fn verify(secret: &str, header: &str, body: &[u8], now: i64, tolerance_s: i64) -> bool {
    let mut timestamp = None;
    let mut signatures = Vec::new();
    for part in header.split(',').map(str::trim) {
        match part.split_once('=') {
            Some(("t", value)) => timestamp = value.parse::<i64>().ok(),
            Some(("v1", value)) => signatures.push(value),
            _ => {}
        }
    }
    let Some(timestamp) = timestamp else {
        return false;
    };
    if (now - timestamp).abs() > tolerance_s {
        return false;
    }
    signatures.into_iter().any(|signature| {
        let Ok(bytes) = hex::decode(signature) else {
            return false;
        };
        digest(secret, timestamp, body).verify_slice(&bytes).is_ok()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_signature_is_the_hmac_of_the_timestamp_then_the_body() {
        let header = sign("whsec", 1_700_000_000, br#"{"id":"AE_1"}"#);
        // Independently: HMAC-SHA256("whsec", "1700000000{\"id\":\"AE_1\"}").
        let mut mac = Hmac::<Sha256>::new_from_slice(b"whsec").unwrap();
        mac.update(br#"1700000000{"id":"AE_1"}"#);
        assert_eq!(
            header,
            format!("t=1700000000,v1={}", hex::encode(mac.finalize().into_bytes()))
        );
        assert!(verify("whsec", &header, br#"{"id":"AE_1"}"#, 1_700_000_100, 300));
    }

    #[test]
    fn a_wrong_secret_body_or_an_old_timestamp_fails() {
        let header = sign("whsec", 1_700_000_000, b"{}");
        assert!(!verify("other", &header, b"{}", 1_700_000_000, 300));
        assert!(!verify("whsec", &header, b"{ }", 1_700_000_000, 300));
        assert!(!verify("whsec", &header, b"{}", 1_700_000_301, 300));
        let (_, v1) = header.split_once(",v1=").unwrap();
        assert!(verify(
            "whsec",
            &format!("t=1700000000,v1=00ff,v1={v1}"),
            b"{}",
            1_700_000_000,
            300
        ));
        assert!(!verify("whsec", "v1=abc", b"{}", 1_700_000_000, 300));
    }
}
