//! PayDunya's notifications (IPN): a form post whose `data[hash]` is the SHA-512 of the
//! merchant's master key, in hex, compared in constant time. The hash is the same for every
//! notification, so it proves only who sent it, not what: the notification is a hint, and the
//! gateway asks the status before settling anything. An invoice's names our `ref` in
//! `data[custom_data][ref]`; a disbursement's in `data[disburse_id]`.

use sha2::{Digest, Sha512};

use crate::operator::{same_secret, CallbackRejected, CallbackRequest};

/// The hash PayDunya's notifications carry for `master_key`.
pub fn hash_of(master_key: &str) -> String {
    hex::encode(Sha512::digest(master_key.as_bytes()))
}

/// Authenticates a notification and reads which payment (our `ref`) it is about.
pub fn verify(expected_hash: &str, request: &CallbackRequest<'_>) -> Result<String, CallbackRejected> {
    let fields: Vec<(String, String)> = serde_urlencoded::from_bytes(request.body).map_err(|_| {
        CallbackRejected::Unauthenticated("not a PayDunya notification (a form with data[hash])".into())
    })?;
    let field = |name: &str| fields.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str());
    let hash = field("data[hash]")
        .ok_or_else(|| CallbackRejected::Unauthenticated("no data[hash] in the notification".into()))?;
    if !same_secret(&hash.to_ascii_lowercase(), expected_hash) {
        return Err(CallbackRejected::Unauthenticated(
            "data[hash] is not the SHA-512 of our master key".into(),
        ));
    }
    field("data[custom_data][ref]")
        .or_else(|| field("data[disburse_id]"))
        .filter(|r| !r.is_empty())
        .map(str::to_owned)
        .ok_or_else(|| {
            CallbackRejected::Malformed("the notification names no data[custom_data][ref] or data[disburse_id]".into())
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::Timestamp;

    fn request(body: &[u8]) -> CallbackRequest<'_> {
        CallbackRequest {
            token: None,
            signature: None,
            body,
            now: Timestamp(0),
        }
    }

    #[test]
    fn the_hash_is_the_hex_sha512_of_the_master_key() {
        // SHA-512("abc"), FIPS 180-2's test vector.
        assert!(hash_of("abc").starts_with("ddaf35a193617aba"));
        assert_eq!(hash_of("abc").len(), 128);
    }

    #[test]
    fn a_notification_is_taken_only_with_the_right_hash() {
        let hash = hash_of("master");
        let good =
            format!("data%5Bhash%5D={hash}&data%5Bstatus%5D=completed&data%5Bcustom_data%5D%5Bref%5D=REF0000001");
        assert_eq!(verify(&hash, &request(good.as_bytes())).unwrap(), "REF0000001");
        let disbursed = format!("data[hash]={hash}&data[disburse_id]=REF0000002");
        assert_eq!(verify(&hash, &request(disbursed.as_bytes())).unwrap(), "REF0000002");
        let wrong = good.replace(&hash[..8], "00000000");
        assert!(matches!(
            verify(&hash, &request(wrong.as_bytes())),
            Err(CallbackRejected::Unauthenticated(_))
        ));
        assert!(matches!(
            verify(&hash, &request(b"data[status]=completed")),
            Err(CallbackRejected::Unauthenticated(_))
        ));
        assert!(matches!(
            verify(&hash, &request(b"{\"json\": true}")),
            Err(CallbackRejected::Unauthenticated(_))
        ));
        let nameless = format!("data[hash]={hash}");
        assert!(matches!(
            verify(&hash, &request(nameless.as_bytes())),
            Err(CallbackRejected::Malformed(_))
        ));
    }
}
