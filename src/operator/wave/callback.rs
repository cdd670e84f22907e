//! Wave webhooks: authenticated by `Wave-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256>`
//! over `"<t><raw body>"` (no separator) keyed with the webhook secret, as docs.wave.com's
//! webhook security section describes. Several `v1=` may come (during a secret rotation); one
//! match is enough. A timestamp more than five minutes from our clock, either way, is refused,
//! and so is a signature (same `t`, same matching `v1`) accepted before (`replay.rs`): a replay
//! cannot repeat even a hint. The event then names our `ref` in `data.client_reference`.

use hmac::{Hmac, Mac};
use sha2::Sha256;

use super::replay::{SeenSignatures, Signed};
use super::wire::Event;
use crate::operator::{CallbackRejected, CallbackRequest};

/// How far a signature's timestamp may be from our clock, in seconds.
pub const TOLERANCE_S: i64 = 5 * 60;

/// Authenticates a webhook, once, and reads which payment (our `ref`) it is about.
pub fn verify(secret: &str, seen: &SeenSignatures, request: &CallbackRequest<'_>) -> Result<String, CallbackRejected> {
    if secret.is_empty() {
        // An empty HMAC key is one anyone can sign with.
        return Err(CallbackRejected::Unsupported);
    }
    let header = request
        .signature
        .ok_or_else(|| CallbackRejected::Unauthenticated("no Wave-Signature header".into()))?;
    let now = request.now.unix_seconds();
    let signed = check_signature(secret, header, request.body, now).map_err(CallbackRejected::Unauthenticated)?;
    let forget_after = signed.0.saturating_add(TOLERANCE_S);
    seen.first_use(signed, now, forget_after)
        .map_err(CallbackRejected::Unauthenticated)?;
    let event: Event = serde_json::from_slice(request.body)
        .map_err(|e| CallbackRejected::Malformed(format!("not a Wave event: {e}")))?;
    event.data.client_reference.filter(|r| !r.is_empty()).ok_or_else(|| {
        CallbackRejected::Malformed(format!("event {} ({}) names no client_reference", event.id, event.kind))
    })
}

/// Whether `header` signs `body` with `secret` at a time within [`TOLERANCE_S`] of `now`: its
/// `t` and the `v1` that matches when it does.
pub fn check_signature(secret: &str, header: &str, body: &[u8], now: i64) -> Result<Signed, String> {
    let mut timestamp = None;
    let mut signatures = Vec::new();
    for part in header.split(',').map(str::trim) {
        match part.split_once('=') {
            Some(("t", value)) if timestamp.is_none() => {
                timestamp = Some(value.parse::<i64>().map_err(|_| "t= is not a number".to_owned())?)
            }
            Some(("t", _)) => return Err("more than one t=".into()),
            Some(("v1", value)) => signatures.push(value),
            // Other schemes (v0=…) are not ours to check.
            _ => {}
        }
    }
    let timestamp = timestamp.ok_or("no t= in Wave-Signature")?;
    if signatures.is_empty() {
        return Err("no v1= in Wave-Signature".into());
    }
    let age = now.saturating_sub(timestamp);
    if age > TOLERANCE_S {
        return Err(format!("signed {age} s ago: too old"));
    }
    if -age > TOLERANCE_S {
        return Err(format!("signed {} s in the future", -age));
    }
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).map_err(|e| e.to_string())?;
    mac.update(timestamp.to_string().as_bytes());
    mac.update(body);
    // `verify_slice` compares in constant time; each candidate gets a fresh clone.
    signatures
        .into_iter()
        .filter_map(|raw| hex::decode(raw).ok())
        .find(|signature| mac.clone().verify_slice(signature).is_ok())
        .map(|signature| (timestamp, signature))
        .ok_or_else(|| "no v1= signature matches".into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::Timestamp;

    const SECRET: &str = "wave-webhook-secret";
    const NOW: i64 = 1_700_000_000;
    const BODY: &[u8] =
        br#"{"id":"AE_1","type":"checkout.session.completed","data":{"id":"cos-1","client_reference":"ABCDEFGHIJ"}}"#;

    /// Signs independently of `check_signature`: HMAC over the timestamp's digits then the body.
    fn sign(secret: &str, t: i64, body: &[u8]) -> String {
        let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).unwrap();
        mac.update(format!("{t}").as_bytes());
        mac.update(body);
        let hex = hex::encode(mac.finalize().into_bytes());
        format!("t={t},v1={hex}")
    }

    fn at(signature: Option<&str>, body: &[u8], now: i64) -> Result<String, CallbackRejected> {
        let request = CallbackRequest {
            token: None,
            signature,
            body,
            now: Timestamp::from_millis(now * 1000 + 999),
        };
        verify(SECRET, &SeenSignatures::default(), &request)
    }

    fn unauthenticated(result: Result<String, CallbackRejected>) -> bool {
        matches!(result, Err(CallbackRejected::Unauthenticated(_)))
    }

    #[test]
    fn a_signed_event_names_our_reference() {
        assert_eq!(at(Some(&sign(SECRET, NOW, BODY)), BODY, NOW), Ok("ABCDEFGHIJ".into()));
        // Five minutes either way is still fine.
        assert!(at(Some(&sign(SECRET, NOW - 300, BODY)), BODY, NOW).is_ok());
        assert!(at(Some(&sign(SECRET, NOW + 300, BODY)), BODY, NOW).is_ok());
    }

    #[test]
    fn one_matching_v1_among_several_is_enough() {
        let good = sign(SECRET, NOW, BODY);
        let v1 = good.split_once(",v1=").unwrap().1;
        let header = format!("t={NOW}, v1=00ff, v1=zz, v1={v1}");
        assert!(at(Some(&header), BODY, NOW).is_ok());
    }

    #[test]
    fn a_wrong_secret_another_body_or_no_header_is_unauthenticated() {
        assert!(unauthenticated(at(Some(&sign("other", NOW, BODY)), BODY, NOW)));
        let tampered = BODY
            .to_vec()
            .into_iter()
            .map(|b| if b == b'J' { b'K' } else { b })
            .collect::<Vec<_>>();
        assert!(unauthenticated(at(Some(&sign(SECRET, NOW, BODY)), &tampered, NOW)));
        assert!(unauthenticated(at(None, BODY, NOW)));
    }

    #[test]
    fn a_stale_or_future_signature_is_unauthenticated() {
        assert!(unauthenticated(at(Some(&sign(SECRET, NOW - 301, BODY)), BODY, NOW)));
        assert!(unauthenticated(at(Some(&sign(SECRET, NOW + 301, BODY)), BODY, NOW)));
    }

    #[test]
    fn a_header_that_does_not_parse_is_unauthenticated() {
        let v1 = sign(SECRET, NOW, BODY).split_once(",v1=").unwrap().1.to_owned();
        for header in [
            "garbage".to_owned(),
            format!("v1={v1}"),
            format!("t={NOW}"),
            format!("t=soon,v1={v1}"),
            format!("t={NOW},t={NOW},v1={v1}"),
            format!("t={NOW},v1=é{}", &v1[2..]),
        ] {
            assert!(unauthenticated(at(Some(&header), BODY, NOW)), "{header}");
        }
    }

    #[test]
    fn an_authentic_body_that_is_no_event_is_malformed() {
        for body in [
            &b"not json"[..],
            b"{}",
            br#"{"id":"AE_2","type":"x","data":{"client_reference":""}}"#,
        ] {
            let result = at(Some(&sign(SECRET, NOW, body)), body, NOW);
            assert!(matches!(result, Err(CallbackRejected::Malformed(_))), "{result:?}");
        }
    }

    #[test]
    fn without_a_secret_no_webhook_is_accepted() {
        let request = CallbackRequest {
            token: None,
            signature: Some(&sign("", NOW, BODY)),
            body: BODY,
            now: Timestamp::from_millis(NOW * 1000),
        };
        assert_eq!(
            verify("", &SeenSignatures::default(), &request),
            Err(CallbackRejected::Unsupported)
        );
    }

    #[test]
    fn a_signature_accepted_once_is_refused_again_even_among_other_v1() {
        let seen = SeenSignatures::default();
        let verify_once = |header: &str| {
            let request = CallbackRequest {
                token: None,
                signature: Some(header),
                body: BODY,
                now: Timestamp::from_millis(NOW * 1000),
            };
            verify(SECRET, &seen, &request)
        };
        let good = sign(SECRET, NOW, BODY);
        assert_eq!(verify_once(&good), Ok("ABCDEFGHIJ".into()));
        let reshuffled = format!("v1=00ff, {}", good.replace(',', ", "));
        for header in [&good, &reshuffled] {
            assert!(unauthenticated(verify_once(header)), "{header}");
        }
        // The same event signed again at another time (a retry by Wave) is no replay.
        assert!(verify_once(&sign(SECRET, NOW + 1, BODY)).is_ok());
    }
}
