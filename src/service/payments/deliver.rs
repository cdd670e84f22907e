//! Handing a recorded `PENDING` payment to the connector that carries it.
//!
//! - A payment is recorded with its connector at its creation: its route's first (a refund:
//!   its collection's). Everything after goes there (`Operators::carrier`).
//! - A route may name several connectors in order (`momo-openapi|paydunya`). At a payment's
//!   first send only, the next is tried when the one before answered
//!   [`OperatorError::Transient`]: refused before anything could have been sent (its breaker
//!   open, its connection refused, its credentials refused). A timeout, a reset or any answer
//!   leaves the first one's outcome unknown, and the payment stays with it. Moving it is a
//!   compare-and-set on its recorded connector that also needs no resend claimed
//!   (`PaymentStore::record_carrier`), so two senders never send it to two connectors.
//! - A protocol that names a payment before anything moves ([`Operator::prepare`]: PayDunya's
//!   invoice and disbursement tokens) has that name recorded before the call that moves money.
//!   A payment with no recorded name was therefore never asked to move money there.
//!
//! [`Operator::prepare`]: crate::operator::Operator::prepare

use super::Payments;
use crate::domain::Transaction;
use crate::operator::{Connector, OperatorAnswer, OperatorError, OperatorRequest};
use crate::store::CarrierChange;

/// Whether a send may go on to the route's next connector.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Fallback {
    /// The payment's first send.
    Allowed,
    /// Sent again: it goes to its recorded connector only.
    Never,
}

impl Payments {
    /// Asks the connector that carries `t` for `request` (built from `t`), falling back along
    /// its route as the module says. `pinned` names the connector a payment recorded with none
    /// (from before connectors were recorded) must go to: a refund's collection's.
    pub(super) async fn deliver(
        &self,
        t: &Transaction,
        request: &OperatorRequest<'_>,
        pinned: Option<&str>,
        fallback: Fallback,
    ) -> Result<OperatorAnswer, OperatorError> {
        let chain = self.operators.chain(t.operator, t.tenant.environment);
        let recorded = t.carrier.connector.as_deref();
        let start = match recorded.or(pinned) {
            Some(name) => chain.iter().position(|c| c.name == name),
            None => Some(0),
        };
        let Some(start) = start else {
            return Err(OperatorError::Transient(format!(
                "{} is carried by {}, which no longer serves {} in {}: route it again to send it",
                t.reference,
                recorded.or(pinned).unwrap_or("?"),
                t.operator,
                t.tenant.environment
            )));
        };
        let candidates = match (fallback, pinned) {
            (Fallback::Allowed, None) => &chain[start..],
            _ => &chain[start..=start],
        };
        let operator = t.operator.name();
        let Some((last, before)) = candidates.split_last() else {
            return Err(OperatorError::Transient(format!(
                "{} has no connector to go to",
                t.reference
            )));
        };
        let mut expected = recorded;
        for (i, connector) in before.iter().enumerate() {
            let answer = self.ask(t, request, connector, expected).await;
            expected = Some(connector.name);
            match answer {
                Err(OperatorError::Transient(why)) => {
                    let next = before.get(i + 1).unwrap_or(last).name;
                    self.metrics.operator_send(operator, connector.name, "fell_back");
                    tracing::warn!(reference = %t.reference, operator, from = connector.name, to = next,
                        error = %why, "nothing could be sent: trying the route's next connector");
                }
                answer => {
                    self.metrics.operator_send(operator, connector.name, "carried");
                    return answer;
                }
            }
        }
        self.metrics.operator_send(operator, last.name, "carried");
        self.ask(t, request, last, expected).await
    }

    /// Asks one connector: recorded as the carrier first when it is not `expected` (the
    /// connector recorded now), then its name for the payment where its protocol hands one out,
    /// recorded too, before the call that moves money.
    async fn ask(
        &self,
        t: &Transaction,
        request: &OperatorRequest<'_>,
        connector: &Connector,
        expected: Option<&str>,
    ) -> Result<OperatorAnswer, OperatorError> {
        if expected != Some(connector.name) {
            let change = CarrierChange {
                expected,
                connector: connector.name,
                token: None,
            };
            self.record_carrier(t, change).await?;
        }
        let token = match request.token {
            Some(token) => Some(token.to_owned()),
            None => {
                let token = connector.operator.prepare(request).await?;
                if let Some(token) = &token {
                    let change = CarrierChange {
                        expected: Some(connector.name),
                        connector: connector.name,
                        token: Some(token),
                    };
                    self.record_carrier(t, change).await?;
                }
                token
            }
        };
        let request = OperatorRequest {
            token: token.as_deref(),
            ..request.clone()
        };
        connector.operator.initiate(&request).await
    }

    /// Records `change` on `t`, if `t` is still carried by `change.expected`. Not recorded,
    /// nothing is sent: the payment stays `PENDING`, and the reconciler asks its recorded
    /// connector.
    async fn record_carrier(&self, t: &Transaction, change: CarrierChange<'_>) -> Result<(), OperatorError> {
        let CarrierChange {
            expected, connector, ..
        } = change;
        match self.store.record_carrier(&t.id, change).await {
            Ok(true) => Ok(()),
            Ok(false) => Err(OperatorError::Ambiguous(format!(
                "{} is no longer pending, is sent again by another sender, or is carried by another \
                 connector than {}: not sent to {connector}",
                t.reference,
                expected.unwrap_or("none")
            ))),
            Err(e) => Err(OperatorError::Ambiguous(format!(
                "{connector} could not be recorded as the carrier of {} ({e}): not sent; the reconciler will ask",
                t.reference
            ))),
        }
    }
}
