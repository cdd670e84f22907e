//! `webhooks …`: list webhook events, show one with its delivery attempts, and send events
//! again.

use super::{parse_environment, print_lines, Format};
use clap::{Args, Subcommand};
// The JSON printed is an event as the v1 API shows it, field for field, as it always was.
use crate::api::v1::webhooks::EventOut;
use crate::app;
use crate::config::Config;
use crate::domain::{Attempt, EventFilter, EventSummary, FailedEvents};
use crate::domain::{Environment, EventState, MerchantId, PageRequest, Tenant, Timestamp};
use crate::service::Webhooks;

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
            merchant_id: MerchantId::from(self.merchant.clone()?),
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

/// Opens the database, runs the command and prints what it did.
pub(super) async fn run(command: WebhooksCommand, config: Config) -> anyhow::Result<()> {
    let format = command.format();
    let gateway = app::open(config).await?;
    let done = command.execute(&gateway.webhooks, Timestamp::now()).await?;
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
    async fn execute(self, webhooks: &Webhooks, now: Timestamp) -> anyhow::Result<Done> {
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
                Done::Listed(webhooks.webhook_events(scope.tenant().as_ref(), &filter, &page).await?)
            }
            WebhooksCommand::Show { id } => {
                let (event, attempts) = webhooks.webhook_event(None, &id).await?;
                Done::Shown {
                    event: Box::new(event),
                    attempts,
                }
            }
            WebhooksCommand::Redeliver { id, from, to, scope } => match (id, from, to) {
                (Some(id), _, _) => {
                    webhooks.redeliver_event(scope.tenant().as_ref(), &id, now).await?;
                    Done::Redelivered { id }
                }
                (None, Some(from), Some(to)) => {
                    let (from, to) = (parse_time(&from, "from")?, parse_time(&to, "to")?);
                    // The API answers an empty range with 0; at a terminal it is more likely a typo.
                    anyhow::ensure!(from < to, "--from must be before --to");
                    let tenant = scope.tenant();
                    let events = FailedEvents {
                        tenant: tenant.as_ref(),
                        created: from..to,
                    };
                    let count = webhooks.redeliver_failed_events(&events, now).await?;
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
        e.transaction_status.as_str(),
        e.attempts,
        e.created_at.iso8601_millis(),
        e.last_error
            .as_deref()
            .map(|l| format!("  last error: {l}"))
            .unwrap_or_default()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::Environment;

    fn event(state: EventState, last_error: Option<&str>) -> EventSummary {
        EventSummary {
            id: "msg_1".into(),
            tenant: Tenant {
                merchant_id: MerchantId::from("m-1"),
                environment: Environment::Sandbox,
            },
            transaction_ref: "5FMSC4Q0MC".into(),
            transaction_id: "order-1".into(),
            transaction_status: crate::domain::Status::Successful,
            state,
            attempts: 1,
            next_attempt_at: Some(Timestamp(1_795_003_600_000)),
            last_error: last_error.map(str::to_owned),
            created_at: Timestamp(1_795_000_000_000),
            delivered_at: None,
            payload: r#"{"ref": "5FMSC4Q0MC",  "status":"SUCCESSFUL"}"#.into(),
        }
    }

    fn printed(done: &Done, format: Format) -> String {
        crate::cli::printed(render(done, format))
    }

    #[test]
    fn the_event_list_prints_one_line_per_event_with_its_last_error() {
        let events = Done::Listed(vec![
            event(EventState::Pending, Some("answered 500")),
            event(EventState::Delivered, None),
        ]);
        assert_eq!(
            printed(&events, Format::Text),
            "msg_1  pending    5FMSC4Q0MC SUCCESSFUL  attempts 1  2026-11-18T11:06:40.000Z  last error: answered 500\n\
             msg_1  delivered  5FMSC4Q0MC SUCCESSFUL  attempts 1  2026-11-18T11:06:40.000Z\n"
        );
        assert_eq!(printed(&Done::Listed(vec![]), Format::Text), "no webhook events\n");
        assert_eq!(printed(&Done::Listed(vec![]), Format::Json), "[]\n");
    }

    #[test]
    fn an_event_prints_as_the_v1_api_shows_it_with_its_payload_verbatim() {
        let listed = Done::Listed(vec![event(EventState::Pending, None)]);
        assert_eq!(
            printed(&listed, Format::Json),
            r#"[
  {
    "id": "msg_1",
    "transactionId": "order-1",
    "ref": "5FMSC4Q0MC",
    "transactionStatus": "SUCCESSFUL",
    "status": "pending",
    "attempts": 1,
    "nextAttemptAt": "2026-11-18T12:06:40.000Z",
    "lastError": null,
    "createdAt": "2026-11-18T11:06:40.000Z",
    "deliveredAt": null,
    "payload": {"ref": "5FMSC4Q0MC",  "status":"SUCCESSFUL"}
  }
]
"#
        );
        let shown = Done::Shown {
            event: Box::new(event(EventState::Failed, Some("answered 410 Gone"))),
            attempts: vec![Attempt {
                attempt: 1,
                at: Timestamp(1_795_000_060_500),
                url: "https://shop.example.ci/hooks".into(),
                status_code: Some(410),
                latency_ms: 12,
                error: Some("answered 410 Gone".into()),
                response: Some("gone".into()),
            }],
        };
        assert_eq!(
            printed(&shown, Format::Json),
            r#"{
  "id": "msg_1",
  "transactionId": "order-1",
  "ref": "5FMSC4Q0MC",
  "transactionStatus": "SUCCESSFUL",
  "status": "failed",
  "attempts": 1,
  "nextAttemptAt": "2026-11-18T12:06:40.000Z",
  "lastError": "answered 410 Gone",
  "createdAt": "2026-11-18T11:06:40.000Z",
  "deliveredAt": null,
  "payload": {"ref": "5FMSC4Q0MC",  "status":"SUCCESSFUL"},
  "deliveryAttempts": [
    {
      "attempt": 1,
      "at": "2026-11-18T11:07:40.500Z",
      "url": "https://shop.example.ci/hooks",
      "statusCode": 410,
      "latencyMs": 12,
      "error": "answered 410 Gone",
      "response": "gone"
    }
  ]
}
"#
        );
    }

    #[test]
    fn redelivery_says_what_will_be_sent_again() {
        let one = Done::Redelivered { id: "msg_1".into() };
        assert_eq!(
            printed(&one, Format::Text),
            "event msg_1 will be sent again by the next dispatcher step\n"
        );
        let failed = Done::RedeliveredFailed { count: 3 };
        assert_eq!(printed(&failed, Format::Text), "3 failed event(s) will be sent again\n");
    }
}
