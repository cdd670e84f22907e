//! `wave-checkout`: Wave's Checkout API (collections), Payout API (transfers) and webhooks, as
//! docs.wave.com describes them, as a connector behind the [`Operator`] trait.
//!
//! - A collection is a hosted checkout session restricted to the payer's number; the payer
//!   approves it in the Wave app. A transfer is a payout to a number. A refund gives a paid
//!   session back in full (`refund.rs`).
//! - Nothing of Wave's needs storing: our `ref` travels as `client_reference`, and a status
//!   lookup searches by it (`…/search?client_reference=`). An empty search means Wave never
//!   received the payment ([`OperatorAnswer::NotReceived`]).
//! - The transaction's internal id (a UUID v4 stored with the `PENDING` row before any call) is
//!   the `idempotency-key` of both creations, so a resend after a crash or an ambiguous answer
//!   finds the first payment instead of making a second one.
//! - Outcomes: a refused connection never reached Wave (transient); a timeout, a reset, a 5xx
//!   or a 409 after sending may have executed (ambiguous: the payment stays `PENDING` for the
//!   reconciler); other 4xx refuse the payment (nothing happened).
//! - Anything Wave answers that does not add up (an unknown status, another amount or currency
//!   than we sent, malformed JSON) is ambiguous and never settles anything.

pub mod callback;
pub mod replay;
pub mod wire;

mod checkout;
mod payout;
mod refund;

#[cfg(test)]
mod tests;

use std::time::Duration;

use async_trait::async_trait;
use reqwest::StatusCode;

use super::http::{self, read, Answer};
use super::{
    BadAnswer, CallbackRejected, CallbackRequest, Operator, OperatorAnswer, OperatorError, OperatorRequest, RefundOf,
};
use crate::domain::{Amount, Msisdn, Timestamp, Transaction};
use wire::WaveError;

/// Where and how to reach Wave. `Debug` hides the secrets.
#[derive(Clone)]
pub struct WaveSettings {
    /// `https://api.wave.com`, or the emulator's address.
    pub base_url: String,
    /// `Authorization: Bearer` on every call; bound to one business wallet.
    pub api_key: String,
    /// The key of the `Wave-Signature` HMAC on webhooks; empty refuses every webhook.
    pub webhook_secret: String,
    /// For each call, connection to last byte.
    pub timeout: Duration,
    /// The most of an answer that is read (`MOMO_OPERATOR_MAX_ANSWER_BYTES`).
    pub max_answer_bytes: usize,
    /// Where the payer's browser goes after paying, when the transaction names no URL of its
    /// own (Wave requires one).
    pub success_url_fallback: String,
    /// Where it goes after a failed attempt, likewise.
    pub error_url_fallback: String,
}

impl std::fmt::Debug for WaveSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WaveSettings")
            .field("base_url", &self.base_url)
            .field("api_key", &"[redacted]")
            .field("webhook_secret", &"[redacted]")
            .field("timeout", &self.timeout)
            .field("success_url_fallback", &self.success_url_fallback)
            .field("error_url_fallback", &self.error_url_fallback)
            .finish()
    }
}

/// The connector.
pub struct WaveConnector {
    settings: WaveSettings,
    http: reqwest::Client,
    /// The webhook signatures accepted lately: each is accepted once.
    seen: replay::SeenSignatures,
}

impl WaveConnector {
    pub fn new(settings: WaveSettings) -> Result<WaveConnector, reqwest::Error> {
        let http = http::client(settings.timeout)?;
        Ok(WaveConnector {
            settings,
            http,
            seen: replay::SeenSignatures::default(),
        })
    }

    fn url(&self, path: &str) -> String {
        http::url(&self.settings.base_url, path)
    }

    /// Sends `request` with the API key and reads the whole answer.
    async fn send(&self, request: reqwest::RequestBuilder) -> Result<Answer, OperatorError> {
        let request = request.bearer_auth(&self.settings.api_key);
        http::exchange(request, self.settings.max_answer_bytes).await
    }
}

/// Why a creation (session or payout) that did not answer 200 failed.
fn refused(what: &str, answer: &Answer) -> OperatorError {
    let status = answer.status;
    let error: WaveError = serde_json::from_slice(&answer.body).unwrap_or_default();
    let detail = format!("{what} answered {status}: {}", error.describe());
    // `idempotency-mismatch`: a payment already exists under this key with another body (a
    // fallback URL changed between a crash and the resend). It may be executing, so this must
    // not fail the transaction; the status lookup will find it.
    if status == StatusCode::CONFLICT {
        return OperatorError::Ambiguous(detail);
    }
    WAVE.refusal(status, detail)
}

const WAVE: http::Refuser = http::Refuser {
    operator: "Wave",
    keys: "the Wave API key and its permissions",
};

/// A lookup (search, expire) that did not answer 200: nothing can be concluded from it.
fn lookup_failed(what: &str, answer: &Answer) -> OperatorError {
    http::inconclusive(refused(what, answer))
}

/// Checks that Wave speaks of what we sent: `amount` francs in XOF.
fn check_sent(what: &str, amount: &str, currency: &str, sent: i64) -> Result<(), OperatorError> {
    let mismatch = |kind: BadAnswer, detail: String| {
        Err(OperatorError::bad_answer(
            kind,
            format!("{what} does not match what we sent: {detail}"),
        ))
    };
    if Amount::parse_text(amount).map(Amount::francs) != Ok(sent) {
        return mismatch(BadAnswer::AmountMismatch, format!("amount {amount:?}, sent {sent}"));
    }
    if currency != "XOF" {
        return mismatch(BadAnswer::CurrencyMismatch, format!("currency {currency:?}, sent XOF"));
    }
    Ok(())
}

/// A national number in the E.164 form Wave takes (`+2250700000001`).
fn e164(phone: &Msisdn) -> String {
    format!("+225{}", phone.as_str())
}

#[async_trait]
impl Operator for WaveConnector {
    /// ALPHA's one-time code has no place in either Wave call and is not sent: a Wave payer
    /// approves in the Wave app (docs/operators.md). The merchant's return URLs go with the
    /// session when the collection gave them, else the fallbacks.
    async fn collect(&self, r: &OperatorRequest<'_>) -> Result<OperatorAnswer, OperatorError> {
        let urls = r.return_urls();
        let (success, error) = (
            urls.and_then(|u| u.success.as_deref()),
            urls.and_then(|u| u.error.as_deref()),
        );
        self.create_session(r, success, error).await
    }

    async fn transfer(&self, r: &OperatorRequest<'_>) -> Result<OperatorAnswer, OperatorError> {
        self.create_payout(r).await
    }

    async fn refund(&self, r: &OperatorRequest<'_>, collection: RefundOf<'_>) -> Result<OperatorAnswer, OperatorError> {
        self.give_back(r, collection).await
    }

    /// Wave refunds a checkout session only in full (`refund.rs`).
    fn refunds_in_part(&self) -> bool {
        false
    }

    /// Expires the collection's open session. `Ok` when there is nothing left to pay (no
    /// session, or expired); an error means "do not expire it now": `Ambiguous` when the payer
    /// paid first (ask for the status: it is `Succeeded`) or the outcome is unknown,
    /// `Transient` when nothing reached Wave. A payout cannot be cancelled.
    async fn cancel(&self, t: &Transaction) -> Result<(), OperatorError> {
        match t.purpose.collection() {
            Some(_) => self.expire_sessions(t).await,
            None => Ok(()),
        }
    }

    async fn collection_status(&self, t: &Transaction, _now: Timestamp) -> Result<OperatorAnswer, OperatorError> {
        self.session_status(t).await
    }

    async fn transfer_status(&self, t: &Transaction, _now: Timestamp) -> Result<OperatorAnswer, OperatorError> {
        self.payout_status(t).await
    }

    async fn refund_status(&self, t: &Transaction, _now: Timestamp) -> Result<OperatorAnswer, OperatorError> {
        self.session_refund_status(t).await
    }

    fn verify_callback(&self, request: &CallbackRequest<'_>) -> Result<String, CallbackRejected> {
        callback::verify(&self.settings.webhook_secret, &self.seen, request)
    }

    fn callback(&self, _: &Transaction, _: Timestamp) -> Option<OperatorAnswer> {
        // Webhooks arrive over HTTP (`verify_callback`), never made up here.
        None
    }
}
