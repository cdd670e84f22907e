//! What the connectors that speak HTTP to an operator (MoMo, Wave) share: how their client is
//! built, and what a transport error means for a payment.

use std::time::Duration;

use super::OperatorError;

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
