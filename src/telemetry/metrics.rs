//! Counters and histograms for `GET /metrics`, in Prometheus text format, written by hand: the
//! few series we need do not earn a metrics crate's build time. Gauges that describe the
//! database (pending transactions, outbox backlog) are read from it at scrape time, so they are
//! right whichever process answers.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::Mutex;
use std::time::Duration;

const LATENCY_BUCKETS: [f64; 12] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0];

#[derive(Default)]
struct Histogram {
    counts: [u64; LATENCY_BUCKETS.len()],
    sum: f64,
    count: u64,
}

impl Histogram {
    fn observe(&mut self, latency: Duration) {
        let seconds = latency.as_secs_f64();
        for (i, bound) in LATENCY_BUCKETS.iter().enumerate() {
            if seconds <= *bound {
                self.counts[i] += 1;
            }
        }
        self.sum += seconds;
        self.count += 1;
    }

    fn render(&self, out: &mut String, name: &str, labels: &str) {
        for (i, bound) in LATENCY_BUCKETS.iter().enumerate() {
            let _ = writeln!(out, "{name}_bucket{{{labels},le=\"{bound}\"}} {}", self.counts[i]);
        }
        let _ = writeln!(out, "{name}_bucket{{{labels},le=\"+Inf\"}} {}", self.count);
        let _ = writeln!(out, "{name}_sum{{{labels}}} {}", self.sum);
        let _ = writeln!(out, "{name}_count{{{labels}}} {}", self.count);
    }
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
    fn value(self) -> u8 {
        match self {
            BreakerState::Closed => 0,
            BreakerState::HalfOpen => 1,
            BreakerState::Open => 2,
        }
    }
}

#[derive(Default)]
struct Series {
    operator_calls: BTreeMap<(&'static str, &'static str, &'static str), u64>,
    operator_latency: BTreeMap<(&'static str, &'static str), Histogram>,
    operator_breakers: BTreeMap<&'static str, BreakerState>,
    operator_callbacks: BTreeMap<(&'static str, &'static str), u64>,
    operator_bad_answers: BTreeMap<(&'static str, &'static str), u64>,
    requests: BTreeMap<(String, String, u16), u64>,
    latency: BTreeMap<(String, String), Histogram>,
    transactions: BTreeMap<(&'static str, &'static str, &'static str), u64>,
    webhook_deliveries: BTreeMap<&'static str, u64>,
    webhook_unsent: u64,
    worker_runs: BTreeMap<&'static str, (u64, u64)>,
    auth_failures: BTreeMap<&'static str, u64>,
    rate_limited: BTreeMap<&'static str, u64>,
}

/// This process's counters.
#[derive(Default)]
pub struct Metrics {
    series: Mutex<Series>,
}

/// Database-wide gauges, read at scrape time.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Gauges {
    pub pending_transactions: i64,
    pub oldest_pending_age_s: f64,
    pub pending_transfers_needing_review: i64,
    pub outbox_backlog: i64,
    pub oldest_outbox_age_s: f64,
    pub db_pool_size: u32,
    pub db_pool_idle: u32,
}

fn escape(value: &str) -> String {
    value.replace('\\', "\\\\").replace('"', "\\\"").replace('\n', "\\n")
}

impl Metrics {
    fn with<R>(&self, f: impl FnOnce(&mut Series) -> R) -> R {
        f(&mut self.series.lock().unwrap_or_else(|p| p.into_inner()))
    }

    pub fn observe_request(&self, route: &str, method: &str, status: u16, latency: Duration) {
        self.with(|s| {
            *s.requests
                .entry((route.to_owned(), method.to_owned(), status))
                .or_default() += 1;
            s.latency
                .entry((route.to_owned(), method.to_owned()))
                .or_default()
                .observe(latency);
        })
    }

    /// One call to an operator (`initiate`, `status`, `cancel`) and how it ended.
    pub fn operator_call(&self, operator: &'static str, call: &'static str, outcome: &'static str, latency: Duration) {
        self.with(|s| {
            *s.operator_calls.entry((operator, call, outcome)).or_default() += 1;
            s.operator_latency.entry((operator, call)).or_default().observe(latency);
        })
    }

    /// An answer from an operator that was not taken at its word, by what was wrong with it.
    pub fn operator_bad_answer(&self, operator: &'static str, kind: &'static str) {
        self.with(|s| *s.operator_bad_answers.entry((operator, kind)).or_default() += 1)
    }

    /// An operator's callback and what became of it (`accepted`, `already_final`,
    /// `unknown_reference`, `other_route`, `unauthenticated`, `malformed`, `unsupported`).
    pub fn operator_callback(&self, operator: &'static str, outcome: &'static str) {
        self.with(|s| *s.operator_callbacks.entry((operator, outcome)).or_default() += 1)
    }

    pub fn operator_breaker(&self, operator: &'static str, state: BreakerState) {
        self.with(|s| s.operator_breakers.insert(operator, state));
    }

    /// A transaction created (`PENDING`) or settled (`SUCCESSFUL`, `FAILED`).
    pub fn transaction(&self, operator: &'static str, kind: &'static str, outcome: &'static str) {
        self.with(|s| *s.transactions.entry((operator, kind, outcome)).or_default() += 1)
    }

    /// A delivery attempted, by how it ended (`delivered`, `retry`, `failed`, `gone`).
    pub fn webhook_delivery(&self, outcome: &'static str) {
        self.with(|s| *s.webhook_deliveries.entry(outcome).or_default() += 1)
    }

    /// An event closed without a delivery: its merchant set no URL, or its endpoint is disabled.
    pub fn webhook_unsent(&self) {
        self.with(|s| s.webhook_unsent += 1)
    }

    pub fn worker_run(&self, worker: &'static str, settled: usize) {
        self.with(|s| {
            let entry = s.worker_runs.entry(worker).or_default();
            entry.0 += 1;
            entry.1 += settled as u64;
        })
    }

    pub fn auth_failure(&self, kind: &'static str) {
        self.with(|s| *s.auth_failures.entry(kind).or_default() += 1)
    }

    pub fn rate_limited(&self, limit: &'static str) {
        self.with(|s| *s.rate_limited.entry(limit).or_default() += 1)
    }

    /// The Prometheus text exposition of every series.
    pub fn render(&self, gauges: &Gauges) -> String {
        let mut out = String::new();
        self.with(|s| {
            let _ = writeln!(out, "# HELP momo_http_requests_total HTTP requests by route template, method and status.");
            let _ = writeln!(out, "# TYPE momo_http_requests_total counter");
            for ((route, method, status), n) in &s.requests {
                let _ = writeln!(out, "momo_http_requests_total{{route=\"{}\",method=\"{method}\",status=\"{status}\"}} {n}", escape(route));
            }
            let _ = writeln!(out, "# HELP momo_http_request_duration_seconds HTTP request latency by route template and method.");
            let _ = writeln!(out, "# TYPE momo_http_request_duration_seconds histogram");
            for ((route, method), h) in &s.latency {
                let labels = format!("route=\"{}\",method=\"{method}\"", escape(route));
                h.render(&mut out, "momo_http_request_duration_seconds", &labels);
            }
            let _ = writeln!(out, "# HELP momo_operator_calls_total Calls to operators by operator, call and outcome (circuit_open: refused by the breaker).");
            let _ = writeln!(out, "# TYPE momo_operator_calls_total counter");
            for ((operator, call, outcome), n) in &s.operator_calls {
                let _ = writeln!(out, "momo_operator_calls_total{{operator=\"{operator}\",call=\"{call}\",outcome=\"{outcome}\"}} {n}");
            }
            let _ = writeln!(out, "# HELP momo_operator_call_duration_seconds Operator call latency by operator and call.");
            let _ = writeln!(out, "# TYPE momo_operator_call_duration_seconds histogram");
            for ((operator, call), h) in &s.operator_latency {
                h.render(&mut out, "momo_operator_call_duration_seconds", &format!("operator=\"{operator}\",call=\"{call}\""));
            }
            let _ = writeln!(out, "# HELP momo_operator_callbacks_total Operator callbacks by operator and what became of them.");
            let _ = writeln!(out, "# TYPE momo_operator_callbacks_total counter");
            for ((operator, outcome), n) in &s.operator_callbacks {
                let _ = writeln!(out, "momo_operator_callbacks_total{{operator=\"{operator}\",outcome=\"{outcome}\"}} {n}");
            }
            let _ = writeln!(out, "# HELP momo_operator_bad_answers_total Operator answers not taken at their word (malformed, unknown status, another amount or currency), by operator and kind.");
            let _ = writeln!(out, "# TYPE momo_operator_bad_answers_total counter");
            for ((operator, kind), n) in &s.operator_bad_answers {
                let _ = writeln!(out, "momo_operator_bad_answers_total{{operator=\"{operator}\",kind=\"{kind}\"}} {n}");
            }
            let _ = writeln!(out, "# HELP momo_operator_breaker_state Each operator's circuit breaker: 0 closed, 1 half-open, 2 open.");
            let _ = writeln!(out, "# TYPE momo_operator_breaker_state gauge");
            for (operator, state) in &s.operator_breakers {
                let _ = writeln!(out, "momo_operator_breaker_state{{operator=\"{operator}\"}} {}", state.value());
            }
            let _ = writeln!(out, "# HELP momo_transactions_total Transactions created (PENDING) and settled, by operator, type and outcome.");
            let _ = writeln!(out, "# TYPE momo_transactions_total counter");
            for ((operator, kind, outcome), n) in &s.transactions {
                let _ = writeln!(out, "momo_transactions_total{{operator=\"{operator}\",type=\"{kind}\",outcome=\"{outcome}\"}} {n}");
            }
            let _ = writeln!(out, "# HELP momo_webhook_deliveries_total Webhook deliveries attempted, by outcome.");
            let _ = writeln!(out, "# TYPE momo_webhook_deliveries_total counter");
            for (outcome, n) in &s.webhook_deliveries {
                let _ = writeln!(out, "momo_webhook_deliveries_total{{outcome=\"{outcome}\"}} {n}");
            }
            let _ = writeln!(out, "# HELP momo_webhook_events_unsent_total Webhook events closed without a delivery: no URL set, or the endpoint disabled.");
            let _ = writeln!(out, "# TYPE momo_webhook_events_unsent_total counter");
            let _ = writeln!(out, "momo_webhook_events_unsent_total {}", s.webhook_unsent);
            let _ = writeln!(out, "# HELP momo_worker_runs_total Worker steps run, by worker.");
            let _ = writeln!(out, "# TYPE momo_worker_runs_total counter");
            for (worker, (runs, _)) in &s.worker_runs {
                let _ = writeln!(out, "momo_worker_runs_total{{worker=\"{worker}\"}} {runs}");
            }
            let _ = writeln!(out, "# HELP momo_worker_settled_total Transactions settled by each worker.");
            let _ = writeln!(out, "# TYPE momo_worker_settled_total counter");
            for (worker, (_, settled)) in &s.worker_runs {
                let _ = writeln!(out, "momo_worker_settled_total{{worker=\"{worker}\"}} {settled}");
            }
            let _ = writeln!(out, "# HELP momo_auth_failures_total Refused credentials and tokens.");
            let _ = writeln!(out, "# TYPE momo_auth_failures_total counter");
            for (kind, n) in &s.auth_failures {
                let _ = writeln!(out, "momo_auth_failures_total{{kind=\"{kind}\"}} {n}");
            }
            let _ = writeln!(out, "# HELP momo_rate_limited_total Requests refused with 429, by limit.");
            let _ = writeln!(out, "# TYPE momo_rate_limited_total counter");
            for (limit, n) in &s.rate_limited {
                let _ = writeln!(out, "momo_rate_limited_total{{limit=\"{limit}\"}} {n}");
            }
        });
        let gauge = |out: &mut String, name: &str, help: &str, value: String| {
            let _ = writeln!(out, "# HELP {name} {help}");
            let _ = writeln!(out, "# TYPE {name} gauge");
            let _ = writeln!(out, "{name} {value}");
        };
        gauge(
            &mut out,
            "momo_pending_transactions",
            "Transactions PENDING now.",
            gauges.pending_transactions.to_string(),
        );
        gauge(
            &mut out,
            "momo_oldest_pending_transaction_age_seconds",
            "Age of the oldest PENDING transaction.",
            gauges.oldest_pending_age_s.to_string(),
        );
        gauge(
            &mut out,
            "momo_transfers_needing_review",
            "Transfers pending past the collection TTL.",
            gauges.pending_transfers_needing_review.to_string(),
        );
        gauge(
            &mut out,
            "momo_outbox_backlog",
            "Webhook events waiting for delivery.",
            gauges.outbox_backlog.to_string(),
        );
        gauge(
            &mut out,
            "momo_outbox_oldest_age_seconds",
            "Age of the oldest undelivered webhook event.",
            gauges.oldest_outbox_age_s.to_string(),
        );
        gauge(
            &mut out,
            "momo_db_pool_connections",
            "Database connections open in this process.",
            gauges.db_pool_size.to_string(),
        );
        gauge(
            &mut out,
            "momo_db_pool_idle_connections",
            "Idle database connections in this process.",
            gauges.db_pool_idle.to_string(),
        );
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_exposition_has_counters_histograms_and_gauges() {
        let m = Metrics::default();
        m.observe_request("/v1/customer/{id}", "GET", 200, Duration::from_millis(3));
        m.observe_request("/v1/customer/{id}", "GET", 200, Duration::from_millis(30));
        m.transaction("ALPHA", "collecte", "SUCCESSFUL");
        let text = m.render(&Gauges {
            pending_transactions: 2,
            ..Gauges::default()
        });
        assert!(text.contains("momo_http_requests_total{route=\"/v1/customer/{id}\",method=\"GET\",status=\"200\"} 2"));
        assert!(text.contains(
            "momo_http_request_duration_seconds_bucket{route=\"/v1/customer/{id}\",method=\"GET\",le=\"0.005\"} 1"
        ));
        assert!(text.contains(
            "momo_http_request_duration_seconds_bucket{route=\"/v1/customer/{id}\",method=\"GET\",le=\"+Inf\"} 2"
        ));
        assert!(text.contains("momo_transactions_total{operator=\"ALPHA\",type=\"collecte\",outcome=\"SUCCESSFUL\"} 1"));
        assert!(text.contains("momo_pending_transactions 2"));
    }
}
