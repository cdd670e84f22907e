//! PayDunya's messages as its public documentation (developers.paydunya.com: checkout invoice,
//! SOFTPAY, disbursement API v2, IPN) and its open-source clients name them, from the caller's
//! side: what we send, and the fields we read from what PayDunya answers. Fields we do not read
//! are ignored; a field we read that is missing or of another type fails the parse, and the
//! connector never settles on it.

use serde::{Deserialize, Serialize};

/// `POST /api/v1/checkout-invoice/create`: `invoice` and `store` are required.
#[derive(Debug, Serialize)]
pub struct CreateInvoice<'a> {
    pub invoice: InvoiceBody<'a>,
    pub store: Store<'a>,
    /// Given back by the confirmation and the notification: our `ref` and key.
    pub custom_data: CustomData<'a>,
    pub actions: Actions<'a>,
}

#[derive(Debug, Serialize)]
pub struct InvoiceBody<'a> {
    /// Whole francs: XOF has no minor unit.
    pub total_amount: i64,
    pub description: &'a str,
}

#[derive(Debug, Serialize)]
pub struct Store<'a> {
    pub name: &'a str,
}

#[derive(Debug, Serialize, Deserialize)]
pub struct CustomData<'a> {
    #[serde(rename = "ref")]
    pub reference: &'a str,
    pub key: &'a str,
}

#[derive(Debug, Serialize)]
pub struct Actions<'a> {
    /// Where PayDunya posts its notification (IPN) about this invoice.
    pub callback_url: &'a str,
}

/// What a creation or a call answers at least: `response_code` `"00"` is success.
#[derive(Debug, Deserialize)]
pub struct Answered {
    pub response_code: String,
    #[serde(default)]
    pub response_text: Option<String>,
    #[serde(default)]
    pub description: Option<String>,
}

impl Answered {
    pub fn is_success(&self) -> bool {
        self.response_code == "00"
    }

    /// What PayDunya said, for a reason or a log line.
    pub fn describe(&self) -> String {
        let text = [self.response_text.as_deref(), self.description.as_deref()]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join(": ");
        format!("response_code {:?} {text}", self.response_code)
    }
}

/// The invoice creation's answer: its token, which SOFTPAY and the confirmation name.
#[derive(Debug, Deserialize)]
pub struct InvoiceCreated {
    #[serde(flatten)]
    pub answered: Answered,
    #[serde(default)]
    pub token: Option<String>,
}

/// SOFTPAY's answer: `success` and a message; Wave's adds the page where the payer approves.
#[derive(Debug, Deserialize)]
pub struct SoftpayAnswer {
    pub success: bool,
    #[serde(default)]
    pub message: Option<String>,
    #[serde(default)]
    pub url: Option<String>,
}

/// `GET /api/v1/checkout-invoice/confirm/{token}`.
#[derive(Debug, Deserialize)]
pub struct Confirmation {
    #[serde(flatten)]
    pub answered: Answered,
    #[serde(default)]
    pub invoice: Option<ConfirmedInvoice>,
    /// `pending`, `completed`, `cancelled` or `failed`.
    #[serde(default)]
    pub status: Option<String>,
    #[serde(default)]
    pub fail_reason: Option<String>,
}

#[derive(Debug, Deserialize)]
pub struct ConfirmedInvoice {
    pub token: String,
    /// A string of whole francs (`"5000"`), or a number.
    pub total_amount: serde_json::Value,
    /// Not in the documented answer; checked when present.
    #[serde(default)]
    pub currency: Option<String>,
}

/// `POST /api/v2/disburse/get-invoice`.
#[derive(Debug, Serialize)]
pub struct DisburseInvoice<'a> {
    /// The recipient's national number (`0700000001`).
    pub account_alias: &'a str,
    pub amount: i64,
    /// The operator's name at PayDunya (`mtn-ci`).
    pub withdraw_mode: &'a str,
    pub callback_url: &'a str,
}

#[derive(Debug, Deserialize)]
pub struct DisburseCreated {
    #[serde(flatten)]
    pub answered: Answered,
    #[serde(default)]
    pub disburse_token: Option<String>,
}

/// `POST /api/v2/disburse/submit-invoice`: the call that moves money.
#[derive(Debug, Serialize)]
pub struct SubmitDisburse<'a> {
    pub disburse_invoice: &'a str,
    /// Our own id for the disbursement: our `ref`, which its notification gives back.
    pub disburse_id: &'a str,
}

/// `POST /api/v2/disburse/check-status`.
#[derive(Debug, Serialize)]
pub struct CheckDisburse<'a> {
    pub disburse_invoice: &'a str,
}

/// A disbursement's state, as the submission and the status check answer it.
#[derive(Debug, Deserialize)]
pub struct DisburseState {
    #[serde(flatten)]
    pub answered: Answered,
    /// `created` (never submitted), `pending`, `success` or `failed`.
    #[serde(default)]
    pub status: Option<String>,
    #[serde(default)]
    pub amount: Option<serde_json::Value>,
    #[serde(default)]
    pub disburse_invoice: Option<String>,
    #[serde(default)]
    pub currency: Option<String>,
}
