//! A MoMo callback: the status object the operator PUTs (or POSTs) to `X-Callback-Url`, once,
//! with no signature and no retry. The gateway authenticates it by a secret of its own in the
//! callback URL, reads our `ref` from `externalId`, and then asks the operator for the status
//! before settling anything: the body is a hint, the status lookup is the answer.
//!
//! The secret in the URL is the route's own ([`route_token`]): derived from one configured
//! secret and the route's name, so a token seen on one route (say a Sandbox URL in a test
//! log) is worth nothing on another, and one setting still serves them all.

use hmac::{Hmac, Mac};
use sha2::Sha256;

use super::wire::PaymentResult;
use crate::domain::{Environment, OperatorCode};
use crate::operator::{same_secret, CallbackRejected, CallbackRequest};

/// The callback token of `operator` in `environment` under `secret`: the hex of
/// HMAC-SHA256(secret, "OPERATOR:Environment"), e.g. over `ALPHA:Production`.
pub fn route_token(secret: &str, operator: OperatorCode, environment: Environment) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).expect("HMAC takes a key of any length");
    mac.update(format!("{}:{environment}", operator.name()).as_bytes());
    hex::encode(mac.finalize().into_bytes())
}

/// Authenticates a callback by its `token` (one of `accepted`, compared in constant time) and
/// reads which payment (our `ref`) it is about.
pub fn verify(accepted: &[String], request: &CallbackRequest<'_>) -> Result<String, CallbackRejected> {
    if accepted.is_empty() {
        return Err(CallbackRejected::Unsupported);
    }
    let presented = request.token.unwrap_or_default();
    // Every token is compared, so the time taken does not tell which one came close.
    let matches = accepted
        .iter()
        .fold(false, |found, token| same_secret(presented, token) | found);
    if request.token.is_none() || !matches {
        return Err(CallbackRejected::Unauthenticated("wrong or missing token".into()));
    }
    parse(request.body)
        .map(|c| c.reference)
        .map_err(CallbackRejected::Malformed)
}

/// What a callback names.
#[derive(Debug)]
pub struct MomoCallback {
    /// Our `ref` (`externalId`).
    pub reference: String,
    pub status: String,
}

/// Reads a callback body; the error says what is wrong with it.
pub fn parse(body: &[u8]) -> Result<MomoCallback, String> {
    let result: PaymentResult = serde_json::from_slice(body).map_err(|e| format!("not a MoMo status object: {e}"))?;
    let reference = result
        .external_id
        .filter(|id| !id.is_empty())
        .ok_or_else(|| "no externalId".to_owned())?;
    Ok(MomoCallback {
        reference,
        status: result.status,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_callback_names_our_reference() {
        let c =
            parse(br#"{"amount":"1500","currency":"XOF","externalId":"ABCDEFGHIJ","status":"SUCCESSFUL"}"#).unwrap();
        assert_eq!((c.reference.as_str(), c.status.as_str()), ("ABCDEFGHIJ", "SUCCESSFUL"));
        assert!(parse(b"{}").is_err());
        assert!(parse(b"not json").is_err());
        assert!(parse(br#"{"status":"SUCCESSFUL","externalId":""}"#).is_err());
    }

    #[test]
    fn each_route_has_its_own_token_from_one_secret() {
        use Environment::{Production, Sandbox};
        let token = |o, e| route_token("one-secret-for-every-route", o, e);
        let alpha = token(OperatorCode::Alpha, Production);
        assert_eq!(alpha.len(), 64);
        assert!(alpha.bytes().all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase()));
        assert_eq!(alpha, token(OperatorCode::Alpha, Production), "the same every time");
        assert_ne!(alpha, token(OperatorCode::Alpha, Sandbox));
        assert_ne!(alpha, token(OperatorCode::Gamma, Production));
        assert_ne!(
            alpha,
            route_token("another-secret-entirely", OperatorCode::Alpha, Production)
        );
    }

    #[test]
    fn any_accepted_token_authenticates_and_nothing_else_does() {
        let body = br#"{"amount":"1500","currency":"XOF","externalId":"ABCDEFGHIJ","status":"SUCCESSFUL"}"#;
        let accepted = ["current-route-token".to_owned(), "previous-route-token".to_owned()];
        let with = |token: Option<&'static str>| CallbackRequest {
            token,
            signature: None,
            body,
            now: crate::domain::Timestamp::from_millis(0),
        };
        for token in ["current-route-token", "previous-route-token"] {
            assert_eq!(verify(&accepted, &with(Some(token))), Ok("ABCDEFGHIJ".into()));
        }
        for token in [None, Some(""), Some("current-route-toke"), Some("xurrent-route-token")] {
            let refused = verify(&accepted, &with(token));
            assert!(
                matches!(refused, Err(CallbackRejected::Unauthenticated(_))),
                "{token:?}"
            );
        }
        assert_eq!(verify(&[], &with(Some(""))), Err(CallbackRejected::Unsupported));
    }
}
