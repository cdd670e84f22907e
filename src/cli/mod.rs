//! The command line: `serve` (the default), `migrate`, and the administrator's command groups
//! (`merchant`, `transactions`, `payouts`, `webhooks`, `report`), all run against the configured database.
//!
//! This file holds the top-level parse types and the dispatch. Each command group has its own
//! file with its arguments, `execute` (calls the use-case services it needs and returns what they gave)
//! and `render` (turns that into the lines printed, text or JSON), kept apart.
//!
//! The printed bytes are a contract for scripts: `json!` objects print their keys sorted
//! (serde_json without `preserve_order`), typed views such as the webhook event keep their
//! field order, and each group's unit tests pin both.

mod merchant;
mod payouts;
mod refund;
mod report;
mod transactions;
mod webhooks;

use std::path::PathBuf;

use clap::{Parser, Subcommand};

use crate::app;
use crate::config::Config;
use crate::domain::Environment;

pub use merchant::{MerchantCommand, Target};
pub use payouts::PayoutsCommand;
pub use report::{ReportCommand, ReportFormat};
pub use transactions::TransactionsCommand;
pub use webhooks::{Scope, WebhooksCommand};

#[derive(Debug, Parser)]
#[command(
    name = "momo-gateway",
    version,
    about = "A mobile-money payment gateway for Côte d'Ivoire",
    after_help = "Settings: MOMO_* environment variables (and a platform's PORT and DATABASE_URL), \
                  over the --config file; docs/configuration.md lists them."
)]
pub struct Cli {
    /// TOML file of settings (names as the MOMO_* variables, lower case, without the prefix).
    /// Environment variables override it.
    #[arg(long, global = true, value_name = "FILE", env = "MOMO_CONFIG")]
    pub config: Option<PathBuf>,

    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the HTTP API (the default when no command is given).
    Serve,
    /// Create or update the database schema, then exit.
    Migrate,
    /// Manage merchants and their credentials.
    #[command(subcommand)]
    Merchant(MerchantCommand),
    /// Inspect and settle transactions by hand.
    #[command(subcommand)]
    Transactions(TransactionsCommand),
    /// Inspect webhook events and send them again.
    #[command(subcommand)]
    Webhooks(WebhooksCommand),
    /// Pay many transfers at once: a payout batch from a CSV file.
    #[command(subcommand)]
    Payouts(PayoutsCommand),
    /// Print a merchant's ledger statement or a day's settlement report (JSON or CSV).
    #[command(subcommand)]
    Report(ReportCommand),
}

/// How a command prints what it did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    Text,
    Json,
}

impl Format {
    /// JSON when `--json` was given.
    fn json_if(json: bool) -> Format {
        if json {
            Format::Json
        } else {
            Format::Text
        }
    }
}

/// Prints what `render` made: each item followed by a newline, as `println!` prints it.
fn print_lines(lines: &[String]) {
    for line in lines {
        println!("{line}");
    }
}

/// What `print_lines` writes for a `render` result, for the unit tests that pin the printed bytes.
#[cfg(test)]
fn printed(lines: serde_json::Result<Vec<String>>) -> String {
    lines.unwrap().iter().map(|line| format!("{line}\n")).collect()
}

fn parse_environment(raw: &str) -> Result<Environment, String> {
    raw.parse()
        .map_err(|e: crate::domain::environment::UnknownEnvironment| e.to_string())
}

/// Runs a parsed command line.
pub async fn run(command: Command, config: Config) -> anyhow::Result<()> {
    match command {
        Command::Serve => app::serve(config).await,
        Command::Migrate => {
            app::open(config).await?;
            // Through the log, not eprintln: the log's own lines before it are written by its
            // thread, and a direct line could overtake them.
            tracing::info!("database schema is up to date");
            Ok(())
        }
        Command::Merchant(command) => merchant::run(command, config).await,
        Command::Transactions(command) => transactions::run(command, config).await,
        Command::Webhooks(command) => webhooks::run(command, config).await,
        Command::Report(command) => report::run(command, config).await,
        Command::Payouts(command) => payouts::run(command, config).await,
    }
}
