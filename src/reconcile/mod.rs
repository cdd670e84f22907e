//! Workers that settle pending transactions, and the purge of expired idempotency keys. Each
//! step is a function called once with the current time (`run_once(now)`), which tests drive
//! directly; [`spawn_loops`] repeats them in the server. Every settlement is conditional in
//! the database, so several processes may run the same workers against one PostgreSQL
//! database without settling anything twice.

pub mod abandoned_batches;
pub mod callbacks;
pub mod expiry;
pub mod idempotency_keys;
pub mod payout_sender;
pub mod reconciler;
pub mod review;

use std::future::Future;
use std::time::Duration;

use futures_util::stream::{self, StreamExt};
use tokio::sync::watch;
use tokio::task::JoinHandle;

use crate::domain::TransactionRecord;
use crate::domain::{Cursor, Kind, Paged, Timestamp};
pub(crate) use crate::service::outcome_of;
pub use crate::service::settlement::{check_lease, missing_for_good_after};
use crate::service::{DueChecks, Gateway, Payments, PendingPage, ServiceError};
use crate::telemetry::metrics::Metrics;
use crate::telemetry::supervise::caught;

/// How many pending transactions a worker reads at a time.
pub(crate) const BATCH: u32 = 200;

/// How many of them a worker settles at once.
const CONCURRENT_VISITS: usize = 16;

/// How long a step of the server's loops that walks a backlog works before it ends, at the end
/// of a claim (`budget`; `run_once`, which tests drive, walks it all): the loop runs the next
/// step at once, where this one stopped, unless the gateway is stopping. A shutdown thus waits
/// for no more than this and the visits in flight, whatever the backlog (tens of thousands of
/// payments due after an operator's outage take minutes to visit).
const STEP_BUDGET: Duration = Duration::from_secs(1);

/// What one step did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Report {
    /// Pending transactions looked at.
    pub examined: usize,
    /// Transactions this step moved to a final state.
    pub settled: usize,
    /// Whether the step ended at its budget with work left.
    pub unfinished: bool,
}

/// Visits the pending transactions created at or before `created_before` that come after
/// `start` (oldest first), in batches; returns the last one visited, where the next pass may
/// start.
pub(crate) async fn for_each_pending_after<F, Fut>(
    payments: &Payments,
    created_before: Timestamp,
    kind: Option<Kind>,
    start: Option<Cursor>,
    budget: Option<Duration>,
    mut visit: F,
) -> Result<(Report, Option<Cursor>), ServiceError>
where
    F: FnMut(TransactionRecord) -> Fut,
    Fut: Future<Output = Result<bool, ServiceError>>,
{
    let mut report = Report::default();
    let mut after: Option<Cursor> = start;
    let started = std::time::Instant::now();
    loop {
        let batch = payments
            .pending_transactions(PendingPage {
                created_before,
                kind,
                after: after.as_ref(),
                limit: BATCH,
            })
            .await?;
        let full = batch.len() == BATCH as usize;
        if let Some(last) = batch.last() {
            after = Some(last.cursor());
        }
        report.examined += batch.len();
        visit_all(batch, CONCURRENT_VISITS, &mut visit, &mut report).await?;
        if !full {
            return Ok((report, after));
        }
        if budget.is_some_and(|b| started.elapsed() >= b) {
            report.unfinished = true;
            return Ok((report, after));
        }
    }
}

/// Visits `batch`, `at_once` at a time: each visit is its own database transaction and operator
/// call, and one at a time cannot keep up with a busy gateway's creations. A failing visit (its
/// database write or its operator away) does not stop the others, which may be claimed already
/// and would otherwise wait out their lease; the first failure is returned after them.
pub(crate) async fn visit_all<F, Fut>(
    batch: Vec<TransactionRecord>,
    at_once: usize,
    visit: &mut F,
    report: &mut Report,
) -> Result<(), ServiceError>
where
    F: FnMut(TransactionRecord) -> Fut,
    Fut: Future<Output = Result<bool, ServiceError>>,
{
    let mut visits = stream::iter(batch).map(visit).buffer_unordered(at_once);
    let mut failed = None;
    while let Some(settled) = visits.next().await {
        match settled {
            Ok(true) => report.settled += 1,
            Ok(false) => {}
            Err(e) => {
                failed.get_or_insert(e);
            }
        }
    }
    failed.map_or(Ok(()), Err)
}

/// Claims the pending transactions created at or before `created_before` (of `kind`, if
/// given) whose next check is due at `now`, a few at a time, and visits each claim's at once.
/// Claims are leased ([`check_lease`]): a process that dies mid-pass leaves them to another
/// after the lease, and two processes never visit one payment at once. A visit settles its
/// transaction or sets its next check (`Payments::schedule_check`); one that does neither
/// leaves it to the lease. Claimed [`CONCURRENT_VISITS`] at a time rather than a whole batch:
/// a lease must cover only the visits that run together, and the pass's clock moves on with
/// each claim.
pub(crate) async fn for_each_due<F, Fut>(
    payments: &Payments,
    now: Timestamp,
    created_before: Timestamp,
    kind: Option<Kind>,
    budget: Option<Duration>,
    mut visit: F,
) -> Result<Report, ServiceError>
where
    F: FnMut(TransactionRecord) -> Fut,
    Fut: Future<Output = Result<bool, ServiceError>>,
{
    let mut report = Report::default();
    let lease = check_lease(payments.config());
    let started = std::time::Instant::now();
    loop {
        let at = now.plus(started.elapsed());
        let batch = payments
            .claim_due_checks(DueChecks {
                now: at,
                created_before,
                kind,
                lease_until: at.plus(lease),
                limit: CONCURRENT_VISITS as u32,
            })
            .await?;
        let full = batch.len() == CONCURRENT_VISITS;
        report.examined += batch.len();
        visit_all(batch, CONCURRENT_VISITS, &mut visit, &mut report).await?;
        if !full {
            return Ok(report);
        }
        if budget.is_some_and(|b| started.elapsed() >= b) {
            report.unfinished = true;
            return Ok(report);
        }
    }
}

/// Runs the workers until `stop` turns true; each finishes its current step first. Each
/// worker's step takes the one service it works with.
pub fn spawn_loops(gateway: &Gateway, stop: watch::Receiver<bool>) -> Vec<JoinHandle<()>> {
    let reconcile_every = gateway.config().reconcile.interval;
    let callback_every =
        (gateway.config().simulator.delay / 4).clamp(Duration::from_millis(50), Duration::from_secs(1));
    let watermark = callbacks::Watermark::default();
    let metrics = gateway.metrics_handle();
    let pace = std::sync::Arc::new(payout_sender::Pace::new(gateway.config().payouts.rate_per_s));
    vec![
        spawn_loop(
            "simulated_operator_callbacks",
            callback_every,
            (gateway.payments.clone(), metrics.clone()),
            stop.clone(),
            move |payments, now| {
                let watermark = watermark.clone();
                async move { callbacks::run_after(&payments, now, &watermark, Some(STEP_BUDGET)).await }
            },
        ),
        spawn_loop(
            "reconciler",
            reconcile_every,
            (gateway.payments.clone(), metrics.clone()),
            stop.clone(),
            |payments, now| async move { reconciler::run_within(&payments, now, Some(STEP_BUDGET)).await },
        ),
        spawn_loop(
            "collection_expiry",
            reconcile_every,
            (gateway.payments.clone(), metrics.clone()),
            stop.clone(),
            |payments, now| async move { expiry::run_within(&payments, now, Some(STEP_BUDGET)).await },
        ),
        spawn_loop(
            "payout_sender",
            payout_sender::SEND_EVERY,
            (gateway.payouts.clone(), metrics.clone()),
            stop.clone(),
            move |payouts, now| {
                let pace = pace.clone();
                async move { payout_sender::run_once(&payouts, &pace, now).await }
            },
        ),
        spawn_loop(
            "abandoned_batch_sweep",
            abandoned_batches::SWEEP_EVERY,
            (gateway.payouts.clone(), metrics.clone()),
            stop.clone(),
            |payouts, now| async move { abandoned_batches::run_once(&payouts, now).await },
        ),
        spawn_loop(
            "idempotency_key_purge",
            idempotency_keys::PURGE_EVERY,
            (gateway.idempotency.clone(), metrics),
            stop,
            |idempotency, now| async move { idempotency_keys::run_once(&idempotency, now).await },
        ),
    ]
}

/// Runs `step` with `service` every `every` until `stop`, counting what it settles in `metrics`;
/// a step that panics is caught, counted, and the loop goes on (`telemetry::supervise`).
fn spawn_loop<S, F, Fut>(
    name: &'static str,
    every: Duration,
    (service, metrics): (S, std::sync::Arc<Metrics>),
    mut stop: watch::Receiver<bool>,
    step: F,
) -> JoinHandle<()>
where
    S: Clone + Send + Sync + 'static,
    F: Fn(S, Timestamp) -> Fut + Send + 'static,
    Fut: Future<Output = Result<Report, ServiceError>> + Send,
{
    tokio::spawn(async move {
        let mut ticker = tokio::time::interval(every);
        ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        // A step that ended at its budget with work left is followed by the next at once.
        let mut unfinished = false;
        loop {
            if !unfinished {
                tokio::select! {
                    _ = ticker.tick() => {}
                    _ = stop.changed() => break,
                }
            }
            if *stop.borrow() {
                break;
            }
            unfinished = false;
            let Some(result) = caught(name, &metrics, step(service.clone(), Timestamp::now())).await else {
                continue;
            };
            unfinished = matches!(&result, Ok(report) if report.unfinished);
            if let Ok(report) = &result {
                metrics.worker_run(name, report.settled);
            }
            match result {
                Ok(report) if report.settled > 0 => tracing::info!(
                    worker = name,
                    settled = report.settled,
                    examined = report.examined,
                    "worker step"
                ),
                Ok(_) => {}
                Err(e) => tracing::warn!(worker = name, error = %e, "worker step failed; retrying at the next tick"),
            }
        }
        tracing::debug!(worker = name, "stopped");
    })
}
