//! A worker's step run so that a panic in it is caught, logged with the worker's name, counted
//! (`momo_worker_panics_total{worker}`) and followed by a short pause before the next step. One
//! bad answer from an operator must not stop the checks of every pending payment for the rest
//! of the process's life; every step starts from the database, so nothing a panicked step held
//! is needed by the next (claims it made wait out their lease).

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::time::Duration;

use futures_util::FutureExt;

use super::metrics::Metrics;

/// How long a worker waits after a step panicked: enough not to spin on a panic that repeats.
pub const PAUSE_AFTER_PANIC: Duration = Duration::from_secs(1);

/// `step`'s output, or `None` when it panicked (logged, counted, then paused).
pub async fn caught<T>(worker: &'static str, metrics: &Metrics, step: impl Future<Output = T>) -> Option<T> {
    match AssertUnwindSafe(step).catch_unwind().await {
        Ok(output) => Some(output),
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic without a message".to_owned());
            metrics.worker_panic(worker);
            tracing::error!(worker, panic = %what, "worker step panicked; the worker goes on after a pause");
            tokio::time::sleep(PAUSE_AFTER_PANIC).await;
            None
        }
    }
}
