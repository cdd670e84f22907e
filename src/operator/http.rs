//! What the connectors that speak HTTP to an operator (MoMo, Wave, PayDunya) share: how their
//! client is built, what a transport error or a refusal means for a payment, and an answer read
//! whole.

use std::time::Duration;

use reqwest::StatusCode;
use serde::de::DeserializeOwned;

use super::{answer, BadAnswer, OperatorError};
use crate::domain::FailureCode;

/// An answer read to its end: reading the body can fail too, after the operator acted.
pub struct Answer {
    pub status: StatusCode,
    pub body: Vec<u8>,
}

/// Sends `request` and reads its whole answer, at most `cap` bytes.
pub async fn exchange(request: reqwest::RequestBuilder, cap: usize) -> Result<Answer, OperatorError> {
    let answer = request.send().await.map_err(transport_error)?;
    let status = answer.status();
    let body = answer::body(answer, cap).await?;
    Ok(Answer { status, body })
}

/// Reads a 200's JSON; a body that does not parse (an HTML page, a cut answer) settles
/// nothing: the operator may have acted.
pub fn read<T: DeserializeOwned>(what: &str, answer: &Answer) -> Result<T, OperatorError> {
    serde_json::from_slice(&answer.body)
        .map_err(|e| OperatorError::bad_answer(BadAnswer::Malformed, format!("malformed answer from {what}: {e}")))
}

/// `path` at the operator's `base_url`, which may be configured with a trailing slash.
pub fn url(base_url: &str, path: &str) -> String {
    format!("{}{path}", base_url.trim_end_matches('/'))
}

/// An operator that checks its keys and rate limits before doing anything, as its refusals
/// name it.
pub struct Refuser {
    /// The operator, as a refusal's reason names it (`Wave`).
    pub operator: &'static str,
    /// What to check when the keys are refused.
    pub keys: &'static str,
}

impl Refuser {
    /// What a call's refusal (`status`, with `detail` saying what was answered) means: a refused
    /// key or rate never reached the payment (transient), another 4xx leaves nothing done, and
    /// a 5xx or anything unexpected (a 3xx: redirects are not followed) may have acted.
    pub fn refusal(&self, status: StatusCode, detail: String) -> OperatorError {
        match status {
            StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN => {
                OperatorError::Transient(format!("{detail}; check {}", self.keys))
            }
            StatusCode::TOO_MANY_REQUESTS => OperatorError::Transient(detail),
            s if s.is_client_error() => OperatorError::Rejected {
                code: FailureCode::OperatorRefused,
                reason: format!("{} refused it: {detail}", self.operator),
            },
            _ => OperatorError::Ambiguous(detail),
        }
    }
}

/// A client whose every call, connection to last byte, ends within `timeout`.
pub fn client(timeout: Duration) -> Result<reqwest::Client, reqwest::Error> {
    reqwest::Client::builder()
        .timeout(timeout)
        .connect_timeout(timeout)
        // A redirect would replay a payment request somewhere we did not choose.
        .redirect(reqwest::redirect::Policy::none())
        // A proxy from the environment would route money around our own checks.
        .no_proxy()
        .user_agent(concat!("momo-gateway/", env!("CARGO_PKG_VERSION")))
        .build()
}

/// A transport error: a refused connection never reached the operator; anything later (a
/// timeout, a reset) may have, and from here a reset before the operator acted looks the same
/// as one after.
pub fn transport_error(e: reqwest::Error) -> OperatorError {
    // Its text names the URL, which reaches logs and may carry a key in its query.
    let e = crate::net::redact_error(e);
    if e.is_connect() {
        OperatorError::Transient(format!("cannot connect: {e}"))
    } else {
        OperatorError::Ambiguous(format!("no answer after sending: {e}"))
    }
}

/// What a lookup's refusal (`refusal`, as a call that moves money would read its answer) says
/// of the payment: nothing. Only a refusal that never reached the operator stays transient.
pub fn inconclusive(refusal: OperatorError) -> OperatorError {
    match refusal {
        OperatorError::Rejected { reason, .. } | OperatorError::Ambiguous(reason) => OperatorError::Ambiguous(reason),
        other @ (OperatorError::Transient(_) | OperatorError::BadAnswer { .. }) => other,
    }
}
