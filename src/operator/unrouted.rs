//! What serves an operator no setting routes in Production: nothing. Creation refuses such a
//! payment before recording it (`Operators::is_routed`); a payment recorded under an earlier
//! routing stays `PENDING`, its status unknown, until a connector serves it again. Never a
//! simulator: a gateway that handles real money fails closed.

use async_trait::async_trait;

use super::{Operator, OperatorAnswer, OperatorError, OperatorRequest};
use crate::domain::{Environment, OperatorCode, Timestamp, Transaction};

/// The connector of an unrouted operator: every call fails as transient, nothing is settled.
pub struct Unrouted;

/// Why an unrouted operator is not served, naming the setting that routes it.
pub fn reason(operator: OperatorCode, environment: Environment) -> String {
    format!(
        "no connector serves {operator} in {environment}: route it in MOMO_OPERATOR_CONNECTORS \
         (for example {operator}:{environment}=momo-openapi, or *:{environment}=simulator for a demo)"
    )
}

#[async_trait]
impl Operator for Unrouted {
    async fn initiate(&self, request: &OperatorRequest<'_>) -> Result<OperatorAnswer, OperatorError> {
        Err(OperatorError::Transient(reason(
            request.operator,
            Environment::Production,
        )))
    }

    async fn status(&self, transaction: &Transaction, _now: Timestamp) -> Result<OperatorAnswer, OperatorError> {
        Err(OperatorError::Transient(reason(
            transaction.operator,
            transaction.tenant.environment,
        )))
    }

    fn callback(&self, _transaction: &Transaction, _now: Timestamp) -> Option<OperatorAnswer> {
        None
    }
}
