//! `paydunya`: PayDunya's public API as a connector behind the [`Operator`] trait, for the four
//! operators of Côte d'Ivoire it reaches (ALPHA `orange-money-ci`, BETA `wave-ci`, GAMMA
//! `mtn-ci`, DELTA `moov-ci`). docs/operators.md tells the calls, fields and answers.
//!
//! - A collection is an invoice (`checkout-invoice/create`, whose token [`Operator::prepare`]
//!   hands the gateway to record), then the operator's SOFTPAY call naming that token. ALPHA's
//!   one-time code travels in `orange_money_ci_otp`, and nowhere else. A transfer is a
//!   disbursement invoice (`disburse/get-invoice`, its token recorded likewise), then its
//!   submission.
//! - The recorded token is the payment's name at PayDunya: a status check without one answers
//!   [`OperatorAnswer::NotReceived`] (nothing could have moved). A disbursement whose status
//!   is still `created` was never submitted: not received either, and its one resend submits
//!   the same token, which PayDunya pays once.
//! - Outcomes: a refused connection, refused credentials (401, 403) or a rate limit never
//!   reached anything (transient: a route may fall back); a timeout, a reset or a 5xx after
//!   sending may have moved money (ambiguous: the payment stays `PENDING`); other refusals
//!   leave nothing done. An answer that does not add up (no token, an unknown status, another
//!   amount, currency or token than ours, an HTML page) settles nothing.
//! - PayDunya has no refund call and no account lookup: [`Operator::refunds`] is false, and the
//!   recipient check answers unknown.

mod callback;
mod disburse;
mod invoice;
pub mod wire;

#[cfg(test)]
mod tests;

use std::time::Duration;

use async_trait::async_trait;
use reqwest::StatusCode;

use super::http::{self, read, Answer};
use super::{
    unserved, BadAnswer, CallbackRejected, CallbackRequest, Operator, OperatorAnswer, OperatorError, OperatorRequest,
};
use crate::domain::{Amount, FailureCode, Kind, OperatorCode, Timestamp, Transaction};
use wire::Answered;

/// Where and how to reach PayDunya. `Debug` hides the keys.
#[derive(Clone)]
pub struct PaydunyaSettings {
    /// `https://app.paydunya.com`, or the emulator's address.
    pub base_url: String,
    pub master_key: String,
    pub private_key: String,
    pub token: String,
    /// Where PayDunya notifies us about this route's invoices and disbursements.
    pub callback_url: String,
    /// For each call, connection to last byte.
    pub timeout: Duration,
    /// The most of an answer that is read (`MOMO_OPERATOR_MAX_ANSWER_BYTES`).
    pub max_answer_bytes: usize,
}

impl std::fmt::Debug for PaydunyaSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PaydunyaSettings")
            .field("base_url", &self.base_url)
            .field("master_key", &"[redacted]")
            .field("private_key", &"[redacted]")
            .field("token", &"[redacted]")
            .field("callback_url", &self.callback_url)
            .field("timeout", &self.timeout)
            .finish()
    }
}

/// The connector.
pub struct PaydunyaConnector {
    settings: PaydunyaSettings,
    http: reqwest::Client,
    /// The hash PayDunya's notifications carry: the SHA-512 of the master key, in hex.
    notification_hash: String,
}

/// An operator's name at PayDunya: its SOFTPAY path and its `withdraw_mode`.
pub fn operator_slug(operator: OperatorCode) -> &'static str {
    match operator {
        OperatorCode::Alpha => "orange-money-ci",
        OperatorCode::Beta => "wave-ci",
        OperatorCode::Gamma => "mtn-ci",
        OperatorCode::Delta => "moov-ci",
    }
}

impl PaydunyaConnector {
    pub fn new(settings: PaydunyaSettings) -> Result<PaydunyaConnector, reqwest::Error> {
        let http = http::client(settings.timeout)?;
        let notification_hash = callback::hash_of(&settings.master_key);
        Ok(PaydunyaConnector {
            settings,
            http,
            notification_hash,
        })
    }

    fn url(&self, path: &str) -> String {
        http::url(&self.settings.base_url, path)
    }

    /// Sends `request` with the three keys and reads the whole answer.
    async fn send(&self, request: reqwest::RequestBuilder) -> Result<Answer, OperatorError> {
        let request = request
            .header("PAYDUNYA-MASTER-KEY", &self.settings.master_key)
            .header("PAYDUNYA-PRIVATE-KEY", &self.settings.private_key)
            .header("PAYDUNYA-TOKEN", &self.settings.token);
        http::exchange(request, self.settings.max_answer_bytes).await
    }

    async fn post<T: serde::Serialize + ?Sized>(&self, path: &str, body: &T) -> Result<Answer, OperatorError> {
        self.send(self.http.post(self.url(path)).json(body)).await
    }

    /// Creates at `path` what PayDunya names the payment by, and reads its token. Nothing moves
    /// yet.
    async fn create<T: Created>(
        &self,
        path: &str,
        body: &(impl serde::Serialize + Sync),
    ) -> Result<String, OperatorError> {
        let what = format!("creating the {}", T::NOUN);
        let answer = self.post(path, body).await?;
        if answer.status != StatusCode::OK {
            return Err(refused(&what, &answer));
        }
        let (answered, token) = read::<T>(&what, &answer)?.into_parts();
        if !answered.is_success() {
            return Err(OperatorError::Rejected {
                code: FailureCode::OperatorRefused,
                reason: format!("PayDunya refused the {}: {}", T::NOUN, answered.describe()),
            });
        }
        token
            .filter(|t| !t.is_empty())
            .ok_or_else(|| OperatorError::bad_answer(BadAnswer::Malformed, format!("{what} answered no {}", T::TOKEN)))
    }
}

/// What PayDunya answers the creation of what it names a payment by (an invoice, a
/// disbursement): its verdict, and the token.
trait Created: serde::de::DeserializeOwned {
    /// What is created, as a refusal names it.
    const NOUN: &'static str;
    /// The token's field, as a malformed answer's detail names it.
    const TOKEN: &'static str;
    /// The verdict, and the token where the answer has one.
    fn into_parts(self) -> (Answered, Option<String>);
}

/// Why a call that did not answer 200 failed.
fn refused(what: &str, answer: &Answer) -> OperatorError {
    let status = answer.status;
    let said = serde_json::from_slice::<Answered>(&answer.body)
        .map(|a| a.describe())
        .unwrap_or_else(|_| "no PayDunya answer in the body".to_owned());
    let detail = format!("{what} answered {status}: {said}");
    PAYDUNYA.refusal(status, detail)
}

const PAYDUNYA: http::Refuser = http::Refuser {
    operator: "PayDunya",
    keys: "the PayDunya keys and the application's mode",
};

/// A lookup that did not answer 200: nothing can be concluded from it.
fn lookup_failed(what: &str, answer: &Answer) -> OperatorError {
    http::inconclusive(refused(what, answer))
}

/// Checks that PayDunya speaks of what we sent: `sent` francs, in XOF where it says a currency.
fn check_sent(what: &str, amount: &serde_json::Value, currency: Option<&str>, sent: i64) -> Result<(), OperatorError> {
    let parsed = match amount {
        serde_json::Value::String(text) => Amount::parse_text(text).ok(),
        serde_json::Value::Number(number) => Amount::parse_json_number(&number.to_string()).ok(),
        _ => None,
    };
    if parsed.map(Amount::francs) != Some(sent) {
        return Err(OperatorError::bad_answer(
            BadAnswer::AmountMismatch,
            format!("{what} does not match what we sent: amount {amount}, sent {sent}"),
        ));
    }
    if currency.is_some_and(|c| c != "XOF") {
        return Err(OperatorError::bad_answer(
            BadAnswer::CurrencyMismatch,
            format!("{what} does not match what we sent: currency {currency:?}, sent XOF"),
        ));
    }
    Ok(())
}

/// The token a status check names: without one, nothing was ever asked to move money.
fn recorded_token(t: &Transaction) -> Result<&str, OperatorAnswer> {
    t.carrier.token.as_deref().ok_or(OperatorAnswer::NotReceived)
}

#[async_trait]
impl Operator for PaydunyaConnector {
    /// PayDunya names a collection (its invoice) and a transfer (its disbursement) before
    /// either moves money; it has no call for anything else.
    async fn prepare(&self, r: &OperatorRequest<'_>) -> Result<Option<String>, OperatorError> {
        match r.kind() {
            Kind::Collection => {
                if r.operator == OperatorCode::Alpha && r.otp_code().is_none() {
                    // Sent again after a crash: the code was the payer's, for one attempt.
                    return Err(OperatorError::Rejected {
                        code: FailureCode::NotSent,
                        reason: "ALPHA's one-time code is used once and never stored: the payer must pay again".into(),
                    });
                }
                self.create_invoice(r).await.map(Some)
            }
            Kind::Transfer => self.create_disbursement(r).await.map(Some),
            other => Err(unserved(other)),
        }
    }

    fn prepares(&self) -> bool {
        true
    }

    async fn collect(&self, r: &OperatorRequest<'_>) -> Result<OperatorAnswer, OperatorError> {
        self.softpay(r, prepared(r)?, r.otp_code()).await
    }

    async fn transfer(&self, r: &OperatorRequest<'_>) -> Result<OperatorAnswer, OperatorError> {
        self.submit_disbursement(r, prepared(r)?).await
    }

    async fn collection_status(&self, t: &Transaction, _now: Timestamp) -> Result<OperatorAnswer, OperatorError> {
        match recorded_token(t) {
            Ok(token) => self.confirm(t, token).await,
            Err(never_sent) => Ok(never_sent),
        }
    }

    async fn transfer_status(&self, t: &Transaction, _now: Timestamp) -> Result<OperatorAnswer, OperatorError> {
        match recorded_token(t) {
            Ok(token) => self.disbursement_status(t, token).await,
            Err(never_sent) => Ok(never_sent),
        }
    }

    fn refunds(&self) -> bool {
        false
    }

    /// Orange Money's SOFTPAY debits the payer only with the code they obtained (`#144*82#`).
    fn needs_code(&self, operator: OperatorCode) -> bool {
        operator == OperatorCode::Alpha
    }

    fn verify_callback(&self, request: &CallbackRequest<'_>) -> Result<String, CallbackRejected> {
        callback::verify(&self.notification_hash, request)
    }

    fn callback(&self, _: &Transaction, _: Timestamp) -> Option<OperatorAnswer> {
        // Notifications arrive over HTTP (`verify_callback`), never made up here.
        None
    }
}

/// The token [`Operator::prepare`] named the payment by: money moves only under it.
fn prepared<'a>(r: &OperatorRequest<'a>) -> Result<&'a str, OperatorError> {
    r.token.ok_or_else(|| {
        OperatorError::Ambiguous(format!(
            "{} reached PayDunya's connector without its token: not sent",
            r.reference
        ))
    })
}
