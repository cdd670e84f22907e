//! `merchant …`: create merchants, list them, set their webhook URLs, credit their balances
//! and rotate their credentials.

use clap::{Args, Subcommand};
use serde_json::json;

use super::parse_environment;
use crate::app;
use crate::config::Config;
use crate::domain::{Environment, MerchantId, Tenant, Timestamp};
use crate::service::CreatedMerchant;

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

pub(super) async fn run(command: MerchantCommand, config: Config) -> anyhow::Result<()> {
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
