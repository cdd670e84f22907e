//! Handing a recorded `PENDING` payment to the connector that carries it.
//!
//! - A route may name several connectors in order (`momo-openapi|paydunya`). A new payment
//!   goes to the first; the next is tried only when the one before answered
//!   [`OperatorError::Transient`]: refused before anything could have been sent (its breaker
//!   open, its connection refused, its credentials refused). A timeout, a reset or any answer
//!   leaves the first one's outcome unknown, and the payment stays with it.
//! - On such a route, the connector is recorded with the payment before it is asked, so a
//!   status check, a callback or a refund goes to that connector only, and a fallback never
//!   sends one payment to two connectors.
//! - A protocol that names a payment before anything moves ([`Operator::prepare`]: PayDunya's
//!   invoice and disbursement tokens) has that name recorded before the call that moves
//!   money. A payment with no recorded name was therefore never asked to move money there.
//! - A payment already recorded with a connector (sent before, or a refund's collection's)
//!   goes to that one only.

use super::Payments;
use crate::domain::Transaction;
use crate::operator::{Connector, OperatorAnswer, OperatorError, OperatorRequest};

impl Payments {
    /// Asks the connector that carries `t` for `request` (built from `t`), falling back along
    /// its route as the module says. `pinned` names the only connector that may carry it (a
    /// refund goes back through its collection's).
    pub(super) async fn deliver(
        &self,
        t: &Transaction,
        request: &OperatorRequest<'_>,
        pinned: Option<&str>,
    ) -> Result<OperatorAnswer, OperatorError> {
        let chain = self.operators.chain(t.operator, t.tenant.environment);
        let only = t.carrier.connector.as_deref().or(pinned);
        let candidates: Vec<&Connector> = match only {
            Some(name) => chain.iter().filter(|c| c.name == name).collect(),
            None => chain.iter().collect(),
        };
        if candidates.is_empty() {
            return Err(OperatorError::Transient(format!(
                "{} is carried by {}, which no longer serves {} in {}: route it again to send it",
                t.reference,
                only.unwrap_or("?"),
                t.operator,
                t.tenant.environment
            )));
        }
        let operator = t.operator.name();
        let record_each = chain.len() > 1;
        for (i, connector) in candidates.iter().enumerate() {
            let answer = self.ask(t, request, connector, record_each).await;
            match (&answer, candidates.get(i + 1)) {
                (Err(OperatorError::Transient(why)), Some(next)) => {
                    self.metrics.operator_send(operator, connector.name, "fell_back");
                    tracing::warn!(reference = %t.reference, operator, from = connector.name, to = next.name,
                        error = %why, "nothing could be sent: trying the route's next connector");
                }
                _ => {
                    self.metrics.operator_send(operator, connector.name, "carried");
                    return answer;
                }
            }
        }
        unreachable!("the last candidate always answers")
    }

    /// Asks one connector: its name for the payment first where its protocol hands one out,
    /// recorded (with the connector, when `record` or a name was given) before the call that
    /// moves money.
    async fn ask(
        &self,
        t: &Transaction,
        request: &OperatorRequest<'_>,
        connector: &Connector,
        record: bool,
    ) -> Result<OperatorAnswer, OperatorError> {
        let token = match request.token {
            Some(token) => Some(token.to_owned()),
            None => {
                let token = connector.operator.prepare(request).await?;
                if token.is_some() || record {
                    self.record_carrier(t, connector.name, token.as_deref()).await?;
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

    /// Records `connector` (and `token`) as what carries `t`. Not recorded, nothing is sent:
    /// the payment stays `PENDING`, and the reconciler's status check finds it never received.
    async fn record_carrier(&self, t: &Transaction, connector: &str, token: Option<&str>) -> Result<(), OperatorError> {
        match self.store.record_carrier(&t.id, connector, token).await {
            Ok(true) => Ok(()),
            Ok(false) => Err(OperatorError::Ambiguous(format!(
                "{} is no longer pending, or another sender named its carrier first: not sent again",
                t.reference
            ))),
            Err(e) => Err(OperatorError::Ambiguous(format!(
                "{connector} could not be recorded as the carrier of {} ({e}): not sent; the reconciler will ask",
                t.reference
            ))),
        }
    }
}
