//! Wave's messages as docs.wave.com names them (Checkout API, Payout API, webhooks), from the
//! caller's side: what we send, and the fields we read from what Wave answers. Fields we do not
//! read are ignored, so an addition on Wave's side breaks nothing; a field we read that is
//! missing or of another type fails the parse, and the connector never settles on it.

use serde::{Deserialize, Serialize};

/// `POST /v1/checkout/sessions`. Wave requires both URLs: the payer's browser goes to one of
/// them when the Wave app is done.
#[derive(Debug, Serialize)]
pub struct CreateCheckoutSession<'a> {
    /// Whole francs as a string (`"2500"`): XOF has no minor unit.
    pub amount: String,
    pub currency: &'a str,
    /// Our `ref`: how a status lookup finds the session without storing Wave's id.
    pub client_reference: &'a str,
    /// E.164 (`+2250700000001`): only this Wave account may pay.
    pub restrict_payer_mobile: String,
    pub success_url: &'a str,
    pub error_url: &'a str,
}

/// A checkout session, as creation, retrieval, search and webhooks carry it.
#[derive(Debug, Clone, Deserialize)]
pub struct CheckoutSession {
    /// `cos-…`.
    pub id: String,
    pub amount: String,
    pub currency: String,
    /// `open`, `complete` or `expired`.
    pub checkout_status: String,
    /// `processing`, `succeeded` or `cancelled`.
    pub payment_status: String,
    #[serde(default)]
    pub client_reference: Option<String>,
    /// Why the last attempt failed; the session stays open and the payer may try again.
    #[serde(default)]
    pub last_payment_error: Option<LastPaymentError>,
    /// Where the payer approves (the Wave app or its web page).
    #[serde(default)]
    pub wave_launch_url: Option<String>,
}

/// A failed attempt on a session.
#[derive(Debug, Clone, Deserialize)]
pub struct LastPaymentError {
    #[serde(default)]
    pub code: Option<String>,
    #[serde(default)]
    pub message: Option<String>,
}

/// `GET /v1/checkout/sessions/search` and `GET /v1/payouts/search`: `{"result": [...]}`.
#[derive(Debug, Deserialize)]
pub struct SearchResult<T> {
    pub result: Vec<T>,
}

/// `POST /v1/payout` (with the `idempotency-key` header).
#[derive(Debug, Serialize)]
pub struct CreatePayout<'a> {
    pub currency: &'a str,
    /// What the recipient receives, whole francs as a string; Wave's fee comes on top.
    pub receive_amount: String,
    /// E.164.
    pub mobile: String,
    /// Our `ref`, for `GET /v1/payouts/search`.
    pub client_reference: &'a str,
}

/// A payout.
#[derive(Debug, Clone, Deserialize)]
pub struct Payout {
    /// `pt-…`.
    pub id: String,
    pub currency: String,
    pub receive_amount: String,
    /// `processing`, `succeeded`, `failed` or `reversed`.
    pub status: String,
    #[serde(default)]
    pub client_reference: Option<String>,
    #[serde(default)]
    pub payout_error: Option<PayoutError>,
}

/// Why a payout failed.
#[derive(Debug, Clone, Deserialize)]
pub struct PayoutError {
    #[serde(default)]
    pub error_code: Option<String>,
    #[serde(default)]
    pub error_message: Option<String>,
}

/// Wave's error body: `{"code": "…", "message": "…"}` (validation errors add `details`).
#[derive(Debug, Default, Deserialize)]
pub struct WaveError {
    #[serde(default)]
    pub code: Option<String>,
    #[serde(default)]
    pub message: Option<String>,
}

impl WaveError {
    /// `code: message`, or what there is of it.
    pub fn describe(&self) -> String {
        match (&self.code, &self.message) {
            (Some(code), Some(message)) => format!("{code}: {message}"),
            (Some(text), None) | (None, Some(text)) => text.clone(),
            (None, None) => "no reason given".to_owned(),
        }
    }
}

/// A webhook: `{"id": "AE_…", "type": "checkout.session.completed", "data": {…}}`. Only the
/// data's `client_reference` matters: the gateway asks for the status before settling.
#[derive(Debug, Deserialize)]
pub struct Event {
    pub id: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub data: EventData,
}

/// What an event is about.
#[derive(Debug, Deserialize)]
pub struct EventData {
    #[serde(default)]
    pub client_reference: Option<String>,
}
