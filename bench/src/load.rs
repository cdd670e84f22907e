//! The load loop: `connections` tasks kept busy for the warm-up and then the measured time.

use std::collections::HashSet;
use std::future::Future;
use std::time::{Duration, Instant};

/// What one scenario measured.
#[derive(Debug, Default, Clone)]
pub struct Outcome {
    pub completed: u64,
    pub errors: u64,
    /// Latencies of the measured requests, in microseconds, sorted.
    pub latencies_us: Vec<u64>,
    pub elapsed: Duration,
    /// Transaction ids answered 2xx (creation scenarios).
    pub created: HashSet<String>,
    /// Open loop: how late the bench itself sent each measured request after its due time, in
    /// microseconds, sorted. Part of the latencies: a merchant's client has no such delay.
    pub send_delays_us: Vec<u64>,
}

impl Outcome {
    pub fn throughput(&self) -> f64 {
        self.completed as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }

    pub fn percentile_ms(&self, p: f64) -> f64 {
        percentile_ms(&self.latencies_us, p)
    }

    /// Counts a measured request: answered after `latency`, or failed (the first failure is
    /// kept in `first_error`, for the run's log).
    pub fn count(
        &mut self,
        result: Result<Option<String>, String>,
        latency: Duration,
        first_error: &mut Option<String>,
    ) {
        match result {
            Ok(_) => {
                self.completed += 1;
                self.latencies_us.push(latency.as_micros() as u64);
            }
            Err(e) => {
                self.errors += 1;
                first_error.get_or_insert(e);
            }
        }
    }

    pub fn merge(mut self, other: Outcome) -> Outcome {
        self.completed += other.completed;
        self.errors += other.errors;
        self.latencies_us.extend(other.latencies_us);
        self.send_delays_us.extend(other.send_delays_us);
        self.created.extend(other.created);
        self
    }
}

/// The `p` quantile of sorted microseconds, in milliseconds (0 for none).
pub fn percentile_ms(sorted_us: &[u64], p: f64) -> f64 {
    match sorted_us.len() {
        0 => 0.0,
        n => sorted_us[((n as f64 - 1.0) * p).round() as usize] as f64 / 1000.0,
    }
}

pub struct Load {
    pub connections: usize,
    pub warmup: Duration,
    pub duration: Duration,
}

impl Load {
    /// Runs HTTP requests: `make(task, i)` gives the request and, for creations, its id.
    pub async fn run<F>(&self, make: F) -> Outcome
    where
        F: Fn(usize, u64) -> (reqwest::RequestBuilder, Option<String>) + Send + Sync + Clone + 'static,
    {
        self.run_with(move |task, i| {
            let (request, id) = make(task, i);
            send(request, id)
        })
        .await
    }

    /// Runs any operation: `step(task, i)` answers the created id, if any, or an error.
    pub async fn run_with<F, Fut>(&self, step: F) -> Outcome
    where
        F: Fn(usize, u64) -> Fut + Send + Sync + Clone + 'static,
        Fut: Future<Output = Result<Option<String>, String>> + Send,
    {
        let start = Instant::now();
        let measure_from = start + self.warmup;
        let end = measure_from + self.duration;
        let mut tasks = tokio::task::JoinSet::new();
        for task in 0..self.connections {
            let step = step.clone();
            tasks.spawn(async move {
                let mut out = Outcome::default();
                let mut i = 0u64;
                let mut first_error: Option<String> = None;
                loop {
                    let began = Instant::now();
                    if began >= end {
                        break;
                    }
                    let result = step(task, i).await;
                    i += 1;
                    let done = Instant::now();
                    if let Ok(Some(id)) = &result {
                        out.created.insert(id.clone());
                    }
                    if began < measure_from || done > end {
                        continue;
                    }
                    out.count(result, done.duration_since(began), &mut first_error);
                }
                if let Some(e) = first_error {
                    eprintln!("  task {task}: first error: {e}");
                }
                out
            });
        }
        let mut total = Outcome::default();
        while let Some(joined) = tasks.join_next().await {
            if let Ok(outcome) = joined {
                total = total.merge(outcome);
            }
        }
        total.elapsed = self.duration;
        total.latencies_us.sort_unstable();
        total
    }
}

/// Sends `request`, which creates `id` if any: `Ok(id)` once answered 2xx (its body read), else
/// what went wrong.
pub async fn send(request: reqwest::RequestBuilder, id: Option<String>) -> Result<Option<String>, String> {
    match request.send().await {
        Ok(response) if response.status().is_success() => {
            let _ = response.bytes().await;
            Ok(id)
        }
        Ok(response) => Err(format!("status {}", response.status())),
        Err(e) => Err(e.to_string()),
    }
}
