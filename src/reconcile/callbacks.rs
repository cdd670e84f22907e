//! Operator callbacks. Real connectors receive them over HTTP; the simulator's are made up
//! here, once its delay has passed, and settle like a real callback would.
//!
//! The simulator calls back at a fixed time after creation, so a transaction looked at once
//! after its delay needs no second look: the server's loop keeps a [`Watermark`] and each pass
//! reads only the transactions that became due since the last one, whatever the backlog of
//! pending payments. A payment it misses (created by a transaction that committed after the
//! watermark passed its time) is settled by the reconciler's status check instead.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::{for_each_pending_after, outcome_of, Report};
use crate::domain::{Cause, Cursor, Timestamp};
use crate::service::{Payments, ServiceError};

/// Where the previous pass stopped.
#[derive(Debug, Clone, Default)]
pub struct Watermark(Arc<Mutex<Option<Cursor>>>);

impl Watermark {
    fn get(&self) -> Option<Cursor> {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    fn set(&self, cursor: Option<Cursor>) {
        *self.0.lock().unwrap_or_else(|p| p.into_inner()) = cursor;
    }
}

/// One pass over every pending transaction whose callback is due.
pub async fn run_once(payments: &Payments, now: Timestamp) -> Result<Report, ServiceError> {
    run_after(payments, now, &Watermark::default(), None).await
}

/// One pass over the pending transactions that became due since `watermark`, which it moves;
/// it ends once it has worked `budget` (`Report::unfinished`), or with `None` once none is left.
pub async fn run_after(
    payments: &Payments,
    now: Timestamp,
    watermark: &Watermark,
    budget: Option<Duration>,
) -> Result<Report, ServiceError> {
    let created_before = now.minus(payments.config().simulator.delay);
    let start = watermark.get();
    let (report, last) = for_each_pending_after(payments, created_before, None, start, budget, |record| async move {
        let Some(outcome) = payments
            .operator_callback(&record, now)
            .and_then(|answer| outcome_of(answer, Cause::OperatorCallback))
        else {
            return Ok(false);
        };
        Ok(payments
            .balances()
            .settle_later(&record, outcome, now, None)
            .await?
            .is_some())
    })
    .await?;
    watermark.set(last);
    Ok(report)
}
