//! The dispatcher: claims due outbox events with a lease, sends each signed, records every
//! attempt and decides what follows (delivered, retry later, failed, endpoint disabled).
//! `run_once(now)` is one step, which tests drive; [`spawn_loop`] repeats it in the server.
//! In the server, new events do not wait for a claim: the writers hand them over leased as
//! their batch commits ([`crate::store::LeasedEvent`]), and [`spawn_handoff_loops`] sends them.

use std::sync::Arc;
use std::time::Duration;

use rand::Rng;
use tokio::sync::{mpsc, watch, Mutex};
use tokio::task::{JoinHandle, JoinSet};

use super::client::{Delivery, WebhookClient};
use super::retry::RetrySchedule;
use super::signing;
use crate::config::WebhookSettings;
use crate::domain::Timestamp;
use crate::net::redact_url;
use crate::store::{take_queued_within, Attempt, DueEvent, EventUpdate, Finished, LeasedEvent, Store, StoreError};
use crate::telemetry::metrics::Metrics;
use crate::telemetry::supervise::caught;

/// How many events one step claims.
const BATCH: u32 = 256;

/// What one step did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Report {
    pub claimed: usize,
    pub delivered: usize,
    pub retrying: usize,
    pub failed: usize,
    /// Results dropped because the lease had been lost (another dispatcher took over).
    pub lease_lost: usize,
}

#[derive(Clone)]
pub struct Dispatcher {
    store: Arc<dyn Store>,
    metrics: Arc<Metrics>,
    client: WebhookClient,
    schedule: RetrySchedule,
    lease: Duration,
    /// How long one attempt may take: a handed event with less of its lease left is left to the
    /// claims, so that it is never sent while a claim may take it.
    timeout: Duration,
}

impl Dispatcher {
    /// A dispatcher over `store`'s outbox. Fails only when the HTTP client cannot be built.
    pub fn new(
        store: Arc<dyn Store>,
        settings: &WebhookSettings,
        metrics: Arc<Metrics>,
    ) -> Result<Dispatcher, reqwest::Error> {
        let client = WebhookClient::new(settings.timeout, settings.allow_private)?;
        Ok(Dispatcher {
            schedule: RetrySchedule::new(settings.retry_schedule.clone()),
            lease: settings.lease,
            timeout: settings.timeout,
            client,
            store,
            metrics,
        })
    }

    /// Claims the events due at `now`, attempts each once (concurrently), and records every
    /// result in one database transaction.
    pub async fn run_once(&self, now: Timestamp) -> Result<Report, StoreError> {
        let lease_until = now.plus(self.lease);
        let due = self.store.claim_due_events(now, lease_until, BATCH).await?;
        self.deliver(due, now).await
    }

    /// How long a claimed (or handed) event is this dispatcher's.
    pub fn lease(&self) -> Duration {
        self.lease
    }

    /// Attempts events the writers handed over, as `run_once` attempts claimed ones.
    pub async fn run_handed(&self, handed: Vec<LeasedEvent>, now: Timestamp) -> Result<Report, StoreError> {
        let last_start = now.plus(self.timeout);
        let (fresh, late): (Vec<_>, Vec<_>) = handed.into_iter().partition(|e| e.lease_until > last_start);
        if !late.is_empty() {
            tracing::warn!(
                events = late.len(),
                "handed webhook events waited out their lease; the claims send them"
            );
        }
        let due = self.store.address_events(fresh).await?;
        self.deliver(due, now).await
    }

    /// Attempts each of `due` once (concurrently), and records every result in one database
    /// transaction.
    async fn deliver(&self, due: Vec<DueEvent>, now: Timestamp) -> Result<Report, StoreError> {
        let mut report = Report {
            claimed: due.len(),
            ..Report::default()
        };
        if due.is_empty() {
            return Ok(report);
        }
        let mut sending = JoinSet::new();
        for event in due {
            let this = self.clone();
            sending.spawn(async move { this.attempt(event, now).await });
        }
        let mut batch = Vec::with_capacity(report.claimed);
        while let Some(joined) = sending.join_next().await {
            if let Ok(finished) = joined {
                batch.push(finished);
            }
        }
        let recorded = self.store.finish_attempts(&batch, now).await?;
        let metrics = &self.metrics;
        for (finished, recorded) in batch.iter().zip(recorded) {
            if !recorded {
                report.lease_lost += 1;
                continue;
            }
            let outcome = match &finished.update {
                EventUpdate::Delivered => {
                    report.delivered += 1;
                    "delivered"
                }
                EventUpdate::RetryAt { .. } => {
                    report.retrying += 1;
                    "retry"
                }
                EventUpdate::Failed { .. } => {
                    report.failed += 1;
                    "failed"
                }
                EventUpdate::FailedAndDisableEndpoint { .. } => {
                    report.failed += 1;
                    "gone"
                }
            };
            // An event with nowhere to go (no URL, or a disabled endpoint) made no delivery:
            // counting it as a failed one would read as the merchant's receiver failing.
            if finished.attempt.is_some() {
                metrics.webhook_delivery(outcome);
            } else {
                metrics.webhook_unsent();
            }
        }
        Ok(report)
    }

    /// One attempt at one event (or none, when there is nowhere to send it), not yet recorded.
    async fn attempt(&self, event: DueEvent, now: Timestamp) -> Finished {
        let url = match (&event.webhook_url, event.endpoint_disabled) {
            (None, _) => Err("no webhook URL is configured for this environment"),
            (Some(_), true) => Err("endpoint disabled after a 410 answer; set the webhook URL again to re-enable it"),
            (Some(url), false) => Ok(url.clone()),
        };
        let url = match url {
            Ok(url) => url,
            Err(why) => {
                let update = EventUpdate::Failed { error: why.into() };
                return Finished {
                    event,
                    attempt: None,
                    update,
                };
            }
        };
        let timestamp = now.unix_seconds();
        // The newest secret first; the one a rotation replaced too, while its overlap lasts.
        let mut secrets = vec![event.webhook_secret.as_str()];
        if let Some(previous) = event.previous_webhook_secret.as_ref().filter(|p| p.signs_at(now)) {
            secrets.push(&previous.secret);
        }
        let delivery = match signing::sign_all(&secrets, &event.id, timestamp, event.payload.as_bytes()) {
            Ok(signature) => {
                self.client
                    .send(&url, &event.id, timestamp, &signature, &event.payload)
                    .await
            }
            Err(e) => Delivery {
                status_code: None,
                latency_ms: 0,
                error: Some(e.to_string()),
                response: None,
                retry_after: None,
            },
        };
        let number = event.attempts + 1;
        let update = self.decide(number, &delivery, now);
        match &update {
            EventUpdate::Delivered => tracing::debug!(event = %event.id, attempt = number, "webhook delivered"),
            other => tracing::info!(event = %event.id, attempt = number, status = ?delivery.status_code,
                error = delivery.error.as_deref().unwrap_or(""), outcome = ?other, "webhook attempt failed"),
        }
        let attempt = Attempt {
            attempt: number,
            at: now,
            // Shown on the dashboard and by the API and the command line, which are not where a
            // secret in the merchant's URL belongs.
            url: redact_url(&url),
            status_code: delivery.status_code,
            latency_ms: delivery.latency_ms,
            error: delivery.error,
            response: delivery.response,
        };
        Finished {
            event,
            attempt: Some(attempt),
            update,
        }
    }

    fn decide(&self, attempt: u32, delivery: &Delivery, now: Timestamp) -> EventUpdate {
        let error = delivery.error.clone().unwrap_or_default();
        match delivery.status_code {
            Some(code) if (200..300).contains(&code) => EventUpdate::Delivered,
            Some(410) => EventUpdate::FailedAndDisableEndpoint { error },
            // Any other answer, or none (timeout, refused connection): try again later.
            Some(_) | None => {
                let jitter = rand::thread_rng().gen::<f64>();
                match self.schedule.delay_after(attempt, jitter, delivery.retry_after) {
                    Some(delay) => EventUpdate::RetryAt {
                        next_attempt_at: now.plus(delay),
                        error,
                    },
                    None => EventUpdate::Failed {
                        error: format!("gave up after {attempt} attempts; last: {error}"),
                    },
                }
            }
        }
    }
}

/// Runs the dispatcher until `stop` turns true, finishing the current step first. A full batch
/// is followed at once by the next step, so a backlog drains at full speed.
pub fn spawn_loop(dispatcher: Dispatcher, mut stop: watch::Receiver<bool>) -> JoinHandle<()> {
    tokio::spawn(async move {
        loop {
            let step = dispatcher.run_once(Timestamp::now());
            let Some(report) = caught("webhook_dispatcher", &dispatcher.metrics, step).await else {
                continue;
            };
            match &report {
                Ok(r) if r.claimed > 0 => {
                    tracing::debug!(claimed = r.claimed, delivered = r.delivered, "dispatcher step")
                }
                Ok(_) => {}
                Err(e) => tracing::warn!(error = %e, "dispatcher step failed; retrying shortly"),
            }
            let busy = matches!(report, Ok(r) if r.claimed == BATCH as usize);
            if *stop.borrow() {
                break;
            }
            if !busy {
                tokio::select! {
                    _ = tokio::time::sleep(Duration::from_millis(250)) => {}
                    _ = stop.changed() => break,
                }
            }
        }
        tracing::debug!("webhook dispatcher stopped");
    })
}

/// How many handed events may wait for the dispatcher: a second or two of settlements at full
/// speed, about 1 KB each. A batch that finds no room leaves its events to the claims.
const HANDOFF_QUEUE: usize = 4096;

/// The queue between the writers and the handoff loops: `app` gives the store its sending end
/// and [`spawn_handoff_loops`] the other.
pub fn handoff_queue() -> (mpsc::Sender<LeasedEvent>, mpsc::Receiver<LeasedEvent>) {
    mpsc::channel(HANDOFF_QUEUE)
}

/// How long a handoff loop gathers events after the first: each step's results are one write
/// transaction, on SQLite's one writer connection, so a step of a few events at a time under
/// load would cost the payments more than the claims it saves.
const GATHER: Duration = Duration::from_millis(100);

/// Sends the events the writers hand over, until `stop` turns true: two loops on one queue, so
/// one sends while the other records. Events still queued at the stop keep their lease, and the
/// claims of the next start (or of another process) send them once it ends.
pub fn spawn_handoff_loops(
    dispatcher: Dispatcher,
    handed: mpsc::Receiver<LeasedEvent>,
    stop: watch::Receiver<bool>,
) -> Vec<JoinHandle<()>> {
    let handed = Arc::new(Mutex::new(handed));
    (0..2)
        .map(|_| {
            let (dispatcher, handed, mut stop) = (dispatcher.clone(), handed.clone(), stop.clone());
            tokio::spawn(async move {
                loop {
                    let batch = {
                        let mut handed = handed.lock().await;
                        tokio::select! {
                            batch = take_queued_within(&mut handed, BATCH as usize, GATHER) => batch,
                            _ = stop.changed() => None,
                        }
                    };
                    let Some(batch) = batch else { break };
                    let step = dispatcher.run_handed(batch, Timestamp::now());
                    if let Some(Err(e)) = caught("webhook_handoff", &dispatcher.metrics, step).await {
                        tracing::warn!(error = %e, "sending handed webhook events failed; the claims send them once their lease ends");
                    }
                    if *stop.borrow() {
                        break;
                    }
                }
            })
        })
        .collect()
}
