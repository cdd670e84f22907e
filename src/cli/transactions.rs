//! `transactions …`: list the transfers that need a person, settle one by hand, and refund a
//! collection (`refund.rs`).

use clap::Subcommand;
use serde_json::json;

use super::refund::{self, RefundArgs};
use super::{print_lines, Format};
use crate::app;
use crate::config::Config;
use crate::domain::{Reference, Status, Timestamp, Transaction, TransactionRecord};
use crate::reconcile::review;
use crate::service::Payments;

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
    /// Give back part or all of a merchant's SUCCESSFUL collection to its payer.
    ///
    /// Through the operator that took it, as a refund made through the API: refused, reserved,
    /// sent and settled the same way, its webhook included. A refusal exits with status 1.
    Refund(RefundArgs),
}

fn parse_final_status(raw: &str) -> Result<Status, String> {
    match Status::parse(&raw.to_ascii_uppercase()) {
        Some(status @ (Status::Successful | Status::Failed)) => Ok(status),
        Some(Status::Pending) | None => Err("expected SUCCESSFUL or FAILED".to_owned()),
    }
}

/// What a transactions command did: the data it prints.
#[derive(Debug)]
enum Done {
    /// Transfers pending past the time to live, oldest first.
    Stuck(Vec<Transaction>),
    /// The transaction's reference and its final status.
    Resolved { reference: String, status: Status },
    /// The refund as created: `SUCCESSFUL`, or `PENDING` until its operator answers.
    Refunded(Box<TransactionRecord>),
}

/// Opens the database, runs the command and prints what it did.
pub(super) async fn run(command: TransactionsCommand, config: Config) -> anyhow::Result<()> {
    let format = command.format();
    let gateway = app::open(config).await?;
    let done = command.execute(&gateway.payments, Timestamp::now()).await?;
    print_lines(&render(&done, format)?);
    Ok(())
}

impl TransactionsCommand {
    fn format(&self) -> Format {
        match self {
            TransactionsCommand::Stuck { json } => Format::json_if(*json),
            TransactionsCommand::Resolve { .. } => Format::Text,
            TransactionsCommand::Refund(args) => Format::json_if(args.json),
        }
    }

    /// Runs the command's use case.
    async fn execute(self, payments: &Payments, now: Timestamp) -> anyhow::Result<Done> {
        Ok(match self {
            TransactionsCommand::Stuck { .. } => {
                let stuck = review::stuck_transfers(payments, now).await?;
                Done::Stuck(stuck.into_iter().map(|r| r.transaction).collect())
            }
            TransactionsCommand::Resolve { id, status, reason } => {
                let settled = review::resolve(payments, &Reference::from(id), status, &reason, now).await?;
                Done::Resolved {
                    reference: settled.transaction.reference.to_string(),
                    status: settled.transaction.status,
                }
            }
            TransactionsCommand::Refund(args) => Done::Refunded(Box::new(refund::execute(args, payments, now).await?)),
        })
    }
}

/// The lines a transactions command prints.
fn render(done: &Done, format: Format) -> serde_json::Result<Vec<String>> {
    Ok(match done {
        Done::Stuck(stuck) => match format {
            Format::Json => {
                let list: Vec<_> = stuck.iter().map(stuck_json).collect();
                vec![serde_json::to_string_pretty(&list)?]
            }
            Format::Text if stuck.is_empty() => vec!["no transfer needs review".to_owned()],
            Format::Text => {
                let mut lines = vec![format!(
                    "{} transfer(s) pending past the time to live; check with the operator, then settle with `transactions resolve`:",
                    stuck.len()
                )];
                lines.extend(stuck.iter().map(stuck_text));
                lines
            }
        },
        Done::Resolved { reference, status } => {
            vec![format!("transaction {reference} is now {}", status.as_str())]
        }
        Done::Refunded(record) => match format {
            Format::Json => vec![serde_json::to_string_pretty(&refund::refund_json(record))?],
            Format::Text if record.transaction.status == Status::Pending => vec![format!(
                "{}; the operator has not answered yet: the reconciler settles it, and its webhook says how",
                refund::refund_text(record)
            )],
            Format::Text => vec![refund::refund_text(record)],
        },
    })
}

fn stuck_json(t: &Transaction) -> serde_json::Value {
    json!({
        "ref": t.reference.as_str(),
        "merchantId": t.tenant.merchant_id.as_str(),
        "environment": t.tenant.environment.as_str(),
        "transactionId": t.transaction_id.as_str(),
        "operator": t.operator.name(),
        "amountTotal": t.amounts.amount_total.to_string(),
        "createdAt": t.created_at.iso8601_millis(),
    })
}

fn stuck_text(t: &Transaction) -> String {
    format!(
        "  {}  {} {}  {} XOF  {}  merchant {} ({})",
        t.reference,
        t.operator,
        t.phone.masked(),
        t.amounts.amount_total,
        t.created_at.iso8601_millis(),
        t.tenant.merchant_id,
        t.tenant.environment
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn printed(done: &Done, format: Format) -> String {
        crate::cli::printed(render(done, format))
    }

    #[test]
    fn a_resolved_transaction_prints_its_final_status() {
        let resolved = Done::Resolved {
            reference: "6NV8UV1V72".into(),
            status: Status::Failed,
        };
        assert_eq!(
            printed(&resolved, Format::Text),
            "transaction 6NV8UV1V72 is now FAILED\n"
        );
    }

    #[test]
    fn no_stuck_transfer_prints_one_line_or_an_empty_json_list() {
        assert_eq!(
            printed(&Done::Stuck(vec![]), Format::Text),
            "no transfer needs review\n"
        );
        assert_eq!(printed(&Done::Stuck(vec![]), Format::Json), "[]\n");
    }
}
