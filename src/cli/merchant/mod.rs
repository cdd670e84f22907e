//! `merchant …`: create merchants, list them, set their webhook URLs, credit their balances
//! and rotate their API credentials and webhook signing secrets.

use clap::{Args, Subcommand};
use serde_json::json;

use super::{parse_environment, print_lines, Format};
use crate::app;
use crate::config::Config;
use crate::domain::{Environment, Francs, MerchantId, MerchantSummary, Tenant, Timestamp};
use crate::i18n::{refusals, Lang};
use crate::service::{Balances, CreatedMerchant, Merchants, Recipients, RotatedWebhookSecret, WebhookUrlError};

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
        /// Francs to credit (digits only).
        #[arg(long)]
        amount: Francs,
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
    /// Switch the recipient check (GET /v1/account-holders/…) on or off for an environment. It
    /// is on in Sandbox and off in Production until switched: a holder's name is personal data.
    RecipientCheck {
        #[command(flatten)]
        target: Target,
        /// Allow the merchant to ask it.
        #[arg(long, required_unless_present = "off")]
        on: bool,
        /// Refuse it (403).
        #[arg(long, conflicts_with = "on")]
        off: bool,
    },
    /// Issue a new webhook signing secret for an environment (shown once); deliveries carry
    /// the old secret's signature too until the overlap (MOMO_WEBHOOK_SECRET_OVERLAP_S) ends.
    RotateWebhookSecret {
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
    pub(super) fn tenant(&self) -> Tenant {
        Tenant {
            merchant_id: MerchantId::from(self.merchant.clone()),
            environment: self.env,
        }
    }
}

/// What a merchant command did: the data it prints.
#[derive(Debug)]
enum Done {
    Created(CreatedMerchant),
    Listed(Vec<MerchantSummary>),
    /// The URL as given (`None`: cleared).
    WebhookSet {
        environment: Environment,
        url: Option<String>,
    },
    ToppedUp {
        environment: Environment,
        amount: Francs,
        available: i64,
    },
    Rotated {
        environment: Environment,
        api_key: String,
        api_secret: String,
    },
    WebhookSecretRotated(RotatedWebhookSecret),
    RecipientCheckSet {
        environment: Environment,
        allowed: bool,
    },
}

/// Opens the database, runs the command and prints what it did.
pub(super) async fn run(command: MerchantCommand, config: Config) -> anyhow::Result<()> {
    let format = command.format();
    let gateway = app::open(config).await?;
    let done = command
        .execute(
            &gateway.merchants,
            &gateway.balances,
            &gateway.recipients,
            Timestamp::now(),
        )
        .await?;
    print_lines(&render(&done, format)?);
    Ok(())
}

impl MerchantCommand {
    fn format(&self) -> Format {
        match self {
            MerchantCommand::Create { json, .. }
            | MerchantCommand::List { json }
            | MerchantCommand::RotateSecret { json, .. }
            | MerchantCommand::RotateWebhookSecret { json, .. } => Format::json_if(*json),
            MerchantCommand::SetWebhook { .. }
            | MerchantCommand::TopUp { .. }
            | MerchantCommand::RecipientCheck { .. } => Format::Text,
        }
    }

    /// Runs the command's use case.
    async fn execute(
        self,
        merchants: &Merchants,
        balances: &Balances,
        recipients: &Recipients,
        now: Timestamp,
    ) -> anyhow::Result<Done> {
        Ok(match self {
            MerchantCommand::Create { name, webhook_url, .. } => {
                // Its URL refused in the reader's language, before anything is created.
                if let Some(url) = &webhook_url {
                    merchants
                        .check_webhook_url(url)
                        .map_err(|problem| anyhow::anyhow!(refusals::webhook_url(Lang::from_env(), &problem)))?;
                }
                Done::Created(merchants.create_merchant(&name, webhook_url.as_deref(), now).await?)
            }
            MerchantCommand::List { .. } => Done::Listed(merchants.merchants().await?),
            MerchantCommand::SetWebhook { target, url, clear } => {
                let url = if clear { None } else { url };
                merchants
                    .set_webhook_url(&target.tenant(), url.as_deref())
                    .await
                    .map_err(|e| match e {
                        WebhookUrlError::Url(problem) => {
                            anyhow::anyhow!(refusals::webhook_url(Lang::from_env(), &problem))
                        }
                        WebhookUrlError::Service(e) => e.into(),
                    })?;
                Done::WebhookSet {
                    environment: target.env,
                    url,
                }
            }
            MerchantCommand::TopUp { target, amount } => {
                let balance = balances.top_up(&target.tenant(), amount, now).await?;
                Done::ToppedUp {
                    environment: target.env,
                    amount,
                    available: balance.available.get(),
                }
            }
            MerchantCommand::RotateSecret { target, .. } => {
                let (api_key, api_secret) = merchants.rotate_secret(&target.tenant(), now).await?;
                Done::Rotated {
                    environment: target.env,
                    api_key,
                    api_secret,
                }
            }
            MerchantCommand::RecipientCheck { target, on, .. } => {
                recipients.set_allowed(&target.tenant(), on).await?;
                Done::RecipientCheckSet {
                    environment: target.env,
                    allowed: on,
                }
            }
            MerchantCommand::RotateWebhookSecret { target, .. } => {
                Done::WebhookSecretRotated(merchants.rotate_webhook_secret(&target.tenant(), now).await?)
            }
        })
    }
}

/// The lines a merchant command prints.
fn render(done: &Done, format: Format) -> serde_json::Result<Vec<String>> {
    Ok(match done {
        Done::Created(created) => match format {
            Format::Json => vec![created_json(created).to_string()],
            Format::Text => created_text(created),
        },
        Done::Listed(merchants) => match format {
            Format::Json => {
                let list: Vec<_> = merchants.iter().map(summary_json).collect();
                vec![serde_json::to_string_pretty(&list)?]
            }
            Format::Text if merchants.is_empty() => {
                vec!["no merchants yet: create one with `momo-gateway merchant create --name NAME`".to_owned()]
            }
            Format::Text => merchants.iter().flat_map(summary_text).collect(),
        },
        Done::WebhookSet { environment, url } => vec![match url {
            Some(url) => format!("{environment} webhook URL set to {url}"),
            None => format!("{environment} webhook URL cleared"),
        }],
        Done::ToppedUp {
            environment,
            amount,
            available,
        } => vec![format!(
            "{environment} credited with {amount} XOF; available balance {available} XOF"
        )],
        Done::Rotated {
            environment,
            api_key,
            api_secret,
        } => match format {
            Format::Json => {
                vec![
                    json!({ "environment": environment.as_str(), "apiKey": api_key, "apiSecret": api_secret })
                        .to_string(),
                ]
            }
            Format::Text => vec![
                format!("New {environment} credentials (the old pair no longer works; the secret is shown only once):"),
                format!("  API key:    {api_key}"),
                format!("  API secret: {api_secret}"),
            ],
        },
        Done::RecipientCheckSet { environment, allowed } => vec![if *allowed {
            format!("{environment}: the recipient check is on (each lookup is counted against the daily quota and listed for the merchant)")
        } else {
            format!("{environment}: the recipient check is off (lookups are refused with 403)")
        }],
        Done::WebhookSecretRotated(rotated) => {
            let until = rotated.previous_valid_until.iso8601_millis();
            match format {
                Format::Json => vec![json!({
                    "environment": rotated.environment.as_str(),
                    "webhookSecret": rotated.webhook_secret,
                    "previousSecretValidUntil": until,
                })
                .to_string()],
                Format::Text => vec![
                    format!("New {} webhook signing secret (shown only once):", rotated.environment),
                    format!("  Webhook signing secret: {}", rotated.webhook_secret),
                    format!("Deliveries carry the old secret's signature too until {until}."),
                ],
            }
        }
    })
}

fn created_json(created: &CreatedMerchant) -> serde_json::Value {
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
    json!({ "id": created.id.as_str(), "name": created.name, "environments": environments })
}

fn created_text(created: &CreatedMerchant) -> Vec<String> {
    let mut lines = vec![
        format!("Merchant {} created: {}", created.name, created.id),
        "Secrets are shown only this once; store them now.".to_owned(),
    ];
    for e in &created.environments {
        lines.push(format!("  {}:", e.environment));
        lines.push(format!("    API key:                {}", e.api_key));
        lines.push(format!("    API secret:             {}", e.api_secret));
        lines.push(format!("    Webhook signing secret: {}", e.webhook_secret));
        if let Some(url) = &e.webhook_url {
            lines.push(format!("    Webhook URL:            {url}"));
        }
    }
    lines
}

/// A merchant as `merchant list --json` shows it: API keys, never secrets.
fn summary_json(m: &MerchantSummary) -> serde_json::Value {
    json!({
        "id": m.id.as_str(),
        "name": m.name,
        "createdAt": m.created_at.iso8601_millis(),
        "environments": m.environments.iter().map(|e| json!({
            "environment": e.environment.as_str(),
            "apiKey": e.api_key,
            "webhookUrl": e.webhook_url,
        })).collect::<Vec<_>>(),
    })
}

fn summary_text(m: &MerchantSummary) -> Vec<String> {
    let mut lines = vec![format!(
        "{}  {}  (created {})",
        m.id,
        m.name,
        m.created_at.iso8601_millis()
    )];
    for e in &m.environments {
        let url = e.webhook_url.as_deref().unwrap_or("no webhook URL");
        lines.push(format!("    {:<10} {}  {}", e.environment.as_str(), e.api_key, url));
    }
    lines
}

#[cfg(test)]
mod tests;
