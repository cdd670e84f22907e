//! Telemetry: Prometheus metrics (`metrics.rs`, with the process's own in `process.rs`) and logging with `tracing`, human-readable by
//! default, JSON with `MOMO_LOG_FORMAT=json`, to
//! stderr so that stdout stays for command output. `RUST_LOG` filters as usual.

mod database;
pub mod metrics;
mod process;
mod write_batches;

pub use database::DatabaseFigures;
pub use write_batches::WriteBatchTotals;

use std::io::IsTerminal;

use tracing_subscriber::EnvFilter;

use crate::config::LogFormat;

pub fn init(format: LogFormat) {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal());
    let _ = match format {
        LogFormat::Text => builder.try_init(),
        LogFormat::Json => builder.json().try_init(),
    };
}
