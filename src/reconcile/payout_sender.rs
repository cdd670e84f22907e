//! The payout sender: sends the queued transfers of payout batches (`service::payouts`), each
//! operator at its own pace (`MOMO_PAYOUT_RATE_PER_S` per process), so that a batch of
//! thousands neither floods an operator nor delays anyone's single payments, which are sent at
//! once by their own requests and never wait in this queue.
//!
//! Fair between merchants: each step serves Production before Sandbox (whose money is free, so
//! its queue may never empty), and within an environment goes round the merchants with queued
//! transfers, an even share of the operator's pace each, starting with the next merchant each
//! step. One merchant's 50,000 items thus delay another's single one by one step at most.
//!
//! Sent once: a claim takes at most [`CONCURRENT_SENDS`] transfers off the queue and sets their
//! first status check from the moment of the claim, in one statement, and they are sent at once;
//! each send takes the transfer's mark just before its call (`Payments::send_queued`), as the
//! reconciler does for a transfer whose sender died between claim and call, so the two never
//! both send it, and neither sends it once it is final.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use super::Report;
use crate::domain::{Environment, OperatorCode, Tenant, Timestamp};
use crate::service::payouts::{Payouts, QueuedClaim};
use crate::service::rate_limit::TokenBuckets;
use crate::service::ServiceError;

/// How often the sender looks at the queue.
pub const SEND_EVERY: std::time::Duration = std::time::Duration::from_millis(100);

/// Transfers sent at once, and so the most one claim takes: a claimed transfer waits for no
/// other's send before its own, so its first status check, set at the claim, finds it sent.
const CONCURRENT_SENDS: u32 = 32;

/// Each operator's pace (a token bucket per operator, a second's worth of burst), and where
/// the next step starts its round of merchants.
pub struct Pace {
    buckets: TokenBuckets,
    turn: AtomicUsize,
}

impl Pace {
    pub fn new(rate_per_s: u32) -> Pace {
        let rate = f64::from(rate_per_s.max(1));
        Pace {
            buckets: TokenBuckets::new(rate, rate).unwrap_or_else(|| unreachable!("a positive rate")),
            turn: AtomicUsize::new(0),
        }
    }

    /// Takes up to `most` sends of `operator` that its pace allows now.
    fn take(&self, operator: OperatorCode, most: u32, now: Instant) -> u32 {
        let mut taken = 0;
        while taken < most && self.buckets.take(operator.name(), now).is_ok() {
            taken += 1;
        }
        taken
    }
}

/// `tenants` of `environment`, starting at the `turn`-th.
fn round(tenants: &[Tenant], environment: Environment, turn: usize) -> Vec<&Tenant> {
    let mut of: Vec<&Tenant> = tenants.iter().filter(|t| t.environment == environment).collect();
    if !of.is_empty() {
        let start = turn % of.len();
        of.rotate_left(start);
    }
    of
}

/// One step: for each operator, what its pace allows of the queued transfers, Production's
/// merchants first, an even share each, claimed and sent a few at a time.
pub async fn run_once(payouts: &Payouts, pace: &Pace, now: Timestamp) -> Result<Report, ServiceError> {
    let mut report = Report::default();
    let tenants = payouts.tenants_with_open_batches().await?;
    if tenants.is_empty() {
        return Ok(report);
    }
    let turn = pace.turn.fetch_add(1, Ordering::Relaxed);
    let rounds = Environment::ALL.map(|environment| round(&tenants, environment, turn));
    let payments = payouts.payments();
    let most = payments.config().payouts.rate_per_s.max(1);
    let started = Instant::now();
    let mut failed = None;
    for operator in OperatorCode::ALL {
        let mut left = pace.take(operator, most, Instant::now());
        for merchants in &rounds {
            let mut open = merchants.clone();
            while left > 0 && !open.is_empty() {
                let share = (left / open.len() as u32).clamp(1, CONCURRENT_SENDS);
                let mut still_queued = Vec::with_capacity(open.len());
                for tenant in open {
                    if left == 0 {
                        break;
                    }
                    let asked = share.min(left);
                    let at = now.plus(started.elapsed());
                    let claim = QueuedClaim {
                        tenant,
                        operator,
                        first_check: at.plus(payments.config().reconcile.after),
                        limit: asked,
                    };
                    let claimed = payouts.claim_queued(claim).await?;
                    let got = claimed.len() as u32;
                    left -= got;
                    if got == asked {
                        still_queued.push(tenant);
                    }
                    report.examined += claimed.len();
                    let mut send = |record| payments.send_queued(record, at);
                    if let Err(e) = super::visit_all(claimed, CONCURRENT_SENDS as usize, &mut send, &mut report).await {
                        failed.get_or_insert(e);
                    }
                }
                open = still_queued;
            }
        }
    }
    failed.map_or(Ok(report), Err)
}
