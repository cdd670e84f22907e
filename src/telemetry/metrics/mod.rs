//! Counters and histograms for `GET /metrics`, through `prometheus-client` (the Prometheus
//! project's Rust client), in the OpenMetrics text format. Gauges that describe the database
//! (pending transactions, outbox backlog) are read from it at scrape time, so they are right
//! whichever process answers; the process's own figures come from `process.rs`.

use std::time::Duration;

use prometheus_client::encoding::text::encode;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;

use super::database::{DatabaseCollector, DatabaseFigures};
use super::process::ProcessCollector;
use super::write_batches::WriteBatchCollector;
use crate::store::WriteBatchStats;

/// The content type of the OpenMetrics exposition, for scrapers that ask for it (Prometheus does).
pub const OPENMETRICS: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// The content type of the classic Prometheus text exposition, for every other reader (curl,
/// `promtool check metrics`).
pub const PROMETHEUS_TEXT: &str = "text/plain; version=0.0.4; charset=utf-8";

const LATENCY_BUCKETS: [f64; 12] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0];

/// Label names and values, in the order they are shown.
type Labels = Vec<(&'static str, String)>;

type Latencies = Family<Labels, Histogram, fn() -> Histogram>;

fn latency_histogram() -> Histogram {
    Histogram::new(LATENCY_BUCKETS)
}

fn labels<const N: usize>(pairs: [(&'static str, &str); N]) -> Labels {
    pairs
        .into_iter()
        .map(|(name, value)| (name, value.to_owned()))
        .collect()
}

/// An operator's circuit breaker, as the metrics show it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BreakerState {
    Closed,
    HalfOpen,
    Open,
}

impl BreakerState {
    /// The gauge's value: 0 closed, 1 half-open (probing), 2 open.
    fn value(self) -> i64 {
        match self {
            BreakerState::Closed => 0,
            BreakerState::HalfOpen => 1,
            BreakerState::Open => 2,
        }
    }
}

/// What each scrape reads: the database's figures (`None` when it did not answer), and this
/// process's connections and write batches, which it always has.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Gauges {
    pub database: Option<DatabaseFigures>,
    pub db_pool_size: u32,
    pub db_pool_idle: u32,
    pub write_batches: WriteBatchStats,
}

/// This process's series.
pub struct Metrics {
    registry: Registry,
    requests: Family<Labels, Counter>,
    request_latency: Latencies,
    operator_calls: Family<Labels, Counter>,
    operator_latency: Latencies,
    operator_breakers: Family<Labels, Gauge>,
    operator_callbacks: Family<Labels, Counter>,
    operator_bad_answers: Family<Labels, Counter>,
    operator_sends: Family<Labels, Counter>,
    transactions: Family<Labels, Counter>,
    webhook_deliveries: Family<Labels, Counter>,
    webhook_unsent: Counter,
    worker_runs: Family<Labels, Counter>,
    worker_settled: Family<Labels, Counter>,
    worker_panics: Family<Labels, Counter>,
    auth_failures: Family<Labels, Counter>,
    rate_limited: Family<Labels, Counter>,
    pool_connections: Gauge,
    pool_idle_connections: Gauge,
    database: DatabaseCollector,
    write_batches: WriteBatchCollector,
    /// Held from setting a scrape's figures to encoding them, so two scrapes at once cannot
    /// show each other's.
    rendering: std::sync::Mutex<()>,
}

impl Default for Metrics {
    fn default() -> Self {
        let mut registry = Registry::default();
        let requests = Family::default();
        let request_latency = Latencies::new_with_constructor(latency_histogram);
        let operator_calls = Family::default();
        let operator_latency = Latencies::new_with_constructor(latency_histogram);
        let operator_breakers = Family::default();
        let operator_callbacks = Family::default();
        let operator_bad_answers = Family::default();
        let operator_sends = Family::default();
        let transactions = Family::default();
        let webhook_deliveries = Family::default();
        let webhook_unsent = Counter::default();
        let worker_runs = Family::default();
        let worker_settled = Family::default();
        let worker_panics = Family::default();
        let auth_failures = Family::default();
        let rate_limited = Family::default();
        let pool_connections = Gauge::default();
        let pool_idle_connections = Gauge::default();
        // Counters are registered without `_total`: the encoder adds it.
        let r = &mut registry;
        // A gauge at 1 rather than an OpenMetrics `info`, which the Prometheus text parsers
        // (promtool's among them) do not know.
        let build: Family<Labels, Gauge> = Family::default();
        build
            .get_or_create(&labels([("version", env!("CARGO_PKG_VERSION"))]))
            .set(1);
        r.register("momo_build_info", "The running build", build);
        r.register(
            "momo_http_requests",
            "HTTP requests by route template, method and status",
            requests.clone(),
        );
        r.register(
            "momo_http_request_duration_seconds",
            "HTTP request latency by route template and method",
            request_latency.clone(),
        );
        r.register(
            "momo_operator_calls",
            "Calls to operators by operator, call and outcome (circuit_open: refused by the breaker)",
            operator_calls.clone(),
        );
        r.register(
            "momo_operator_call_duration_seconds",
            "Operator call latency by operator and call",
            operator_latency.clone(),
        );
        r.register(
            "momo_operator_breaker_state",
            "Each operator's circuit breaker: 0 closed, 1 half-open, 2 open",
            operator_breakers.clone(),
        );
        r.register(
            "momo_operator_callbacks",
            "Operator callbacks by operator and what became of them",
            operator_callbacks.clone(),
        );
        r.register(
            "momo_operator_bad_answers",
            "Operator answers not taken at their word (malformed, unknown status, another amount or currency), by operator and kind",
            operator_bad_answers.clone(),
        );
        r.register(
            "momo_operator_sends",
            "Payments handed to a connector, by operator, connector and outcome (carried: it took the payment; fell_back: it refused before anything was sent and the route's next connector was tried)",
            operator_sends.clone(),
        );
        r.register(
            "momo_transactions",
            "Transactions created (PENDING) and settled, by operator, type and outcome",
            transactions.clone(),
        );
        r.register(
            "momo_webhook_deliveries",
            "Webhook deliveries attempted, by outcome",
            webhook_deliveries.clone(),
        );
        r.register(
            "momo_webhook_events_unsent",
            "Webhook events closed without a delivery: no URL set, or the endpoint disabled",
            webhook_unsent.clone(),
        );
        r.register("momo_worker_runs", "Worker steps run, by worker", worker_runs.clone());
        r.register(
            "momo_worker_settled",
            "Transactions settled by each worker",
            worker_settled.clone(),
        );
        r.register(
            "momo_worker_panics",
            "Worker steps that panicked (caught; the worker goes on), by worker",
            worker_panics.clone(),
        );
        r.register(
            "momo_auth_failures",
            "Refused credentials and tokens",
            auth_failures.clone(),
        );
        r.register(
            "momo_rate_limited",
            "Requests refused with 429, by limit",
            rate_limited.clone(),
        );
        r.register(
            "momo_db_pool_connections",
            "Database connections open in this process",
            pool_connections.clone(),
        );
        r.register(
            "momo_db_pool_idle_connections",
            "Idle database connections in this process",
            pool_idle_connections.clone(),
        );
        let database = DatabaseCollector::default();
        r.register_collector(Box::new(database.clone()));
        let write_batches = WriteBatchCollector::default();
        r.register_collector(Box::new(write_batches.clone()));
        r.register_collector(Box::new(ProcessCollector));
        Metrics {
            registry,
            requests,
            request_latency,
            operator_calls,
            operator_latency,
            operator_breakers,
            operator_callbacks,
            operator_bad_answers,
            operator_sends,
            transactions,
            webhook_deliveries,
            webhook_unsent,
            worker_runs,
            worker_settled,
            worker_panics,
            auth_failures,
            rate_limited,
            pool_connections,
            pool_idle_connections,
            database,
            write_batches,
            rendering: std::sync::Mutex::new(()),
        }
    }
}

impl Metrics {
    pub fn observe_request(&self, route: &str, method: &str, status: u16, latency: Duration) {
        let status = status.to_string();
        self.requests
            .get_or_create(&labels([("route", route), ("method", method), ("status", &status)]))
            .inc();
        self.request_latency
            .get_or_create(&labels([("route", route), ("method", method)]))
            .observe(latency.as_secs_f64());
    }

    /// One call to an operator (`initiate`, `status`, `cancel`) and how it ended.
    pub fn operator_call(&self, operator: &'static str, call: &'static str, outcome: &'static str, latency: Duration) {
        self.operator_calls
            .get_or_create(&labels([("operator", operator), ("call", call), ("outcome", outcome)]))
            .inc();
        self.operator_latency
            .get_or_create(&labels([("operator", operator), ("call", call)]))
            .observe(latency.as_secs_f64());
    }

    /// An answer from an operator that was not taken at its word, by what was wrong with it.
    pub fn operator_bad_answer(&self, operator: &'static str, kind: &'static str) {
        self.operator_bad_answers
            .get_or_create(&labels([("operator", operator), ("kind", kind)]))
            .inc();
    }

    /// An operator's callback and what became of it (`accepted`, `already_final`,
    /// `unknown_reference`, `other_route`, `unauthenticated`, `malformed`, `unsupported`).
    pub fn operator_callback(&self, operator: &'static str, outcome: &'static str) {
        self.operator_callbacks
            .get_or_create(&labels([("operator", operator), ("outcome", outcome)]))
            .inc();
    }

    /// A payment handed to `connector`: `carried` when it took it, `fell_back` when it refused
    /// before anything was sent and the route's next connector was tried.
    pub fn operator_send(&self, operator: &'static str, connector: &'static str, outcome: &'static str) {
        self.operator_sends
            .get_or_create(&labels([
                ("operator", operator),
                ("connector", connector),
                ("outcome", outcome),
            ]))
            .inc();
    }

    pub fn operator_breaker(&self, operator: &'static str, state: BreakerState) {
        self.operator_breakers
            .get_or_create(&labels([("operator", operator)]))
            .set(state.value());
    }

    /// A transaction created (`PENDING`) or settled (`SUCCESSFUL`, `FAILED`).
    pub fn transaction(&self, operator: &'static str, kind: &'static str, outcome: &'static str) {
        self.transactions
            .get_or_create(&labels([("operator", operator), ("type", kind), ("outcome", outcome)]))
            .inc();
    }

    /// A delivery attempted, by how it ended (`delivered`, `retry`, `failed`, `gone`).
    pub fn webhook_delivery(&self, outcome: &'static str) {
        self.webhook_deliveries
            .get_or_create(&labels([("outcome", outcome)]))
            .inc();
    }

    /// An event closed without a delivery: its merchant set no URL, or its endpoint is disabled.
    pub fn webhook_unsent(&self) {
        self.webhook_unsent.inc();
    }

    pub fn worker_run(&self, worker: &'static str, settled: usize) {
        let worker = labels([("worker", worker)]);
        self.worker_runs.get_or_create(&worker).inc();
        self.worker_settled.get_or_create(&worker).inc_by(settled as u64);
    }

    pub fn worker_panic(&self, worker: &'static str) {
        self.worker_panics.get_or_create(&labels([("worker", worker)])).inc();
    }

    pub fn auth_failure(&self, kind: &'static str) {
        self.auth_failures.get_or_create(&labels([("kind", kind)])).inc();
    }

    pub fn rate_limited(&self, limit: &'static str) {
        self.rate_limited.get_or_create(&labels([("limit", limit)])).inc();
    }

    /// The exposition of every series with the database's `gauges`: OpenMetrics text, or with
    /// `openmetrics` false the classic Prometheus text format.
    pub fn render_as(&self, gauges: &Gauges, openmetrics: bool) -> String {
        let exposition = self.render(gauges);
        if openmetrics {
            exposition
        } else {
            classic_text(&exposition)
        }
    }

    /// The OpenMetrics text exposition of every series, with the database's `gauges`.
    pub fn render(&self, gauges: &Gauges) -> String {
        // A poisoned lock only means a scrape panicked mid-way; it guards no data.
        let _rendering = self.rendering.lock().unwrap_or_else(|e| e.into_inner());
        self.database.set(gauges.database);
        self.pool_connections.set(i64::from(gauges.db_pool_size));
        self.pool_idle_connections.set(i64::from(gauges.db_pool_idle));
        self.write_batches.set(gauges.write_batches);
        let mut out = String::new();
        // Writing to a String cannot fail; an encoder error would be a bug in a metric's labels.
        if let Err(e) = encode(&mut out, &self.registry) {
            tracing::error!(error = %e, "the metrics could not be encoded");
        }
        out
    }
}

/// The classic Prometheus text format of an OpenMetrics exposition: a counter's family is
/// named by its samples (`x_total`, where OpenMetrics names it `x`), and there is no `# EOF`.
/// The crate writes OpenMetrics only; the two differ in nothing else we use (no units, no
/// exemplars, no `info` or `stateset`).
fn classic_text(openmetrics: &str) -> String {
    let counters: std::collections::HashSet<&str> = openmetrics
        .lines()
        .filter_map(|l| l.strip_prefix("# TYPE ")?.strip_suffix(" counter"))
        .collect();
    let mut out = String::with_capacity(openmetrics.len());
    for line in openmetrics.lines() {
        if line == "# EOF" {
            continue;
        }
        let renamed = ["# HELP ", "# TYPE "].iter().find_map(|prefix| {
            let rest = line.strip_prefix(prefix)?;
            let (name, tail) = rest.split_once(' ')?;
            counters.contains(name).then(|| format!("{prefix}{name}_total {tail}"))
        });
        out.push_str(renamed.as_deref().unwrap_or(line));
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests;
