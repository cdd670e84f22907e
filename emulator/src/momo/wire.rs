//! The MoMo Open API's messages, named and spelled as MTN's documentation names them
//! (momodeveloper.mtn.com, Collection and Disbursement products): `RequestToPay`, `Transfer`,
//! their `…Result`s, `Party`, `ErrorReason`, the token answer, and the API gateway's own 401.

use serde::{Deserialize, Serialize};

/// A payer or payee. `partyIdType` is `MSISDN`, `EMAIL` or `PARTY_CODE`; the emulator serves
/// `MSISDN` only.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Party {
    pub party_id_type: String,
    pub party_id: String,
}

/// `POST /collection/v1_0/requesttopay`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RequestToPay {
    pub amount: String,
    pub currency: String,
    #[serde(default)]
    pub external_id: Option<String>,
    pub payer: Party,
    #[serde(default)]
    pub payer_message: Option<String>,
    #[serde(default)]
    pub payee_note: Option<String>,
}

/// `POST /disbursement/v1_0/transfer`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Transfer {
    pub amount: String,
    pub currency: String,
    #[serde(default)]
    pub external_id: Option<String>,
    pub payee: Party,
    #[serde(default)]
    pub payer_message: Option<String>,
    #[serde(default)]
    pub payee_note: Option<String>,
}

/// `POST /disbursement/v2_0/refund` (and `v1_0`): money of a request to pay given back to its
/// payer, named by the request to pay's `X-Reference-Id`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Refund {
    pub amount: String,
    pub currency: String,
    #[serde(default)]
    pub external_id: Option<String>,
    #[serde(default)]
    pub payer_message: Option<String>,
    #[serde(default)]
    pub payee_note: Option<String>,
    pub reference_id_to_refund: String,
}

/// `GET /collection/v1_0/requesttopay/{referenceId}`, and the body of its callback.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RequestToPayResult {
    pub amount: String,
    pub currency: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub financial_transaction_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub external_id: Option<String>,
    pub payer: Party,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub payer_message: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub payee_note: Option<String>,
    /// `PENDING`, `SUCCESSFUL` or `FAILED`.
    pub status: &'static str,
    /// Why it failed (`APPROVAL_REJECTED`, `EXPIRED`, `PAYER_NOT_FOUND`, `NOT_ENOUGH_FUNDS`, …),
    /// a bare string as the platform sends it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// `GET /disbursement/v1_0/transfer/{referenceId}` (and `…/refund/{referenceId}`, whose payee
/// is the refunded payer), and the body of its callback.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TransferResult {
    pub amount: String,
    pub currency: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub financial_transaction_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub external_id: Option<String>,
    pub payee: Party,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub payer_message: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub payee_note: Option<String>,
    pub status: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// `POST /{product}/token/`.
#[derive(Debug, Clone, Serialize)]
pub struct AccessToken {
    pub access_token: String,
    /// `access_token`, as the platform spells it.
    pub token_type: &'static str,
    pub expires_in: u64,
}

/// The token endpoint's 401 body.
#[derive(Debug, Clone, Serialize)]
pub struct TokenError {
    pub error: &'static str,
}

/// The error body of the API operations (400, 404, 409, 500).
#[derive(Debug, Clone, Serialize)]
pub struct ErrorReason {
    pub code: &'static str,
    pub message: String,
}

/// The API gateway's (Azure API Management) 401, for a missing or wrong subscription key or
/// access token.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GatewayError {
    pub status_code: u16,
    pub message: &'static str,
}
