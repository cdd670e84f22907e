//! Operator callbacks. Real connectors receive them over HTTP; the simulator's are made up
//! here, once its delay has passed, and settle like a real callback would.

use super::{for_each_pending, Report};
use crate::domain::{Cause, Outcome, Status, Timestamp};
use crate::operator::OperatorAnswer;
use crate::service::{Gateway, ServiceError};

pub async fn run_once(gateway: &Gateway, now: Timestamp) -> Result<Report, ServiceError> {
    let created_before = now.minus(gateway.config().simulator.delay);
    for_each_pending(gateway, created_before, None, |record| async move {
        let outcome = match gateway.operator_callback(&record, now) {
            Some(OperatorAnswer::Succeeded) => Outcome {
                status: Status::Successful,
                cause: Cause::OperatorCallback,
                code: None,
                reason: None,
            },
            Some(OperatorAnswer::Failed { code, reason }) => Outcome {
                status: Status::Failed,
                cause: Cause::OperatorCallback,
                code: Some(code),
                reason: Some(reason),
            },
            Some(OperatorAnswer::Pending) | None => return Ok(false),
        };
        Ok(gateway.settle_later(&record, outcome, now, None).await?.is_some())
    })
    .await
}
