//! Operator callbacks over HTTP. A callback is authenticated by its connector, matched to a
//! pending payment of the same operator and environment, and then treated as a hint: the
//! gateway asks the operator for the payment's status and settles on that answer, through the
//! same one-transaction path as everything else. A forged, replayed, duplicated or
//! out-of-order callback therefore cannot settle anything the operator does not confirm, and
//! however many arrive, a payment has one callback-started status lookup at a time
//! (`checking.rs`).

use super::checking::Admission;
use super::pending::outcome_of;
use super::Payments;
use crate::domain::{Cause, Environment, OperatorCode, Reference, Timestamp};
use crate::operator::{CallbackRejected, CallbackRequest};
use crate::service::ServiceError;

/// What became of a callback that was authenticated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallbackReceipt {
    /// The payment is pending: its status is being asked, and settles it if final (by this
    /// callback's check, or by the one already running for the payment).
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
        // Each connector of the route tries the callback: only the one whose proof it carries
        // (a token, a signature, a hash) takes it.
        let mut refusal = None;
        let mut verified = None;
        for connector in self.operators.chain(operator, environment) {
            match connector.operator.verify_callback(&request) {
                Ok(reference) => {
                    verified = Some((connector.name, reference));
                    break;
                }
                // The most telling refusal: one from a connector that receives callbacks.
                Err(CallbackRejected::Unsupported) => {
                    refusal.get_or_insert(CallbackRejected::Unsupported);
                }
                Err(rejected) => {
                    if refusal.as_ref().is_none_or(|r| *r == CallbackRejected::Unsupported) {
                        refusal = Some(rejected);
                    }
                }
            }
        }
        let Some((connector, reference)) = verified else {
            let rejected = refusal.unwrap_or(CallbackRejected::Unsupported);
            let outcome = match rejected {
                CallbackRejected::Unauthenticated(_) => "unauthenticated",
                CallbackRejected::Malformed(_) => "malformed",
                CallbackRejected::Unsupported => "unsupported",
            };
            self.metrics.operator_callback(operator.name(), outcome);
            tracing::warn!(operator = operator.name(), %environment, error = %rejected, "operator callback refused");
            return Err(rejected.into());
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
        let carried_by = t
            .carrier
            .connector
            .as_deref()
            .unwrap_or(self.operators.first(operator, environment).name);
        if t.operator != operator || t.tenant.environment != environment || carried_by != connector {
            self.metrics.operator_callback(operator.name(), "other_route");
            tracing::warn!(operator = operator.name(), %environment, %reference,
                "operator callback for a payment of another operator, environment or connector; ignored");
            return Ok(CallbackReceipt::Ignored);
        }
        if record.transaction.status.is_final() {
            self.metrics.operator_callback(operator.name(), "already_final");
            return Ok(CallbackReceipt::AlreadyFinal);
        }
        let claim = match self.checking.admit(&record.transaction.id) {
            Admission::Check(claim) => claim,
            Admission::AlreadyChecking => {
                self.metrics.operator_callback(operator.name(), "already_checking");
                return Ok(CallbackReceipt::Checking);
            }
            Admission::Full => {
                self.metrics.operator_callback(operator.name(), "checks_full");
                tracing::warn!(operator = operator.name(), %reference,
                    "too many callback status checks in flight; the reconciler will ask");
                return Ok(CallbackReceipt::Checking);
            }
        };
        self.metrics.operator_callback(operator.name(), "accepted");
        // Answered at once; the status lookup runs on its own so a slow operator API cannot
        // hold the operator's callback request open.
        let gateway = self.clone();
        tokio::spawn(async move {
            let reference = record.transaction.reference.clone();
            loop {
                gateway.check_after_callback(&reference).await;
                if !claim.again() {
                    break;
                }
            }
            // Dropping the claim only now: a callback that read the payment as pending before
            // this settled it is admitted after, and its check reads the payment again first.
            drop(claim);
        });
        Ok(CallbackReceipt::Checking)
    }

    /// How many payments have a callback-started status check in flight (tests wait for none).
    pub fn callback_checks_in_flight(&self) -> usize {
        self.checking.len()
    }

    /// Asks the operator for the status of the payment `reference` names, if it is still
    /// pending, and settles it on a final answer. Failures are logged: the reconciler asks again.
    async fn check_after_callback(&self, reference: &Reference) {
        // Read again: a check that ended since the callback read it may have settled it.
        let record = match self.store.transaction_by_ref(reference).await {
            Ok(Some(record)) if !record.transaction.status.is_final() => record,
            Ok(_) => return,
            Err(e) => {
                tracing::warn!(%reference, error = %e,
                    "reading a payment after a callback failed; the reconciler will ask");
                return;
            }
        };
        let now = Timestamp::now();
        let answer = match self.operator_status(&record, now).await {
            Ok(answer) => answer,
            Err(e) => {
                tracing::warn!(%reference, error = %e,
                    "status check after a callback failed; the reconciler will ask again");
                return;
            }
        };
        // A callback for a payment the operator calls pending or unknown: the reconciler
        // keeps asking; nothing is settled on the callback's word.
        let Some(outcome) = outcome_of(answer, Cause::OperatorCallback) else {
            return;
        };
        if let Err(e) = self.balances.settle_later(&record, outcome, now, None).await {
            tracing::warn!(%reference, error = %e,
                "settling after a callback failed; the reconciler will ask again");
        }
    }
}
