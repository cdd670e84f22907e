//! The command line: `serve` (the default), `migrate`, and merchant administration, all run
//! against the configured database.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};
use serde_json::json;

use crate::api::v1::webhooks::EventOut;
use crate::app;
use crate::config::Config;
use crate::domain::{Environment, EventState, MerchantId, PageRequest, Status, Tenant, Timestamp};
use crate::reconcile::review;
use crate::service::CreatedMerchant;
use crate::store::EventFilter;

#[derive(Debug, Parser)]
#[command(
    name = "momo-gateway",
    version,
    about = "A mobile-money payment gateway for Côte d'Ivoire"
)]
pub struct Cli {
    /// TOML file of settings (names as the MOMO_* variables, lower case, without the prefix).
    /// Environment variables override it.
    #[arg(long, global = true, value_name = "FILE")]
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
}

#[derive(Debug, Subcommand)]
pub enum WebhooksCommand {
    /// List events, newest first (every merchant's unless --merchant and --env are given).
    List {
        #[command(flatten)]
        scope: Scope,
        /// Only events in this state: pending, delivered or failed.
        #[arg(long, value_parser = parse_event_state)]
        status: Option<EventState>,
        /// At most this many events.
        #[arg(long, default_value_t = 50)]
        limit: u32,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Show one event with every delivery attempt.
    Show {
        /// The event id (`webhook-id`, `msg_…`).
        #[arg(long)]
        id: String,
    },
    /// Send one event again (--id), or every failed event created in [--from, --to).
    Redeliver {
        /// The event id.
        #[arg(long, conflicts_with_all = ["from", "to"], required_unless_present_all = ["from", "to"])]
        id: Option<String>,
        /// ISO 8601 start (inclusive).
        #[arg(long, requires = "to")]
        from: Option<String>,
        /// ISO 8601 end (exclusive).
        #[arg(long, requires = "from")]
        to: Option<String>,
        #[command(flatten)]
        scope: Scope,
    },
}

/// An optional merchant environment; without it, every merchant.
#[derive(Debug, Args)]
pub struct Scope {
    /// Only this merchant (with --env).
    #[arg(long, value_name = "ID", requires = "env")]
    pub merchant: Option<String>,
    /// Only this environment (with --merchant).
    #[arg(long, value_name = "ENV", value_parser = parse_environment, requires = "merchant")]
    pub env: Option<Environment>,
}

impl Scope {
    fn tenant(&self) -> Option<Tenant> {
        Some(Tenant {
            merchant_id: MerchantId(self.merchant.clone()?),
            environment: self.env?,
        })
    }
}

fn parse_event_state(raw: &str) -> Result<EventState, String> {
    EventState::parse(raw).ok_or_else(|| "expected pending, delivered or failed".to_owned())
}

fn parse_time(raw: &str, name: &str) -> anyhow::Result<Timestamp> {
    Timestamp::parse_iso8601(raw)
        .ok_or_else(|| anyhow::anyhow!("--{name} must be an ISO 8601 time like 2026-11-20T10:15:30Z"))
}

#[derive(Debug, Subcommand)]
pub enum TransactionsCommand {
    /// List transfers pending longer than the collection time to live: they need review.
    Stuck {
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Settle a pending transaction by its reference (`ref`), keeping an audit record.
    Resolve {
        /// The transaction's service reference (`ref`, 10 characters).
        #[arg(long, value_name = "REF")]
        id: String,
        /// SUCCESSFUL or FAILED.
        #[arg(long, value_name = "STATUS", value_parser = parse_final_status)]
        status: Status,
        /// Why: what the operator said, the ticket number.
        #[arg(long)]
        reason: String,
    },
}

#[derive(Debug, Subcommand)]
pub enum MerchantCommand {
    /// Create a merchant with credentials for Production and Sandbox (secrets shown once).
    Create {
        /// The merchant's name.
        #[arg(long)]
        name: String,
        /// Webhook URL for both environments.
        #[arg(long, value_name = "URL")]
        webhook_url: Option<String>,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// List merchants with their API keys (never their secrets).
    List {
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Set or clear an environment's webhook URL (re-enables a disabled endpoint).
    SetWebhook {
        #[command(flatten)]
        target: Target,
        /// The new URL.
        #[arg(long, value_name = "URL", required_unless_present = "clear")]
        url: Option<String>,
        /// Remove the URL: no webhooks are sent.
        #[arg(long, conflicts_with = "url")]
        clear: bool,
    },
    /// Credit an environment's available balance from an operator top-up.
    TopUp {
        #[command(flatten)]
        target: Target,
        /// Francs to credit.
        #[arg(long)]
        amount: i64,
    },
    /// Issue a new API key and secret for an environment; the old pair and its tokens stop
    /// working at once.
    RotateSecret {
        #[command(flatten)]
        target: Target,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
}

/// One merchant environment.
#[derive(Debug, Args)]
pub struct Target {
    /// The merchant's id (see `merchant list`).
    #[arg(long, value_name = "ID")]
    pub merchant: String,
    /// Production or Sandbox.
    #[arg(long, value_name = "ENV", value_parser = parse_environment)]
    pub env: Environment,
}

impl Target {
    fn tenant(&self) -> Tenant {
        Tenant {
            merchant_id: MerchantId(self.merchant.clone()),
            environment: self.env,
        }
    }
}

fn parse_final_status(raw: &str) -> Result<Status, String> {
    match Status::parse(&raw.to_ascii_uppercase()) {
        Some(status) if status.is_final() => Ok(status),
        _ => Err("expected SUCCESSFUL or FAILED".to_owned()),
    }
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
            eprintln!("database schema is up to date");
            Ok(())
        }
        Command::Merchant(command) => merchant(command, config).await,
        Command::Transactions(command) => transactions(command, config).await,
        Command::Webhooks(command) => webhooks(command, config).await,
    }
}

async fn webhooks(command: WebhooksCommand, config: Config) -> anyhow::Result<()> {
    let gateway = app::open(config).await?;
    let now = Timestamp::now();
    match command {
        WebhooksCommand::List {
            scope,
            status,
            limit,
            json,
        } => {
            let filter = EventFilter {
                transaction_id: None,
                state: status,
            };
            let page = PageRequest {
                limit: limit.clamp(1, 1000),
                after: None,
            };
            let events = gateway.webhook_events(scope.tenant().as_ref(), &filter, &page).await?;
            if json {
                let list: Vec<_> = events.iter().map(|e| EventOut::new(e, None)).collect();
                println!("{}", serde_json::to_string_pretty(&list)?);
            } else if events.is_empty() {
                println!("no webhook events");
            } else {
                for e in &events {
                    println!(
                        "{}  {:<9}  {} {}  attempts {}  {}{}",
                        e.id,
                        e.state.as_str(),
                        e.transaction_ref,
                        e.transaction_status,
                        e.attempts,
                        e.created_at.iso8601_millis(),
                        e.last_error
                            .as_deref()
                            .map(|l| format!("  last error: {l}"))
                            .unwrap_or_default()
                    );
                }
            }
        }
        WebhooksCommand::Show { id } => {
            let (event, attempts) = gateway.webhook_event(None, &id).await?;
            println!(
                "{}",
                serde_json::to_string_pretty(&EventOut::new(&event, Some(&attempts)))?
            );
        }
        WebhooksCommand::Redeliver { id, from, to, scope } => match (id, from, to) {
            (Some(id), _, _) => {
                gateway.redeliver_event(scope.tenant().as_ref(), &id, now).await?;
                println!("event {id} will be sent again by the next dispatcher step");
            }
            (None, Some(from), Some(to)) => {
                let (from, to) = (parse_time(&from, "from")?, parse_time(&to, "to")?);
                let count = gateway
                    .redeliver_failed_events(scope.tenant().as_ref(), from, to, now)
                    .await?;
                println!("{count} failed event(s) will be sent again");
            }
            _ => anyhow::bail!("give --id, or --from and --to"),
        },
    }
    Ok(())
}

async fn transactions(command: TransactionsCommand, config: Config) -> anyhow::Result<()> {
    let gateway = app::open(config).await?;
    let now = Timestamp::now();
    match command {
        TransactionsCommand::Stuck { json } => {
            let stuck = review::stuck_transfers(&gateway, now).await?;
            if json {
                let list: Vec<_> = stuck
                    .iter()
                    .map(|r| {
                        let t = &r.transaction;
                        json!({
                            "ref": t.reference,
                            "merchantId": t.tenant.merchant_id.0,
                            "environment": t.tenant.environment.as_str(),
                            "transactionId": t.transaction_id,
                            "operator": t.operator.name(),
                            "amountTotal": t.amounts.amount_total.to_string(),
                            "createdAt": t.created_at.iso8601_millis(),
                        })
                    })
                    .collect();
                println!("{}", serde_json::to_string_pretty(&list)?);
            } else if stuck.is_empty() {
                println!("no transfer needs review");
            } else {
                println!("{} transfer(s) pending past the time to live; check with the operator, then settle with `transactions resolve`:", stuck.len());
                for r in &stuck {
                    let t = &r.transaction;
                    println!(
                        "  {}  {} {}  {} XOF  {}  merchant {} ({})",
                        t.reference,
                        t.operator,
                        t.phone.masked(),
                        t.amounts.amount_total,
                        t.created_at.iso8601_millis(),
                        t.tenant.merchant_id,
                        t.tenant.environment
                    );
                }
            }
        }
        TransactionsCommand::Resolve { id, status, reason } => {
            let settled = review::resolve(&gateway, &id, status, &reason, now).await?;
            println!(
                "transaction {} is now {}",
                settled.transaction.reference,
                settled.transaction.status.as_str()
            );
        }
    }
    Ok(())
}

async fn merchant(command: MerchantCommand, config: Config) -> anyhow::Result<()> {
    let gateway = app::open(config).await?;
    let now = Timestamp::now();
    match command {
        MerchantCommand::Create {
            name,
            webhook_url,
            json,
        } => {
            let created = gateway.create_merchant(&name, webhook_url.as_deref(), now).await?;
            print_created(&created, json);
        }
        MerchantCommand::List { json } => {
            let merchants = gateway.merchants().await?;
            if json {
                let list: Vec<_> = merchants
                    .iter()
                    .map(|m| {
                        json!({
                            "id": m.id.0,
                            "name": m.name,
                            "createdAt": m.created_at.iso8601_millis(),
                            "environments": m.environments.iter().map(|e| json!({
                                "environment": e.environment.as_str(),
                                "apiKey": e.api_key,
                                "webhookUrl": e.webhook_url,
                            })).collect::<Vec<_>>(),
                        })
                    })
                    .collect();
                println!("{}", serde_json::to_string_pretty(&list)?);
            } else if merchants.is_empty() {
                println!("no merchants yet: create one with `momo-gateway merchant create --name NAME`");
            } else {
                for m in &merchants {
                    println!("{}  {}  (created {})", m.id, m.name, m.created_at.iso8601_millis());
                    for e in &m.environments {
                        let url = e.webhook_url.as_deref().unwrap_or("no webhook URL");
                        println!("    {:<10} {}  {}", e.environment.as_str(), e.api_key, url);
                    }
                }
            }
        }
        MerchantCommand::SetWebhook { target, url, clear } => {
            let url = if clear { None } else { url };
            gateway.set_webhook_url(&target.tenant(), url.as_deref()).await?;
            match url {
                Some(url) => println!("{} webhook URL set to {url}", target.env),
                None => println!("{} webhook URL cleared", target.env),
            }
        }
        MerchantCommand::TopUp { target, amount } => {
            let balance = gateway.top_up(&target.tenant(), amount, now).await?;
            println!(
                "{} credited with {amount} XOF; available balance {} XOF",
                target.env, balance.available
            );
        }
        MerchantCommand::RotateSecret { target, json } => {
            let (api_key, api_secret) = gateway.rotate_secret(&target.tenant(), now).await?;
            if json {
                println!(
                    "{}",
                    json!({ "environment": target.env.as_str(), "apiKey": api_key, "apiSecret": api_secret })
                );
            } else {
                println!(
                    "New {} credentials (the old pair no longer works; the secret is shown only once):",
                    target.env
                );
                println!("  API key:    {api_key}");
                println!("  API secret: {api_secret}");
            }
        }
    }
    Ok(())
}

fn print_created(created: &CreatedMerchant, as_json: bool) {
    if as_json {
        let environments: serde_json::Map<String, serde_json::Value> = created
            .environments
            .iter()
            .map(|e| {
                (
                    e.environment.as_str().to_owned(),
                    json!({
                        "apiKey": e.api_key,
                        "apiSecret": e.api_secret,
                        "webhookSecret": e.webhook_secret,
                        "webhookUrl": e.webhook_url,
                    }),
                )
            })
            .collect();
        println!(
            "{}",
            json!({ "id": created.id.0, "name": created.name, "environments": environments })
        );
        return;
    }
    println!("Merchant {} created: {}", created.name, created.id);
    println!("Secrets are shown only this once; store them now.");
    for e in &created.environments {
        println!("  {}:", e.environment);
        println!("    API key:                {}", e.api_key);
        println!("    API secret:             {}", e.api_secret);
        println!("    Webhook signing secret: {}", e.webhook_secret);
        if let Some(url) = &e.webhook_url {
            println!("    Webhook URL:            {url}");
        }
    }
}
