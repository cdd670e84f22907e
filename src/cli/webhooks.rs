//! `webhooks …`: list webhook events, show one with its delivery attempts, and send events
//! again.

use clap::{Args, Subcommand};

use super::parse_environment;
use crate::api::v1::webhooks::EventOut;
use crate::app;
use crate::config::Config;
use crate::domain::{Environment, EventState, MerchantId, PageRequest, Tenant, Timestamp};
use crate::store::EventFilter;

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

pub(super) async fn run(command: WebhooksCommand, config: Config) -> anyhow::Result<()> {
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
