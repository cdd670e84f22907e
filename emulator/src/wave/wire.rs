//! Wave's messages, named and spelled as docs.wave.com names them (Checkout API, Payout API,
//! Webhooks): the checkout session and its creation, the payout and its creation, the webhook
//! event, and the `{code, message}` error body.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::{Deserialize, Serialize};

/// `POST /v1/checkout/sessions`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct CreateCheckoutSession {
    /// Gross of fees, a string: `"1000"`.
    pub amount: String,
    pub currency: String,
    pub success_url: String,
    pub error_url: String,
    #[serde(default)]
    pub client_reference: Option<String>,
    /// E.164; only this Wave account may pay.
    #[serde(default)]
    pub restrict_payer_mobile: Option<String>,
    #[serde(default)]
    pub aggregated_merchant_id: Option<String>,
}

/// Why the last payment attempt of a session failed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LastPaymentError {
    pub code: String,
    pub message: String,
}

/// A checkout session. Optional fields are present as `null` until set.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CheckoutSession {
    /// `cos-…`.
    pub id: String,
    pub amount: String,
    /// `open`, `complete` or `expired`.
    pub checkout_status: &'static str,
    pub client_reference: Option<String>,
    pub currency: String,
    pub error_url: String,
    pub last_payment_error: Option<LastPaymentError>,
    pub business_name: String,
    /// `processing`, `cancelled` or `succeeded`.
    pub payment_status: &'static str,
    pub restrict_payer_mobile: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub aggregated_merchant_id: Option<String>,
    pub success_url: String,
    /// Set once paid.
    pub transaction_id: Option<String>,
    pub wave_launch_url: String,
    /// When the session completed or expired; `null` while open.
    pub when_completed: Option<String>,
    pub when_created: String,
    pub when_expires: String,
}

/// `GET /v1/checkout/sessions/search` (sessions) and `GET /v1/payouts/search` (payouts).
#[derive(Debug, Clone, Serialize)]
pub struct SearchResult<T> {
    pub result: Vec<T>,
}

/// `POST /v1/payout`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct CreatePayout {
    pub currency: String,
    /// Net of fees, a string.
    pub receive_amount: String,
    /// E.164.
    pub mobile: String,
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub national_id: Option<String>,
    #[serde(default)]
    pub payment_reason: Option<String>,
    #[serde(default)]
    pub client_reference: Option<String>,
    #[serde(default)]
    pub aggregated_merchant_id: Option<String>,
}

/// Why a payout failed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PayoutError {
    pub error_code: String,
    pub error_message: String,
}

/// A payout.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Payout {
    /// `pt-…`.
    pub id: String,
    pub currency: String,
    pub receive_amount: String,
    pub fee: String,
    pub mobile: String,
    pub name: Option<String>,
    pub national_id: Option<String>,
    pub client_reference: Option<String>,
    pub payment_reason: Option<String>,
    /// `processing`, `succeeded`, `failed` or `reversed`.
    pub status: &'static str,
    /// When the payout request was recorded.
    pub timestamp: String,
    pub payout_error: Option<PayoutError>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub aggregated_merchant_id: Option<String>,
}

/// A webhook: `checkout.session.completed` or `checkout.session.payment_failed`.
#[derive(Debug, Clone, Serialize)]
pub struct Event {
    /// `AE_…`.
    pub id: String,
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub data: CheckoutSession,
}

/// One field a validation error names.
#[derive(Debug, Clone, Serialize)]
pub struct ErrorDetail {
    pub loc: Vec<String>,
    pub msg: String,
}

/// Wave's error body.
#[derive(Debug, Clone, Serialize)]
pub struct WaveError {
    pub code: String,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub details: Option<Vec<ErrorDetail>>,
}

/// An error answer.
pub fn error(status: StatusCode, code: impl Into<String>, message: impl Into<String>) -> Response {
    (
        status,
        Json(WaveError {
            code: code.into(),
            message: message.into(),
            details: None,
        }),
    )
        .into_response()
}

/// 400 `request-validation-error` naming `field`.
pub fn invalid(field: &str, msg: impl Into<String>) -> Response {
    let msg = msg.into();
    let details = vec![ErrorDetail {
        loc: vec![field.to_string()],
        msg: msg.clone(),
    }];
    let body = WaveError {
        code: "request-validation-error".to_string(),
        message: format!("{field}: {msg}"),
        details: Some(details),
    };
    (StatusCode::BAD_REQUEST, Json(body)).into_response()
}
