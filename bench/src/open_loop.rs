//! Open-loop load: requests sent on a fixed arrival schedule (`rate` a second, the k-th due
//! at `start + k / rate`) whatever the answers, each timed from when it was due, not from when
//! it was sent, as wrk2, vegeta and k6's constant-arrival-rate do. A closed loop (`load`) waits
//! for each answer before sending again, so a stall of the server holds the senders back and
//! hides itself from the latencies it would have caused (coordinated omission); and with 64
//! connections its latency is 64 / throughput by Little's law, a throughput in disguise. Here a
//! request due while the server stalls waits in the schedule, and that wait is its latency:
//! what a merchant whose traffic arrives at that rate feels.

use std::collections::HashSet;
use std::time::Duration;

use tokio::time::Instant;

use crate::load::{percentile_ms, send, Load, Outcome};

impl Load {
    /// Sends `make(0, k)`'s request at `rate` a second for the warm-up and the measured time;
    /// those due during the measured time are counted. At most `connections` are in flight, as
    /// wrk2 keeps its connections: past that, a request due waits for a free one, timed all the
    /// same from its due time, so a server slower than the rate shows as latency, never as a
    /// quietly lower rate (nor as thousands of new connections).
    pub async fn run_open<F>(&self, rate: f64, make: F) -> Outcome
    where
        F: Fn(usize, u64) -> (reqwest::RequestBuilder, Option<String>) + Send + Sync + Clone + 'static,
    {
        let start = Instant::now();
        let measure_from = start + self.warmup;
        let end = measure_from + self.duration;
        let every = Duration::from_secs_f64(1.0 / rate.max(1e-3));
        let slots = std::sync::Arc::new(tokio::sync::Semaphore::new(self.connections.max(1)));
        let mut tasks = tokio::task::JoinSet::new();
        for k in 0u64.. {
            let due = start + every.mul_f64(k as f64);
            if due >= end {
                break;
            }
            tokio::time::sleep_until(due).await;
            let Ok(slot) = slots.clone().acquire_owned().await else {
                break;
            };
            let (request, id) = make(0, k);
            tasks.spawn(async move {
                let sent = Instant::now();
                let result = send(request, id).await;
                drop(slot);
                (due, sent, Instant::now(), result)
            });
        }
        let mut out = Outcome::default();
        let mut first_error = None;
        while let Some(joined) = tasks.join_next().await {
            let Ok((due, sent, done, result)) = joined else {
                continue;
            };
            if let Ok(Some(id)) = &result {
                out.created.insert(id.clone());
            }
            if due < measure_from {
                continue;
            }
            if result.is_ok() {
                out.send_delays_us.push(sent.duration_since(due).as_micros() as u64);
            }
            out.count(result, done.duration_since(due), &mut first_error);
        }
        if let Some(e) = first_error {
            eprintln!("  open loop at {rate:.0}/s: first error: {e}");
        }
        out.elapsed = self.duration;
        out.latencies_us.sort_unstable();
        out.send_delays_us.sort_unstable();
        out
    }
}

/// One open-loop run, as the table shows it.
#[derive(Debug, Clone)]
pub struct OpenRow {
    pub scenario: &'static str,
    /// The share of the closed-loop rate it was sent at, when it was one.
    pub share: Option<f64>,
    pub rate: f64,
    pub achieved: f64,
    pub p50: f64,
    pub p99: f64,
    pub p999: f64,
    pub max: f64,
    pub errors: u64,
    /// p99 of how late the bench sent a request after its due time (tokio's timer has a
    /// millisecond's grain, and the bench shares the cores): included in the latencies.
    pub send_delay_p99: f64,
}

impl OpenRow {
    pub fn new(scenario: &'static str, share: Option<f64>, rate: f64, o: &Outcome) -> OpenRow {
        OpenRow {
            scenario,
            share,
            rate,
            achieved: o.throughput(),
            p50: o.percentile_ms(0.50),
            p99: o.percentile_ms(0.99),
            p999: o.percentile_ms(0.999),
            max: o.percentile_ms(1.0),
            errors: o.errors,
            send_delay_p99: percentile_ms(&o.send_delays_us, 0.99),
        }
    }

    /// `c at 50 % (1,204/s)`, or `c at 1,000/s`.
    pub fn label(&self) -> String {
        match self.share {
            Some(share) => format!("{} at {:.0} % ({:.0}/s)", self.scenario, share * 100.0, self.rate),
            None => format!("{} at {:.0}/s", self.scenario, self.rate),
        }
    }
}

pub fn print(rows: &[OpenRow]) {
    if rows.is_empty() {
        return;
    }
    println!();
    println!("open loop (fixed arrival rate, latency from each request's due time):");
    println!();
    println!(
        "| scenario | sent req/s | answered req/s | p50 ms | p99 ms | p99.9 ms | max ms | errors | bench's send delay p99 ms |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    for r in rows {
        println!(
            "| {} | {:.0} | {:.0} | {:.2} | {:.2} | {:.2} | {:.2} | {} | {:.2} |",
            r.label(),
            r.rate,
            r.achieved,
            r.p50,
            r.p99,
            r.p999,
            r.max,
            r.errors,
            r.send_delay_p99
        );
    }
}

/// What an open-loop run sends: collections with this id prefix and payer ending, or status
/// lookups (`None`) of c's transactions.
type Sends = Option<(&'static str, &'static str)>;

/// The open-loop runs on the main gateway, after the closed loops of c and e: c, e and d at
/// `--rate`, or c and e at a quarter, a half and three quarters of the closed loop's `(c, e)`
/// rates. The ids the creations were answered with, for the correctness check, and each
/// creation run's writer counters.
pub async fn run_all(
    args: &crate::Args,
    load: &Load,
    client: &reqwest::Client,
    base: &str,
    token: &str,
    (c, e): (&Outcome, &Outcome),
) -> (Vec<OpenRow>, HashSet<String>, Vec<(String, crate::Counters)>) {
    const SHARES: [(f64, &str); 3] = [(0.25, "oc25"), (0.50, "oc50"), (0.75, "oc75")];
    let wants = |s: char| args.scenarios.contains(&s);
    let ids: std::sync::Arc<Vec<String>> = std::sync::Arc::new(c.created.iter().cloned().collect());
    // (scenario, share, rate, what it sends)
    let mut plan: Vec<(&'static str, Option<f64>, f64, Sends)> = Vec::new();
    match args.rate {
        Some(rate) => {
            if wants('c') {
                plan.push(("c", None, rate, Some(("occ", "01"))));
            }
            if wants('e') && !ids.is_empty() {
                plan.push(("e", None, rate, None));
            }
            // Last, for the reason d runs after the open loops.
            if wants('d') {
                plan.push(("d", None, rate, Some(("odd", "06"))));
            }
        }
        None => {
            for (share, prefix) in SHARES {
                if wants('c') && c.completed > 0 {
                    plan.push(("c", Some(share), c.throughput() * share, Some((prefix, "01"))));
                }
            }
            for (share, _) in SHARES {
                if wants('e') && e.completed > 0 && !ids.is_empty() {
                    plan.push(("e", Some(share), e.throughput() * share, None));
                }
            }
        }
    }
    let mut rows = Vec::new();
    let mut created = HashSet::new();
    let mut batches = Vec::new();
    for (scenario, share, rate, prefix) in plan {
        eprintln!("open loop: {scenario} at {rate:.0} requests a second");
        let mut written = None;
        let outcome = match prefix {
            Some((prefix, ending)) => {
                let sends = load.run_open(rate, crate::paths::collection(client, base, token, prefix, ending));
                let (outcome, counters) = crate::writers::around(client, base, sends).await;
                written = Some(counters);
                outcome
            }
            None => {
                load.run_open(rate, crate::paths::status_lookup(client, base, token, ids.clone()))
                    .await
            }
        };
        created.extend(outcome.created.iter().cloned());
        let row = OpenRow::new(scenario, share, rate, &outcome);
        if let Some(counters) = written {
            batches.push((row.label(), counters));
        }
        rows.push(row);
    }
    (rows, created, batches)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_is_labelled_by_its_share_or_its_rate() {
        let o = Outcome {
            completed: 500,
            elapsed: Duration::from_secs(1),
            latencies_us: (1..=1000).collect(),
            ..Outcome::default()
        };
        let shared = OpenRow::new("c", Some(0.5), 1204.0, &o);
        assert_eq!(shared.label(), "c at 50 % (1204/s)");
        assert_eq!((shared.p50, shared.p999, shared.max), (0.501, 0.999, 1.0));
        assert_eq!(OpenRow::new("e", None, 1000.0, &o).label(), "e at 1000/s");
    }
}
