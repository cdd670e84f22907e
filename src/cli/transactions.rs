//! `transactions …`: list the transfers that need a person and settle one by hand.

use clap::Subcommand;
use serde_json::json;

use crate::app;
use crate::config::Config;
use crate::domain::{Status, Timestamp};
use crate::reconcile::review;

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

fn parse_final_status(raw: &str) -> Result<Status, String> {
    match Status::parse(&raw.to_ascii_uppercase()) {
        Some(status) if status.is_final() => Ok(status),
        _ => Err("expected SUCCESSFUL or FAILED".to_owned()),
    }
}

pub(super) async fn run(command: TransactionsCommand, config: Config) -> anyhow::Result<()> {
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
