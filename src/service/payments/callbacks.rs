//! Operator callbacks over HTTP. A callback is authenticated by its connector, matched to a
//! pending payment of the same operator and environment, and then treated as a hint: the
//! gateway asks the operator for the payment's status and settles on that answer, through the
//! same one-transaction path as everything else. A forged, replayed, duplicated or
//! out-of-order callback therefore cannot settle anything the operator does not confirm.

use super::pending::outcome_of;
use super::Payments;
use crate::domain::{Cause, Environment, OperatorCode, Reference, Timestamp};
use crate::operator::{CallbackRejected, CallbackRequest};
use crate::service::ServiceError;

/// What became of a callback that was authenticated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallbackReceipt {
    /// The payment is pending: its status is being asked, and settles it if final.
    Checking,
    /// The payment is already final: nothing changes (a duplicate or a late callback).
    AlreadyFinal,
    /// Not a payment of this operator and environment: logged and counted, never settled.
    Ignored,
}

/// Why a callback was refused.
#[derive(Debug, thiserror::Error)]
pub enum CallbackError {
    #[error(transparent)]
    Rejected(#[from] CallbackRejected),
    #[error(transparent)]
    Service(#[from] ServiceError),
}

impl Payments {
    /// Receives a callback from `operator` in `environment`.
    pub async fn receive_operator_callback(
        &self,
        operator: OperatorCode,
        environment: Environment,
        request: CallbackRequest<'_>,
    ) -> Result<CallbackReceipt, CallbackError> {
        let connector = self.operators.connector(operator, environment);
        let reference = match connector.verify_callback(&request) {
            Ok(reference) => reference,
            Err(rejected) => {
                let outcome = match rejected {
                    CallbackRejected::Unauthenticated(_) => "unauthenticated",
                    CallbackRejected::Malformed(_) => "malformed",
                    CallbackRejected::Unsupported => "unsupported",
                };
                self.metrics.operator_callback(operator.name(), outcome);
                tracing::warn!(operator = operator.name(), %environment, error = %rejected, "operator callback refused");
                return Err(rejected.into());
            }
        };
        // No reference we issue holds a control character, and PostgreSQL refuses NUL in text:
        // such a reference names no payment, without asking the database.
        let record = if reference.chars().any(char::is_control) {
            None
        } else {
            self.store
                .transaction_by_ref(&Reference::from(reference.as_str()))
                .await
                .map_err(ServiceError::from)?
        };
        let Some(record) = record else {
            self.metrics.operator_callback(operator.name(), "unknown_reference");
            tracing::warn!(operator = operator.name(), %environment, %reference,
                "operator callback for a reference of no payment; ignored");
            return Ok(CallbackReceipt::Ignored);
        };
        let t = &record.transaction;
        if t.operator != operator || t.tenant.environment != environment {
            self.metrics.operator_callback(operator.name(), "other_route");
            tracing::warn!(operator = operator.name(), %environment, %reference,
                "operator callback for a payment of another operator or environment; ignored");
            return Ok(CallbackReceipt::Ignored);
        }
        if record.transaction.status.is_final() {
            self.metrics.operator_callback(operator.name(), "already_final");
            return Ok(CallbackReceipt::AlreadyFinal);
        }
        self.metrics.operator_callback(operator.name(), "accepted");
        // Answered at once; the status lookup runs on its own so a slow operator API cannot
        // hold the operator's callback request open.
        let gateway = self.clone();
        tokio::spawn(async move {
            let now = Timestamp::now();
            let answer = match gateway.operator_status(&record, now).await {
                Ok(answer) => answer,
                Err(e) => {
                    tracing::warn!(reference = %record.transaction.reference, error = %e,
                        "status check after a callback failed; the reconciler will ask again");
                    return;
                }
            };
            // A callback for a payment the operator calls pending or unknown: the reconciler
            // keeps asking; nothing is settled on the callback's word.
            let Some(outcome) = outcome_of(answer, Cause::OperatorCallback) else {
                return;
            };
            if let Err(e) = gateway.settle_later(&record, outcome, now, None).await {
                tracing::warn!(reference = %record.transaction.reference, error = %e,
                    "settling after a callback failed; the reconciler will ask again");
            }
        });
        Ok(CallbackReceipt::Checking)
    }
}
