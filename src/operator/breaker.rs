//! A circuit breaker per operator, around any connector. After `failures` consecutive
//! transport failures (unreachable, or a timeout after sending) the operator is "open": calls
//! fail at once as unreachable, so merchants get a fast 503 instead of waiting on a dead
//! operator, until `cool_down` has passed. Then one call is let through to probe it; an answer
//! closes the breaker, another failure opens it again. Every call is counted and timed in the
//! metrics, with the breaker's state.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use tracing::Instrument;

use super::{
    AccountHolder, CallbackRejected, CallbackRequest, Operator, OperatorAnswer, OperatorError, OperatorRequest,
};
pub use crate::config::BreakerSettings;
use crate::domain::{Msisdn, OperatorCode, Timestamp, Transaction};
use crate::telemetry::metrics::{BreakerState, Metrics};
use crate::telemetry::traces;

/// One operator's breaker: pure state, with time as a parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Closed {
        consecutive: u32,
    },
    Open {
        until: Instant,
    },
    /// The cool-down is over and one probe is in flight; other calls still fail fast.
    Probing,
}

impl State {
    fn admit(&mut self, now: Instant) -> bool {
        match *self {
            State::Closed { .. } => true,
            State::Open { until } if now >= until => {
                *self = State::Probing;
                true
            }
            State::Open { .. } | State::Probing => false,
        }
    }

    fn record(&mut self, transport_failure: bool, settings: BreakerSettings, now: Instant) {
        *self = match (*self, transport_failure) {
            (_, false) => State::Closed { consecutive: 0 },
            (State::Closed { consecutive }, true) if consecutive + 1 < settings.failures => State::Closed {
                consecutive: consecutive + 1,
            },
            (State::Closed { .. } | State::Probing | State::Open { .. }, true) => State::Open {
                until: now + settings.cool_down,
            },
        };
    }

    fn public(self) -> BreakerState {
        match self {
            State::Closed { .. } => BreakerState::Closed,
            State::Open { .. } => BreakerState::Open,
            State::Probing => BreakerState::HalfOpen,
        }
    }
}

/// The breakers' clock: the monotonic clock, moved on by whatever [`advance`](Self::advance)
/// added, so that a test passes a cool-down without waiting for it.
#[derive(Debug, Default)]
pub struct BreakerClock {
    skipped: Mutex<Duration>,
}

impl BreakerClock {
    pub fn now(&self) -> Instant {
        Instant::now() + *self.skipped.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Moves every breaker's time on by `by`.
    pub fn advance(&self, by: Duration) {
        *self.skipped.lock().unwrap_or_else(|p| p.into_inner()) += by;
    }
}

/// A connector behind a breaker per operator code.
pub struct Guarded {
    inner: Arc<dyn Operator>,
    /// The connector's name, for its calls' spans.
    connector: &'static str,
    settings: BreakerSettings,
    states: Mutex<HashMap<OperatorCode, State>>,
    metrics: Arc<Metrics>,
    clock: Arc<BreakerClock>,
}

impl Guarded {
    pub fn new(
        inner: Arc<dyn Operator>,
        connector: &'static str,
        settings: BreakerSettings,
        metrics: Arc<Metrics>,
        clock: Arc<BreakerClock>,
    ) -> Guarded {
        Guarded {
            inner,
            connector,
            settings,
            states: Mutex::new(HashMap::new()),
            metrics,
            clock,
        }
    }

    fn with_state<R>(&self, operator: OperatorCode, f: impl FnOnce(&mut State) -> R) -> R {
        let mut states = self.states.lock().unwrap_or_else(|p| p.into_inner());
        let state = states.entry(operator).or_insert(State::Closed { consecutive: 0 });
        let result = f(state);
        self.metrics.operator_breaker(operator.name(), state.public());
        result
    }

    /// Runs `call` unless the breaker of `operator` is open, and records what came back.
    async fn guard<T, F>(&self, operator: OperatorCode, call: &'static str, run: F) -> Result<T, OperatorError>
    where
        F: std::future::Future<Output = Result<T, OperatorError>>,
    {
        if !self.with_state(operator, |s| s.admit(self.clock.now())) {
            self.metrics
                .operator_call(operator.name(), call, "circuit_open", Duration::ZERO);
            return Err(OperatorError::Transient(format!(
                "{} is unavailable: {} consecutive failures; the gateway retries after {} s",
                operator.name(),
                self.settings.failures,
                self.settings.cool_down.as_secs()
            )));
        }
        let started = Instant::now();
        // The call's span, where traces are exported (none otherwise: a span costs its
        // formatting on every call): which operator, connector and call, and how it ended;
        // nothing of the payment (no number, no amount) is on it.
        let span = if traces::enabled() {
            tracing::info_span!(
                "operator_call",
                operator = operator.name(),
                connector = self.connector,
                call,
                outcome = tracing::field::Empty,
            )
        } else {
            tracing::Span::none()
        };
        let result = run.instrument(span.clone()).await;
        let (outcome, transport_failure) = match &result {
            Ok(_) => ("answered", false),
            Err(OperatorError::Rejected { .. }) => ("rejected", false),
            Err(OperatorError::Transient(_)) => ("unreachable", true),
            Err(OperatorError::Ambiguous(_)) => ("ambiguous", true),
            // It answered: the operator is up, whatever it said.
            Err(OperatorError::BadAnswer { kind, .. }) => {
                self.metrics.operator_bad_answer(operator.name(), kind.name());
                ("bad_answer", false)
            }
        };
        span.record("outcome", outcome);
        self.metrics
            .operator_call(operator.name(), call, outcome, started.elapsed());
        self.with_state(operator, |s| {
            s.record(transport_failure, self.settings, self.clock.now())
        });
        result
    }
}

#[async_trait]
impl Operator for Guarded {
    async fn prepare(&self, request: &OperatorRequest<'_>) -> Result<Option<String>, OperatorError> {
        if !self.inner.prepares() {
            return Ok(None);
        }
        self.guard(request.operator, "prepare", self.inner.prepare(request))
            .await
    }

    fn prepares(&self) -> bool {
        self.inner.prepares()
    }

    async fn initiate(&self, request: &OperatorRequest<'_>) -> Result<OperatorAnswer, OperatorError> {
        self.guard(request.operator, "initiate", self.inner.initiate(request))
            .await
    }

    async fn cancel(&self, transaction: &Transaction) -> Result<(), OperatorError> {
        self.guard(transaction.operator, "cancel", self.inner.cancel(transaction))
            .await
    }

    async fn status(&self, transaction: &Transaction, now: Timestamp) -> Result<OperatorAnswer, OperatorError> {
        self.guard(transaction.operator, "status", self.inner.status(transaction, now))
            .await
    }

    async fn account_holder(&self, operator: OperatorCode, phone: &Msisdn) -> Result<AccountHolder, OperatorError> {
        self.guard(operator, "account_holder", self.inner.account_holder(operator, phone))
            .await
    }

    fn refunds(&self) -> bool {
        self.inner.refunds()
    }

    fn needs_code(&self, operator: OperatorCode) -> bool {
        self.inner.needs_code(operator)
    }

    fn refunds_in_part(&self) -> bool {
        self.inner.refunds_in_part()
    }

    fn hosts_payer_page(&self) -> bool {
        self.inner.hosts_payer_page()
    }

    fn verify_callback(&self, request: &CallbackRequest<'_>) -> Result<String, CallbackRejected> {
        self.inner.verify_callback(request)
    }

    fn callback(&self, transaction: &Transaction, now: Timestamp) -> Option<OperatorAnswer> {
        self.inner.callback(transaction, now)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SETTINGS: BreakerSettings = BreakerSettings {
        failures: 3,
        cool_down: Duration::from_secs(10),
    };

    #[test]
    fn opens_after_consecutive_failures_and_probes_after_the_cool_down() {
        let t0 = Instant::now();
        let mut s = State::Closed { consecutive: 0 };
        for _ in 0..2 {
            assert!(s.admit(t0));
            s.record(true, SETTINGS, t0);
        }
        assert_eq!(s, State::Closed { consecutive: 2 }, "two failures: still closed");
        s.record(true, SETTINGS, t0);
        assert!(!s.admit(t0 + Duration::from_secs(9)), "open during the cool-down");
        assert!(s.admit(t0 + Duration::from_secs(10)), "one probe after it");
        assert!(!s.admit(t0 + Duration::from_secs(10)), "only one probe at a time");
        s.record(true, SETTINGS, t0 + Duration::from_secs(10));
        assert!(!s.admit(t0 + Duration::from_secs(19)), "a failed probe opens it again");
        assert!(s.admit(t0 + Duration::from_secs(20)));
        s.record(false, SETTINGS, t0 + Duration::from_secs(20));
        assert_eq!(s, State::Closed { consecutive: 0 }, "an answer closes it");
    }

    #[test]
    fn an_answer_resets_the_count() {
        let t0 = Instant::now();
        let mut s = State::Closed { consecutive: 0 };
        s.record(true, SETTINGS, t0);
        s.record(true, SETTINGS, t0);
        s.record(false, SETTINGS, t0);
        s.record(true, SETTINGS, t0);
        assert_eq!(s, State::Closed { consecutive: 1 });
    }
}
