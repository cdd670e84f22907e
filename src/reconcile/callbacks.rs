//! Operator callbacks. Real connectors receive them over HTTP; the simulator's are made up
//! here, once its delay has passed, and settle like a real callback would.

use super::{for_each_pending, outcome_of, Report};
use crate::domain::{Cause, Timestamp};
use crate::service::{Gateway, ServiceError};

pub async fn run_once(gateway: &Gateway, now: Timestamp) -> Result<Report, ServiceError> {
    let created_before = now.minus(gateway.config().simulator.delay);
    for_each_pending(gateway, created_before, None, |record| async move {
        let Some(outcome) = gateway
            .operator_callback(&record, now)
            .and_then(|answer| outcome_of(answer, Cause::OperatorCallback))
        else {
            return Ok(false);
        };
        Ok(gateway.settle_later(&record, outcome, now, None).await?.is_some())
    })
    .await
}
