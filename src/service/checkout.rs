//! The BETA launch page's use cases: the payment a payer is asked to approve, and the payer's
//! decision, which settles it.

use super::{Gateway, ServiceError};
use crate::domain::{Cause, FailureCode, Kind, OperatorCode, Outcome, Status, Timestamp, TransactionRecord};

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

impl Gateway {
    /// The BETA collection with this reference; `NotFound` for any other transaction.
    pub async fn checkout_payment(&self, reference: &str) -> Result<CheckoutPayment, ServiceError> {
        let record = self.beta_collection(reference).await?;
        let merchant_name = self
            .store
            .merchant_name(&record.transaction.tenant.merchant_id)
            .await?
            .unwrap_or_default();
        Ok(CheckoutPayment { record, merchant_name })
    }

    /// Settles a BETA collection as the payer decided, and returns it as stored: a second
    /// click, or a decision after expiry, changes nothing and shows the final state.
    pub async fn decide_checkout(
        &self,
        reference: &str,
        decision: PayerDecision,
        now: Timestamp,
    ) -> Result<TransactionRecord, ServiceError> {
        let record = self.beta_collection(reference).await?;
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
        match self.settle_later(&record, outcome, now, None).await? {
            Some(settled) => Ok(settled),
            None => Ok(self.store.transaction_by_ref(reference).await?.unwrap_or(record)),
        }
    }

    async fn beta_collection(&self, reference: &str) -> Result<TransactionRecord, ServiceError> {
        match self.store.transaction_by_ref(reference).await? {
            Some(r) if r.transaction.kind == Kind::Collection && r.transaction.operator == OperatorCode::Beta => Ok(r),
            _ => Err(ServiceError::NotFound("payment waiting for approval")),
        }
    }
}
