//! The payout sender: sends the queued transfers of payout batches (`service::payouts`), each
//! operator at its own pace (`MOMO_PAYOUT_RATE_PER_S` per process), so that a batch of
//! thousands neither floods an operator nor delays anyone's single payments, which are sent at
//! once by their own requests and never wait in this queue. A claim takes a transfer off the
//! queue and sets its first status check in one statement: a sender that dies before asking
//! the operator leaves it to the reconciler, as a creation cut short is.

use std::time::Instant;

use futures_util::stream::{self, StreamExt};

use super::Report;
use crate::domain::{OperatorCode, Timestamp};
use crate::service::payouts::Payouts;
use crate::service::rate_limit::TokenBuckets;
use crate::service::ServiceError;

/// How often the sender looks at the queue.
pub const SEND_EVERY: std::time::Duration = std::time::Duration::from_millis(100);

/// Transfers one step sends at once.
const CONCURRENT_SENDS: usize = 32;

/// Each operator's pace: a token bucket per operator, a second's worth of burst.
pub struct Pace(TokenBuckets);

impl Pace {
    pub fn new(rate_per_s: u32) -> Pace {
        let rate = f64::from(rate_per_s.max(1));
        Pace(TokenBuckets::new(rate, rate).unwrap_or_else(|| unreachable!("a positive rate")))
    }

    /// Takes up to `most` sends of `operator` that its pace allows now.
    fn take(&self, operator: OperatorCode, most: u32, now: Instant) -> u32 {
        let mut taken = 0;
        while taken < most && self.0.take(operator.name(), now).is_ok() {
            taken += 1;
        }
        taken
    }
}

/// One step: for each operator, claims what its pace allows of its queued transfers and sends
/// them.
pub async fn run_once(payouts: &Payouts, pace: &Pace, now: Timestamp) -> Result<Report, ServiceError> {
    let payments = payouts.payments();
    let first_check = now.plus(payments.config().reconcile.after);
    let most = payments.config().payouts.rate_per_s.max(1);
    let mut report = Report::default();
    let mut failed = None;
    for operator in OperatorCode::ALL {
        let allowed = pace.take(operator, most, Instant::now());
        if allowed == 0 {
            continue;
        }
        let claimed = payouts.claim_queued(operator, first_check, allowed).await?;
        report.examined += claimed.len();
        let mut sends = stream::iter(claimed)
            .map(|record| payments.send_queued(record, now))
            .buffer_unordered(CONCURRENT_SENDS);
        while let Some(sent) = sends.next().await {
            match sent {
                Ok(true) => report.settled += 1,
                Ok(false) => {}
                Err(e) => {
                    failed.get_or_insert(e);
                }
            }
        }
    }
    failed.map_or(Ok(report), Err)
}
