//! Transfers as PayDunya disbursements (API v2): an invoice for the recipient
//! (`get-invoice`, its token recorded before anything else), its submission (`submit-invoice`,
//! the call that moves money, with our `ref` as `disburse_id`), and `check-status`.
//!
//! | `status` | our answer |
//! |---|---|
//! | `created` | `NotReceived`: never submitted; the one resend submits the same token |
//! | `pending` | `Pending` |
//! | `success` (amount as sent) | `Succeeded` |
//! | `failed` | `Failed { OperatorRefused }` |
//! | anything else, another amount, currency or token | `Err(BadAnswer)`: never settled, counted |
//!
//! A submission PayDunya refuses (a `response_code` other than `"00"`, a 4xx) is checked with
//! `check-status` before it fails the transfer: a resubmission refused because the first is
//! being paid must not release money that is leaving. Still `created`, nothing was paid and the
//! refusal stands. A submission that timed out is asked about likewise, never submitted blindly.

use reqwest::StatusCode;

use super::wire::{Answered, CheckDisburse, DisburseCreated, DisburseInvoice, DisburseState, SubmitDisburse};
use super::{check_sent, lookup_failed, operator_slug, read, refused, Created, PaydunyaConnector};
use crate::domain::{FailureCode, Transaction};
use crate::operator::{BadAnswer, OperatorAnswer, OperatorError, OperatorRequest};

impl PaydunyaConnector {
    /// `POST /api/v2/disburse/get-invoice`: the disbursement's token. Nothing moves yet.
    pub(super) async fn create_disbursement(&self, r: &OperatorRequest<'_>) -> Result<String, OperatorError> {
        let body = DisburseInvoice {
            account_alias: r.phone.as_str(),
            amount: r.amount.francs(),
            withdraw_mode: operator_slug(r.operator),
            callback_url: &self.settings.callback_url,
        };
        self.create::<DisburseCreated>("/api/v2/disburse/get-invoice", &body)
            .await
    }

    /// `POST /api/v2/disburse/submit-invoice`.
    pub(super) async fn submit_disbursement(
        &self,
        r: &OperatorRequest<'_>,
        token: &str,
    ) -> Result<OperatorAnswer, OperatorError> {
        let what = format!("submitting disbursement {token}");
        let body = SubmitDisburse {
            disburse_invoice: token,
            disburse_id: r.reference,
        };
        let answer = self.post("/api/v2/disburse/submit-invoice", &body).await?;
        let sent = r.amount.francs();
        if answer.status != StatusCode::OK {
            return match refused(&what, &answer) {
                refusal @ OperatorError::Rejected { .. } => self.refused_submission(token, sent, refusal).await,
                other => Err(other),
            };
        }
        let state: DisburseState = read(&what, &answer)?;
        if !state.answered.is_success() {
            let refusal = OperatorError::Rejected {
                code: FailureCode::OperatorRefused,
                reason: format!("PayDunya refused the disbursement: {}", state.answered.describe()),
            };
            return self.refused_submission(token, sent, refusal).await;
        }
        match state.status.as_deref() {
            // The submission's answer need not say more: the status check and the notification will.
            None => Ok(OperatorAnswer::Pending),
            Some(_) => answer_of(&state, token, r.amount.francs()),
        }
    }

    /// A refused submission of `token`: the refusal when the disbursement is still `created`
    /// (nothing paid), else what its status says.
    async fn refused_submission(
        &self,
        token: &str,
        sent: i64,
        refusal: OperatorError,
    ) -> Result<OperatorAnswer, OperatorError> {
        match self.check_status(token, sent).await {
            Ok(OperatorAnswer::NotReceived) => Err(refusal),
            Ok(answer) => Ok(answer),
            Err(e) => Err(OperatorError::Ambiguous(format!(
                "{refusal}; and whether it is being paid could not be asked: {e}"
            ))),
        }
    }

    /// `POST /api/v2/disburse/check-status`.
    pub(super) async fn disbursement_status(
        &self,
        t: &Transaction,
        token: &str,
    ) -> Result<OperatorAnswer, OperatorError> {
        self.check_status(token, t.amounts.amount.get()).await
    }

    async fn check_status(&self, token: &str, sent: i64) -> Result<OperatorAnswer, OperatorError> {
        let what = format!("checking disbursement {token}");
        let answer = self
            .post(
                "/api/v2/disburse/check-status",
                &CheckDisburse {
                    disburse_invoice: token,
                },
            )
            .await?;
        if answer.status != StatusCode::OK {
            return Err(lookup_failed(&what, &answer));
        }
        let state: DisburseState = read(&what, &answer)?;
        if !state.answered.is_success() {
            return Err(OperatorError::Ambiguous(format!(
                "PayDunya does not find disbursement {token}, which we recorded: {}",
                state.answered.describe()
            )));
        }
        answer_of(&state, token, sent)
    }
}

impl Created for DisburseCreated {
    const NOUN: &'static str = "disbursement";
    const TOKEN: &'static str = "disburse_token";

    fn into_parts(self) -> (Answered, Option<String>) {
        (self.answered, self.disburse_token)
    }
}

/// What a disbursement's state says about token `token` of `sent` francs.
pub fn answer_of(state: &DisburseState, token: &str, sent: i64) -> Result<OperatorAnswer, OperatorError> {
    let what = format!("disbursement {token}");
    if state.disburse_invoice.as_deref().is_some_and(|echoed| echoed != token) {
        return Err(OperatorError::bad_answer(
            BadAnswer::Malformed,
            format!("{what}: the answer is about {:?}", state.disburse_invoice),
        ));
    }
    let amount = state
        .amount
        .as_ref()
        .ok_or_else(|| OperatorError::bad_answer(BadAnswer::Malformed, format!("{what}: the answer has no amount")))?;
    check_sent(&what, amount, state.currency.as_deref(), sent)?;
    match state.status.as_deref() {
        Some("created") => Ok(OperatorAnswer::NotReceived),
        Some("pending") => Ok(OperatorAnswer::Pending),
        Some("success") => Ok(OperatorAnswer::Succeeded),
        Some("failed") => Ok(OperatorAnswer::Failed {
            code: FailureCode::OperatorRefused,
            reason: format!("PayDunya failed the disbursement: {}", state.answered.describe()),
        }),
        other => Err(OperatorError::bad_answer(
            BadAnswer::UnknownStatus,
            format!("{what} has an unknown status {other:?}"),
        )),
    }
}
