//! Standard Webhooks signatures: `v1,` then the base64 HMAC-SHA256 of `"{id}.{timestamp}.{body}"`,
//! keyed with the decoded bytes of the `whsec_` secret, as the official libraries expect.
//! During a secret rotation's overlap the header carries one signature per secret, separated
//! by spaces, as the specification allows; a receiver accepts the delivery when any verifies.

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use hmac::{Hmac, Mac};
use sha2::Sha256;

/// A signing secret that is not `whsec_` followed by base64.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the webhook signing secret is not whsec_ followed by base64")]
pub struct InvalidSecret;

/// The key bytes of a `whsec_…` secret.
pub fn secret_key(secret: &str) -> Result<Vec<u8>, InvalidSecret> {
    let encoded = secret.strip_prefix("whsec_").unwrap_or(secret);
    STANDARD.decode(encoded).map_err(|_| InvalidSecret)
}

/// The `webhook-signature` header value for one attempt.
pub fn sign(secret: &str, id: &str, timestamp: i64, body: &[u8]) -> Result<String, InvalidSecret> {
    let key = secret_key(secret)?;
    let mut mac = Hmac::<Sha256>::new_from_slice(&key).map_err(|_| InvalidSecret)?;
    mac.update(id.as_bytes());
    mac.update(b".");
    mac.update(timestamp.to_string().as_bytes());
    mac.update(b".");
    mac.update(body);
    Ok(format!("v1,{}", STANDARD.encode(mac.finalize().into_bytes())))
}

/// The `webhook-signature` header value signed with each of `secrets` in turn (the newest
/// first), space-separated.
pub fn sign_all(secrets: &[&str], id: &str, timestamp: i64, body: &[u8]) -> Result<String, InvalidSecret> {
    let signatures = secrets
        .iter()
        .map(|secret| sign(secret, id, timestamp, body))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(signatures.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn several_secrets_give_their_signatures_space_separated_in_order() {
        let (new, old) = (
            "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
            "whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
        );
        let both = sign_all(&[new, old], "msg_1", 1, b"{}").unwrap();
        let expected = format!(
            "{} {}",
            sign(new, "msg_1", 1, b"{}").unwrap(),
            sign(old, "msg_1", 1, b"{}").unwrap()
        );
        assert_eq!(both, expected);
        assert_eq!(
            sign_all(&[new], "msg_1", 1, b"{}").unwrap(),
            sign(new, "msg_1", 1, b"{}").unwrap()
        );
        assert!(sign_all(&[new, "whsec_not base64!"], "msg_1", 1, b"{}").is_err());
    }

    #[test]
    fn the_standard_webhooks_published_test_vector_reproduces_exactly() {
        let signature = sign(
            "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
            "msg_p5jXN8AQM9LWM0D4loKWxJek",
            1_614_265_330,
            br#"{"test": 2432232314}"#,
        )
        .unwrap();
        assert_eq!(signature, "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
    }

    #[test]
    fn any_change_changes_the_signature() {
        let base = sign("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "msg_1", 1, b"{}").unwrap();
        assert_ne!(
            base,
            sign("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "msg_2", 1, b"{}").unwrap()
        );
        assert_ne!(
            base,
            sign("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "msg_1", 2, b"{}").unwrap()
        );
        assert_ne!(
            base,
            sign("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "msg_1", 1, b"{ }").unwrap()
        );
        assert!(sign("whsec_not base64!", "msg_1", 1, b"{}").is_err());
    }
}
