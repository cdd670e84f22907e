//! Telemetry: Prometheus metrics (`metrics.rs`, with the process's own in `process.rs`), logging
//! with `tracing`, human-readable by default, JSON with `MOMO_LOG_FORMAT=json`, to stderr so that
//! stdout stays for command output (`RUST_LOG` filters as usual), and OpenTelemetry traces when
//! an OTLP endpoint is set (`traces.rs`).

mod database;
pub mod metrics;
mod process;
pub mod supervise;
pub mod traces;
mod write_batches;

pub use database::DatabaseFigures;

use std::io::IsTerminal;

use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric};

use tracing_subscriber::EnvFilter;

use crate::config::LogFormat;

/// Keeps the log writer's thread and the traces' exporter; dropping it (at the end of `main`)
/// writes out what is queued of both.
#[must_use = "dropping the guard stops the log writer"]
pub struct LogGuard {
    traces: Option<traces::Traces>,
    _logs: tracing_appender::non_blocking::WorkerGuard,
}

impl Drop for LogGuard {
    fn drop(&mut self) {
        if let Some(traces) = &self.traces {
            traces.shutdown();
        }
    }
}

/// Log lines are formatted where they happen and written to stderr by a thread of their own,
/// which writes whatever has queued up in one `write` and flushes whenever the queue is empty.
/// Written on the request's thread, each line was a system call on a pipe (journald's,
/// Docker's): several per payment, CPU taken from the runtime's workers under load
/// (docs/performance.md, Where the time goes). Not lossy while the gateway runs: a full queue (10,000 lines, its
/// slots allocated up front) makes the loggers wait rather than drop lines, as a full pipe made
/// them wait before. At exit the guard gives the thread a second to write what is queued; a
/// `kill -9` loses the lines of the last instant.
///
/// With an OTLP endpoint set, the log filter (`RUST_LOG`) applies to the log lines only, and
/// the traces' layer sees its spans whatever the log level. An OTLP setting it cannot serve is
/// the error.
pub fn init(format: LogFormat) -> Result<LogGuard, String> {
    let traces = traces::Traces::from_env(|name| std::env::var(name).ok())?;
    let (writer, guard) = tracing_appender::non_blocking::NonBlockingBuilder::default()
        .lossy(false)
        .buffered_lines_limit(10_000)
        .thread_name("momo-log")
        .finish(std::io::BufWriter::with_capacity(64 * 1024, std::io::stderr()));
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    let ansi = std::io::stderr().is_terminal();
    let _ = match &traces {
        None => {
            let builder = tracing_subscriber::fmt()
                .with_env_filter(filter)
                .with_writer(writer)
                .with_ansi(ansi);
            match format {
                LogFormat::Text => builder.try_init(),
                LogFormat::Json => builder.json().try_init(),
            }
        }
        Some(traces) => {
            use tracing_subscriber::layer::SubscriberExt;
            use tracing_subscriber::util::SubscriberInitExt;
            use tracing_subscriber::Layer;
            let logs = tracing_subscriber::fmt::layer().with_writer(writer).with_ansi(ansi);
            let logs = match format {
                LogFormat::Text => logs.with_filter(filter).boxed(),
                LogFormat::Json => logs.json().with_filter(filter).boxed(),
            };
            tracing_subscriber::registry()
                .with(logs)
                .with(traces.layer())
                .try_init()
                .map_err(Into::into)
        }
    };
    Ok(LogGuard { traces, _logs: guard })
}

/// One unlabelled series, for the collectors that show figures counted elsewhere
/// (`database`, `write_batches`): `metric` a `ConstCounter` or a `ConstGauge`.
fn unlabelled(encoder: &mut DescriptorEncoder, name: &str, help: &str, metric: impl EncodeMetric) -> std::fmt::Result {
    metric.encode(encoder.encode_descriptor(name, help, None, metric.metric_type())?)
}
