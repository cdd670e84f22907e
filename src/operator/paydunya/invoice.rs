//! Collections: a checkout invoice, paid by the operator's SOFTPAY call, and its confirmation.
//!
//! | confirmation `status` | our answer |
//! |---|---|
//! | `pending` | `Pending` |
//! | `completed` (token and amount as sent) | `Succeeded` |
//! | `cancelled` | `Failed { PayerDeclined }` |
//! | `failed` | `Failed { PayerDeclined }`, with `fail_reason` |
//! | anything else, another token, amount or currency | `Err(BadAnswer)`: never settled, counted |
//! | `response_code` other than `"00"` for a token we recorded | `Err(Ambiguous)`: we sent it |

use reqwest::StatusCode;
use serde_json::json;

use super::wire::{
    Actions, Answered, Confirmation, CreateInvoice, CustomData, InvoiceBody, InvoiceCreated, SoftpayAnswer, Store,
};
use super::{check_sent, lookup_failed, operator_slug, read, refused, Created, PaydunyaConnector};
use crate::domain::{FailureCode, OperatorCode, Transaction};
use crate::operator::{BadAnswer, OperatorAnswer, OperatorError, OperatorRequest};

impl PaydunyaConnector {
    /// `POST /api/v1/checkout-invoice/create`: the invoice's token. Nothing moves yet.
    pub(super) async fn create_invoice(&self, r: &OperatorRequest<'_>) -> Result<String, OperatorError> {
        let body = CreateInvoice {
            invoice: InvoiceBody {
                total_amount: r.amount.francs(),
                description: r.reference,
            },
            store: Store { name: "momo-gateway" },
            custom_data: CustomData {
                reference: r.reference,
                key: r.operator_reference,
            },
            actions: Actions {
                callback_url: &self.settings.callback_url,
            },
        };
        self.create::<InvoiceCreated>("/api/v1/checkout-invoice/create", &body)
            .await
    }

    /// `POST /api/v1/softpay/{operator}`: asks the payer's operator to pay invoice `token`.
    pub(super) async fn softpay(
        &self,
        r: &OperatorRequest<'_>,
        token: &str,
        otp_code: Option<&str>,
    ) -> Result<OperatorAnswer, OperatorError> {
        let slug = operator_slug(r.operator);
        let what = format!("SOFTPAY {slug}");
        let (phone, name, email) = (r.phone.as_str(), r.name, r.email.unwrap_or(""));
        let body = match r.operator {
            OperatorCode::Alpha => json!({
                "orange_money_ci_customer_fullname": name,
                "orange_money_ci_email": email,
                "orange_money_ci_phone_number": phone,
                "orange_money_ci_otp": otp_code.unwrap_or(""),
                "payment_token": token,
            }),
            OperatorCode::Beta => json!({
                "wave_ci_fullName": name,
                "wave_ci_email": email,
                "wave_ci_phone": phone,
                "wave_ci_payment_token": token,
            }),
            OperatorCode::Gamma => json!({
                "mtn_ci_customer_fullname": name,
                "mtn_ci_email": email,
                "mtn_ci_phone_number": phone,
                "mtn_ci_wallet_provider": "MTNCI",
                "payment_token": token,
            }),
            OperatorCode::Delta => json!({
                "moov_ci_customer_fullname": name,
                "moov_ci_email": email,
                "moov_ci_phone_number": phone,
                "payment_token": token,
            }),
        };
        let answer = self.post(&format!("/api/v1/softpay/{slug}"), &body).await?;
        if answer.status != StatusCode::OK {
            return Err(refused(&what, &answer));
        }
        let paid: SoftpayAnswer = read(&what, &answer)?;
        let message = paid.message.unwrap_or_default();
        if !paid.success {
            // The operator refused to debit the payer: nothing moved.
            let code = if r.operator == OperatorCode::Alpha && mentions_the_code(&message) {
                FailureCode::WrongOtp
            } else {
                FailureCode::PayerDeclined
            };
            return Ok(OperatorAnswer::Failed {
                code,
                reason: format!("PayDunya ({slug}): {message}"),
            });
        }
        // Accepted, not settled: the confirmation says when the money moved.
        match (r.operator, paid.url) {
            (OperatorCode::Beta, Some(url)) if url.starts_with("https://") || url.starts_with("http://") => {
                Ok(OperatorAnswer::AwaitingPayer { launch_url: url })
            }
            _ => Ok(OperatorAnswer::Pending),
        }
    }

    /// `GET /api/v1/checkout-invoice/confirm/{token}`.
    pub(super) async fn confirm(&self, t: &Transaction, token: &str) -> Result<OperatorAnswer, OperatorError> {
        let what = format!("confirming invoice {token}");
        let answer = self
            .send(
                self.http
                    .get(self.url(&format!("/api/v1/checkout-invoice/confirm/{token}"))),
            )
            .await?;
        if answer.status != StatusCode::OK {
            return Err(lookup_failed(&what, &answer));
        }
        let confirmation: Confirmation = read(&what, &answer)?;
        answer_of(&confirmation, token, t.amounts.amount.get())
    }
}

impl Created for InvoiceCreated {
    const NOUN: &'static str = "invoice";
    const TOKEN: &'static str = "token";

    fn into_parts(self) -> (Answered, Option<String>) {
        (self.answered, self.token)
    }
}

/// Whether a refusal's message is about ALPHA's one-time code.
fn mentions_the_code(message: &str) -> bool {
    let message = message.to_lowercase();
    ["otp", "code"].iter().any(|word| message.contains(word))
}

/// What a confirmation says about invoice `token` of `sent` francs.
pub fn answer_of(confirmation: &Confirmation, token: &str, sent: i64) -> Result<OperatorAnswer, OperatorError> {
    let what = format!("invoice {token}");
    if !confirmation.answered.is_success() {
        return Err(OperatorError::Ambiguous(format!(
            "PayDunya does not confirm {what}, which we recorded: {}",
            confirmation.answered.describe()
        )));
    }
    let invoice = confirmation
        .invoice
        .as_ref()
        .ok_or_else(|| OperatorError::bad_answer(BadAnswer::Malformed, format!("{what}: the answer has no invoice")))?;
    if invoice.token != token {
        return Err(OperatorError::bad_answer(
            BadAnswer::Malformed,
            format!("{what}: the answer is about invoice {:?}", invoice.token),
        ));
    }
    check_sent(&what, &invoice.total_amount, invoice.currency.as_deref(), sent)?;
    let failed = |reason: String| {
        Ok(OperatorAnswer::Failed {
            code: FailureCode::PayerDeclined,
            reason,
        })
    };
    match confirmation.status.as_deref() {
        Some("pending") => Ok(OperatorAnswer::Pending),
        Some("completed") => Ok(OperatorAnswer::Succeeded),
        Some("cancelled") => failed("PayDunya: the payment was cancelled".into()),
        Some("failed") => failed(format!(
            "PayDunya: the payment failed: {}",
            confirmation.fail_reason.as_deref().unwrap_or("no reason given")
        )),
        other => Err(OperatorError::bad_answer(
            BadAnswer::UnknownStatus,
            format!("{what} has an unknown status {other:?}"),
        )),
    }
}
