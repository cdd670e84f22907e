//! The `momo-gateway` binary: parse the command line and configuration, start logging, run.

use std::process::ExitCode;

use clap::Parser;
use momo_gateway::cli::{self, Cli, Command};
use momo_gateway::config::Config;
use momo_gateway::telemetry;

/// mimalloc rather than glibc's malloc: the allocator is a large share of the gateway's CPU on
/// the creation paths (docs/performance.md, Where the time goes).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let config = match Config::load(cli.config.as_deref()) {
        Ok(config) => config,
        Err(e) => {
            eprintln!("momo-gateway: {e}");
            return ExitCode::from(2);
        }
    };
    let logs = match telemetry::init(config.log_format) {
        Ok(logs) => logs,
        Err(e) => {
            eprintln!("momo-gateway: {e}");
            return ExitCode::from(2);
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("momo-gateway: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let command = cli.command.unwrap_or(Command::Serve);
    let outcome = runtime.block_on(cli::run(command, config));
    // The log lines still queued are written before the last word below, not after it.
    drop(runtime);
    drop(logs);
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("momo-gateway: {e:#}");
            ExitCode::FAILURE
        }
    }
}
