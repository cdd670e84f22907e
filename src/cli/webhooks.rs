//! `webhooks …`: list webhook events, show one with its delivery attempts, and send events
//! again.

use clap::{Args, Subcommand};

use super::{parse_environment, print_lines, Format};
use crate::api::v1::webhooks::EventOut;
use crate::app;
use crate::config::Config;
use crate::domain::{Environment, EventState, MerchantId, PageRequest, Tenant, Timestamp};
use crate::service::Gateway;
use crate::store::{Attempt, EventFilter, EventSummary};

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

/// What a webhooks command did: the data it prints.
#[derive(Debug)]
enum Done {
    /// Events, newest first.
    Listed(Vec<EventSummary>),
    Shown {
        event: Box<EventSummary>,
        attempts: Vec<Attempt>,
    },
    /// One event will be sent again.
    Redelivered { id: String },
    /// This many failed events will be sent again.
    RedeliveredFailed { count: u64 },
}

pub(super) async fn run(command: WebhooksCommand, config: Config) -> anyhow::Result<()> {
    let format = command.format();
    let gateway = app::open(config).await?;
    let done = command.execute(&gateway, Timestamp::now()).await?;
    print_lines(&render(&done, format)?);
    Ok(())
}

impl WebhooksCommand {
    fn format(&self) -> Format {
        match self {
            WebhooksCommand::List { json, .. } => Format::json_if(*json),
            WebhooksCommand::Show { .. } => Format::Json,
            WebhooksCommand::Redeliver { .. } => Format::Text,
        }
    }

    /// Runs the command's use case.
    async fn execute(self, gateway: &Gateway, now: Timestamp) -> anyhow::Result<Done> {
        Ok(match self {
            WebhooksCommand::List {
                scope, status, limit, ..
            } => {
                let filter = EventFilter {
                    transaction_id: None,
                    state: status,
                };
                let page = PageRequest {
                    limit: limit.clamp(1, 1000),
                    after: None,
                };
                Done::Listed(gateway.webhook_events(scope.tenant().as_ref(), &filter, &page).await?)
            }
            WebhooksCommand::Show { id } => {
                let (event, attempts) = gateway.webhook_event(None, &id).await?;
                Done::Shown {
                    event: Box::new(event),
                    attempts,
                }
            }
            WebhooksCommand::Redeliver { id, from, to, scope } => match (id, from, to) {
                (Some(id), _, _) => {
                    gateway.redeliver_event(scope.tenant().as_ref(), &id, now).await?;
                    Done::Redelivered { id }
                }
                (None, Some(from), Some(to)) => {
                    let (from, to) = (parse_time(&from, "from")?, parse_time(&to, "to")?);
                    let count = gateway
                        .redeliver_failed_events(scope.tenant().as_ref(), from, to, now)
                        .await?;
                    Done::RedeliveredFailed { count }
                }
                _ => anyhow::bail!("give --id, or --from and --to"),
            },
        })
    }
}

/// The lines a webhooks command prints; `webhooks show` prints JSON only.
fn render(done: &Done, format: Format) -> serde_json::Result<Vec<String>> {
    Ok(match done {
        Done::Listed(events) => match format {
            Format::Json => {
                let list: Vec<_> = events.iter().map(|e| EventOut::new(e, None)).collect();
                vec![serde_json::to_string_pretty(&list)?]
            }
            Format::Text if events.is_empty() => vec!["no webhook events".to_owned()],
            Format::Text => events.iter().map(event_text).collect(),
        },
        Done::Shown { event, attempts } => {
            vec![serde_json::to_string_pretty(&EventOut::new(event, Some(attempts)))?]
        }
        Done::Redelivered { id } => vec![format!("event {id} will be sent again by the next dispatcher step")],
        Done::RedeliveredFailed { count } => vec![format!("{count} failed event(s) will be sent again")],
    })
}

fn event_text(e: &EventSummary) -> String {
    format!(
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
    )
}
