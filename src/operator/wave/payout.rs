//! Transfers as Wave payouts: `POST /v1/payout` with the transaction's id as `idempotency-key`,
//! and `GET /v1/payouts/search?client_reference=` for the status (Wave sends no payout webhook,
//! so this lookup is the only way to learn the outcome).
//!
//! | payout `status` | our answer |
//! |---|---|
//! | `processing` | `Pending` |
//! | `succeeded` (amount and currency as sent) | `Succeeded` |
//! | `failed` | `Failed { OperatorRefused }`, with `payout_error` as the reason |
//! | `reversed` | `Err(Ambiguous)`: it succeeded, then the money came back; a person decides |
//! | anything else, or another amount or currency | `Err(BadAnswer)`: never settled, counted |
//! | a synchronous 4xx (422 `recipient-account-blocked`, validation) | `Err(Rejected { OperatorRefused })`: nothing was created |
//! | no payout with our `ref` | `NotReceived` |

use reqwest::StatusCode;

use super::wire::{CreatePayout, Payout, SearchResult};
use super::{check_sent, e164, lookup_failed, read, refused, WaveConnector};
use crate::domain::{FailureCode, Transaction};
use crate::operator::{BadAnswer, OperatorAnswer, OperatorError, OperatorRequest};

/// What a payout says about a transfer of `sent` francs.
pub fn answer_of(payout: &Payout, sent: i64) -> Result<OperatorAnswer, OperatorError> {
    let what = format!("payout {}", payout.id);
    check_sent(&what, &payout.receive_amount, &payout.currency, sent)?;
    match payout.status.as_str() {
        "processing" => Ok(OperatorAnswer::Pending),
        "succeeded" => Ok(OperatorAnswer::Succeeded),
        "failed" => {
            let error = payout.payout_error.as_ref();
            let code = error.and_then(|e| e.error_code.as_deref());
            let message = error.and_then(|e| e.error_message.as_deref());
            Ok(OperatorAnswer::Failed {
                code: FailureCode::OperatorRefused,
                reason: match (code, message) {
                    (Some(code), Some(message)) => format!("Wave failed the payout: {code}: {message}"),
                    (Some(text), None) | (None, Some(text)) => format!("Wave failed the payout: {text}"),
                    (None, None) => "Wave failed the payout: no reason given".to_owned(),
                },
            })
        }
        "reversed" => Err(OperatorError::Ambiguous(format!(
            "{what} was reversed after it succeeded: the recipient did not keep the money"
        ))),
        other => Err(OperatorError::bad_answer(
            BadAnswer::UnknownStatus,
            format!("{what} has an unknown status {other:?}"),
        )),
    }
}

impl WaveConnector {
    /// `POST /v1/payout`. The same key and body give back the same payout, never a second one.
    pub(super) async fn create_payout(&self, r: &OperatorRequest<'_>) -> Result<OperatorAnswer, OperatorError> {
        let what = "creating the payout";
        let body = CreatePayout {
            currency: "XOF",
            receive_amount: r.amount.to_string(),
            mobile: e164(r.phone),
            client_reference: r.reference,
        };
        let answer = self
            .send(
                self.http
                    .post(self.url("/v1/payout"))
                    .header("idempotency-key", r.operator_reference)
                    .json(&body),
            )
            .await?;
        if answer.status != StatusCode::OK {
            return Err(refused(what, &answer));
        }
        answer_of(&read(what, &answer)?, r.amount.francs())
    }

    pub(super) async fn payout_status(&self, t: &Transaction) -> Result<OperatorAnswer, OperatorError> {
        let what = "searching payouts";
        let answer = self
            .send(
                self.http
                    .get(self.url("/v1/payouts/search"))
                    .query(&[("client_reference", t.reference.as_str())]),
            )
            .await?;
        if answer.status != StatusCode::OK {
            return Err(lookup_failed(what, &answer));
        }
        let found: SearchResult<Payout> = read(what, &answer)?;
        let ours: Vec<Payout> = found
            .result
            .into_iter()
            .filter(|p| p.client_reference.as_deref() == Some(t.reference.as_str()))
            .collect();
        match ours.as_slice() {
            [] => Ok(OperatorAnswer::NotReceived),
            [payout] => answer_of(payout, t.amounts.amount.get()),
            // One idempotency key makes one payout: more means money may have left twice.
            more => Err(OperatorError::Ambiguous(format!(
                "{} payouts carry reference {}: a person must look",
                more.len(),
                t.reference
            ))),
        }
    }
}
