//! The BETA launch page's use cases (Sandbox only, found by an unguessable token): the payment
//! a payer is asked to approve, and the payer's decision, which settles it.

use super::Payments;
use crate::domain::transaction::CHECKOUT_TOKEN_LEN;
use crate::domain::{Cause, FailureCode, Kind, Outcome, Status, Timestamp, TransactionRecord};
use crate::service::ServiceError;

/// What the payer chose on the launch page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PayerDecision {
    Approve,
    Decline,
}

/// A BETA collection waiting (or no longer waiting) for its payer, with its merchant's name.
#[derive(Debug, Clone)]
pub struct CheckoutPayment {
    pub record: TransactionRecord,
    pub merchant_name: String,
}

impl Payments {
    /// The page where the payer of `record` approves, for the collections that have one: our
    /// BETA launch page (`/checkout/{token}`), or the operator's own (a Wave checkout), never
    /// one of ours in Production. Both dialects show it: v1 as `betaLaunchUrl`, v2 as
    /// `redirectUrl`.
    pub fn launch_url(&self, record: &TransactionRecord) -> Option<String> {
        let t = &record.transaction;
        match (t.purpose.checkout_token(), t.purpose.launch_url()) {
            (Some(token), _) => Some(format!("{}/checkout/{token}", self.config.public_url)),
            (None, Some(operator_page)) => Some(operator_page.to_owned()),
            (None, None) => None,
        }
    }

    /// The payment whose payer's page has this token; `NotFound` for any other.
    pub async fn checkout_payment(&self, token: &str) -> Result<CheckoutPayment, ServiceError> {
        let record = self.beta_collection(token).await?;
        let merchant_name = self
            .merchants
            .merchant_name(&record.transaction.tenant.merchant_id)
            .await?
            .unwrap_or_default();
        Ok(CheckoutPayment { record, merchant_name })
    }

    /// Settles a BETA collection as the payer decided, and returns it as stored: a second
    /// click, or a decision after expiry, changes nothing and shows the final state.
    pub async fn decide_checkout(
        &self,
        token: &str,
        decision: PayerDecision,
        now: Timestamp,
    ) -> Result<TransactionRecord, ServiceError> {
        let record = self.beta_collection(token).await?;
        let outcome = match decision {
            PayerDecision::Approve => Outcome {
                status: Status::Successful,
                cause: Cause::Payer,
                code: None,
                reason: None,
            },
            PayerDecision::Decline => Outcome {
                status: Status::Failed,
                cause: Cause::Payer,
                code: Some(FailureCode::PayerDeclined),
                reason: Some("the payer declined on the BETA page".to_owned()),
            },
        };
        let settled = self.balances.settle_later(&record, outcome, now, None).await?;
        Ok(self.settled_or_stored(record, settled).await?)
    }

    /// Only collections the simulator serves carry a token (`Payments::checkout_token`), and a
    /// token that is too short to be one is not looked up at all.
    async fn beta_collection(&self, token: &str) -> Result<TransactionRecord, ServiceError> {
        let not_found = || ServiceError::NotFound("payment waiting for approval");
        if token.len() != CHECKOUT_TOKEN_LEN {
            return Err(not_found());
        }
        match self.store.transaction_by_checkout_token(token).await? {
            Some(r) if r.transaction.kind() == Kind::Collection => Ok(r),
            Some(_) | None => Err(not_found()),
        }
    }
}
