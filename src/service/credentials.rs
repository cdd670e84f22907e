//! API keys and secrets: generated at random, shown once, stored as a keyed hash.

use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use base64::Engine;
use hmac::{Hmac, Mac};
use rand::RngCore;
use sha2::Sha256;

use crate::domain::{Credential, CredentialId, Environment, MerchantId, Timestamp};

type HmacSha256 = Hmac<Sha256>;

/// A new credential and the secret that only its creator will ever see.
pub struct IssuedCredential {
    pub credential: Credential,
    pub api_secret: String,
}

fn random_bytes<const N: usize>() -> [u8; N] {
    let mut bytes = [0u8; N];
    rand::thread_rng().fill_bytes(&mut bytes);
    bytes
}

/// Random text for identifiers and secrets: URL-safe base64 of `N` random bytes.
pub fn random_token<const N: usize>() -> String {
    URL_SAFE_NO_PAD.encode(random_bytes::<N>())
}

/// The keyed hash under which a secret is stored.
pub fn secret_hash(pepper: &[u8], secret: &str) -> Vec<u8> {
    let mut mac = HmacSha256::new_from_slice(pepper).expect("HMAC takes keys of any length");
    mac.update(secret.as_bytes());
    mac.finalize().into_bytes().to_vec()
}

/// Compares a presented secret with the stored hash in constant time.
pub fn secret_matches(pepper: &[u8], secret: &str, stored_hash: &[u8]) -> bool {
    let mut mac = HmacSha256::new_from_slice(pepper).expect("HMAC takes keys of any length");
    mac.update(secret.as_bytes());
    mac.verify_slice(stored_hash).is_ok()
}

/// Generates a key and a 32-byte secret for one merchant environment.
pub fn issue(pepper: &[u8], merchant_id: &MerchantId, environment: Environment, now: Timestamp) -> IssuedCredential {
    let prefix = environment.key_prefix();
    let api_key = format!("pk_{prefix}_{}", hex::encode(random_bytes::<12>()));
    let api_secret = format!("sk_{prefix}_{}", random_token::<32>());
    IssuedCredential {
        credential: Credential {
            id: CredentialId::from(uuid::Uuid::new_v4().to_string()),
            merchant_id: merchant_id.clone(),
            environment,
            api_key,
            secret_hash: secret_hash(pepper, &api_secret),
            created_at: now,
            revoked_at: None,
        },
        api_secret,
    }
}

/// A Standard Webhooks signing secret: `whsec_` and the base64 of 32 random bytes.
pub fn webhook_secret() -> String {
    format!("whsec_{}", STANDARD.encode(random_bytes::<32>()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_secret_matches_only_its_own_hash_under_the_same_pepper() {
        let issued = issue(b"pepper", &MerchantId::from("m"), Environment::Sandbox, Timestamp(0));
        let hash = &issued.credential.secret_hash;
        assert!(secret_matches(b"pepper", &issued.api_secret, hash));
        assert!(!secret_matches(b"pepper", "sk_sandbox_guess", hash));
        assert!(!secret_matches(b"other", &issued.api_secret, hash));
        assert!(issued.credential.api_key.starts_with("pk_sandbox_"));
        assert!(issued.api_secret.len() >= 43 + 11, "32 random bytes at least");
    }

    #[test]
    fn webhook_secrets_decode_to_32_bytes() {
        let secret = webhook_secret();
        let raw = STANDARD.decode(secret.strip_prefix("whsec_").unwrap()).unwrap();
        assert_eq!(raw.len(), 32);
    }
}
