//! The MoMo Open API's wire types, as MTN's developer platform documents them: the token
//! answer, a request-to-pay, a transfer and a refund, and the status object that both the
//! status lookup and the callback carry.

use serde::{Deserialize, Serialize};

/// `POST /{product}/token/`.
#[derive(Debug, Deserialize)]
pub struct TokenAnswer {
    pub access_token: String,
    /// Seconds the token is valid.
    pub expires_in: u64,
}

/// Who pays (request-to-pay) or is paid (transfer).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct Party {
    pub party_id_type: String,
    pub party_id: String,
}

impl Party {
    /// An Ivorian number in the international form the API takes (`2250701020304`).
    pub fn msisdn(national: &str) -> Party {
        Party {
            party_id_type: "MSISDN".to_owned(),
            party_id: format!("225{national}"),
        }
    }
}

/// What every payment body begins with: the sum, and our `ref` (`externalId`).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Sum<'a> {
    pub amount: String,
    pub currency: &'a str,
    pub external_id: &'a str,
}

/// The two notes every payment body ends with.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Notes<'a> {
    pub payer_message: &'a str,
    pub payee_note: &'a str,
}

/// `POST /collection/v1_0/requesttopay` (its `payer`) and `POST /disbursement/v1_0/transfer`
/// (its `payee`): the same body but for whose number it names.
#[derive(Debug, Serialize)]
pub struct Payment<'a> {
    #[serde(flatten)]
    pub sum: Sum<'a>,
    #[serde(flatten)]
    pub number: Number,
    #[serde(flatten)]
    pub notes: Notes<'a>,
}

/// Whose number a payment names: the payer asked to pay, or the payee paid.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Number {
    Payer(Party),
    Payee(Party),
}

/// `POST /disbursement/v2_0/refund`: money of a request-to-pay given back to its payer, who is
/// not named (the platform knows them from `referenceIdToRefund`, the request-to-pay's
/// `X-Reference-Id`).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Refund<'a> {
    #[serde(flatten)]
    pub sum: Sum<'a>,
    #[serde(flatten)]
    pub notes: Notes<'a>,
    pub reference_id_to_refund: &'a str,
}

/// `GET …/requesttopay/{referenceId}`, `…/transfer/{referenceId}` or `…/refund/{referenceId}`,
/// and the callback body.
/// Amounts arrive as strings in the documentation and as numbers in some examples: both are
/// read as text and parsed exactly.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PaymentResult {
    #[serde(default, deserialize_with = "text_or_number")]
    pub amount: Option<String>,
    pub currency: Option<String>,
    #[serde(default, deserialize_with = "text_or_number")]
    pub external_id: Option<String>,
    pub status: String,
    /// Why it failed: a code (`APPROVAL_REJECTED`), or an object with `code` and `message`.
    pub reason: Option<serde_json::Value>,
}

impl PaymentResult {
    /// The failure reason's code, whichever shape it came in.
    pub fn reason_code(&self) -> Option<String> {
        match &self.reason {
            Some(serde_json::Value::String(code)) => Some(code.clone()),
            Some(serde_json::Value::Object(o)) => o.get("code").and_then(|c| c.as_str()).map(str::to_owned),
            Some(_) | None => None,
        }
    }
}

fn text_or_number<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    match Option::<serde_json::Value>::deserialize(d)? {
        None | Some(serde_json::Value::Null) => Ok(None),
        Some(serde_json::Value::String(s)) => Ok(Some(s)),
        Some(serde_json::Value::Number(n)) => Ok(Some(n.to_string())),
        Some(other) => Err(serde::de::Error::custom(format!(
            "expected text or a number, got {other}"
        ))),
    }
}

/// `GET /{product}/v1_0/accountholder/msisdn/{msisdn}/active`.
#[derive(Debug, Deserialize)]
pub struct ActiveAnswer {
    pub result: bool,
}

/// `GET /collection/v1_0/accountholder/msisdn/{msisdn}/basicuserinfo`: the holder's names
/// (the platform sends more, none of which the gateway keeps).
#[derive(Debug, Default, Deserialize)]
pub struct BasicUserInfo {
    #[serde(default)]
    pub given_name: Option<String>,
    #[serde(default)]
    pub family_name: Option<String>,
    #[serde(default)]
    pub name: Option<String>,
}

impl BasicUserInfo {
    /// The holder's name as one line, if the platform gave any.
    pub fn full_name(&self) -> Option<String> {
        let parts: Vec<&str> = [&self.given_name, &self.family_name]
            .into_iter()
            .flatten()
            .map(|p| p.trim())
            .filter(|p| !p.is_empty())
            .collect();
        if parts.is_empty() {
            self.name
                .as_deref()
                .map(str::trim)
                .filter(|n| !n.is_empty())
                .map(str::to_owned)
        } else {
            Some(parts.join(" "))
        }
    }
}

/// An error answer: `{"code": "...", "message": "..."}`.
#[derive(Debug, Deserialize)]
pub struct ErrorAnswer {
    pub code: Option<String>,
    pub message: Option<String>,
}
