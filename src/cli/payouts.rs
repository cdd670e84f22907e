//! `payouts batch`: pays the transfers of a CSV file (`service::payouts::csv`) as one payout
//! batch, for a merchant's staff or a payroll script. The batch is recorded as through the API
//! (`Payouts::create_batch`: each line's own outcome, all or nothing on request); the running
//! gateway's payout sender sends its transfers, and the command follows them with a progress
//! bar until the batch completes, then prints a summary. A refusal of the whole file exits 1,
//! having recorded nothing.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use clap::{Args, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use serde_json::json;

use super::merchant::Target;
use super::{print_lines, Format};
use crate::app;
use crate::config::Config;
use crate::domain::{PayoutBatch, Timestamp};
use crate::i18n::{refusals, Lang};
use crate::service::payouts::{csv, BatchCreated, BatchError, BatchRequest, ItemOutcome, Payouts};

#[derive(Debug, Subcommand)]
pub enum PayoutsCommand {
    /// Pay the transfers of a CSV file as one payout batch (docs/payouts.md gives the format).
    ///
    /// Each line is refused alone when it is no valid transfer, or does not fit the balance;
    /// the others are recorded and sent by the running gateway at each operator's pace. The
    /// command waits for the batch to complete, with a progress bar, unless --no-wait.
    Batch(BatchArgs),
}

#[derive(Debug, Args)]
pub struct BatchArgs {
    #[command(flatten)]
    pub target: Target,
    /// The CSV file: a header line (transaction_id,operator,phone,amount,last_name,first_name
    /// and optionally email,check_recipient), then one transfer per line.
    #[arg(long, value_name = "FILE")]
    pub file: PathBuf,
    /// The batch's name, shown with it (a payroll's month).
    #[arg(long, value_name = "TEXT")]
    pub label: Option<String>,
    /// Record every line or none: one refused line refuses the file, and nothing is paid.
    #[arg(long)]
    pub all_or_nothing: bool,
    /// Print the batch as recorded and return, without waiting for its transfers.
    #[arg(long)]
    pub no_wait: bool,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// How long the batch may stand still before the command says why it may be waiting.
const STALL_HINT_AFTER: Duration = Duration::from_secs(20);
/// How often the command reads the batch while it waits.
const POLL_EVERY: Duration = Duration::from_millis(300);

pub(super) async fn run(command: PayoutsCommand, config: Config) -> anyhow::Result<()> {
    let PayoutsCommand::Batch(args) = command;
    let format = Format::json_if(args.json);
    let gateway = app::open(config).await?;
    let lang = Lang::from_env();
    let created = execute(&args, &gateway.payouts, lang).await?;
    print_lines(&render_created(&created, format, lang));
    if args.no_wait {
        return Ok(());
    }
    let done = wait(&gateway.payouts, &args.target, &created.batch).await?;
    print_lines(&render_done(&done, format));
    Ok(())
}

/// Reads the file and records its batch.
async fn execute(args: &BatchArgs, payouts: &Payouts, lang: Lang) -> anyhow::Result<BatchCreated> {
    let bytes = std::fs::read(&args.file).map_err(|e| anyhow::anyhow!("cannot read {}: {e}", args.file.display()))?;
    let aliases = &payouts.payments().config().operator_aliases;
    let items = csv::read(&bytes, aliases).map_err(|e| {
        let why = refusals::csv_problem(lang, &e);
        match lang {
            Lang::En => anyhow::anyhow!("{}: {why}; nothing was recorded", args.file.display()),
            Lang::Fr => anyhow::anyhow!("{} : {why} ; rien n’a été enregistré", args.file.display()),
        }
    })?;
    let request = BatchRequest {
        label: args.label.clone(),
        all_or_nothing: args.all_or_nothing,
        items,
    };
    payouts
        .create_batch(&args.target.tenant(), request, Timestamp::now())
        .await
        .map_err(|e| match (e, lang) {
            (BatchError::Refused { items, .. }, Lang::En) => {
                let lines = refusals(&items, lang).join("\n");
                anyhow::anyhow!("the batch was refused whole, and nothing was recorded:\n{lines}")
            }
            (BatchError::Refused { items, .. }, Lang::Fr) => {
                let lines = refusals(&items, lang).join("\n");
                anyhow::anyhow!("le lot a été refusé en entier, et rien n’a été enregistré :\n{lines}")
            }
            (BatchError::OverLimit(why), Lang::En) => anyhow::anyhow!("the batch was not recorded: {why}"),
            (BatchError::OverLimit(_), Lang::Fr) => anyhow::anyhow!(
                "le lot n’a pas été enregistré : trop de transferts en attente ou de lots en cours pour ce compte ; \
                 réessayez quand une partie aura été envoyée"
            ),
            (BatchError::Invalid(problem), _) => anyhow::anyhow!(refusals::batch(lang, &problem)),
            (BatchError::Service(e), _) => anyhow::anyhow!(refusals::service(lang, &e)),
        })
}

/// Follows the batch until it completes, with a progress bar on a terminal.
async fn wait(payouts: &Payouts, target: &Target, batch: &PayoutBatch) -> anyhow::Result<PayoutBatch> {
    let tenant = target.tenant();
    let bar = ProgressBar::new(batch.accepted.count);
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} transfers final, {msg} [{elapsed}]")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let mut last = (None, Instant::now());
    let mut hinted = false;
    loop {
        let now = payouts
            .batch(&tenant, &batch.id)
            .await?
            .ok_or_else(|| anyhow::anyhow!("batch {} is gone", batch.id))?;
        let finished = now.successful.count + now.failed.count;
        bar.set_position(finished);
        bar.set_message(format!("{} paid, {} failed", now.successful.count, now.failed.count));
        if now.completed_at.is_some() {
            bar.finish_and_clear();
            return Ok(now);
        }
        if Some(finished) != last.0 {
            last = (Some(finished), Instant::now());
        } else if !hinted && last.1.elapsed() >= STALL_HINT_AFTER {
            hinted = true;
            bar.suspend(|| {
                eprintln!(
                    "no transfer of batch {} has moved for {} s: a running gateway (momo-gateway serve, on this \
                     database) sends them; still waiting (Ctrl-C stops waiting, not the batch)",
                    batch.id,
                    STALL_HINT_AFTER.as_secs()
                )
            });
        }
        tokio::time::sleep(POLL_EVERY).await;
    }
}

/// Each item that was not accepted, one line each, by its line in the file.
fn refusals(items: &[ItemOutcome], lang: Lang) -> Vec<String> {
    items
        .iter()
        .enumerate()
        .filter_map(|(i, item)| {
            let line = i + 2;
            match item {
                ItemOutcome::Accepted(_) => None,
                ItemOutcome::Duplicate(r) => {
                    let t = &r.transaction;
                    let (id, reference, status) = (t.transaction_id.as_str(), &t.reference, t.status.as_str());
                    Some(match lang {
                        Lang::En => {
                            format!("line {line}: duplicate: transaction id {id} was used before ({reference}, {status})")
                        }
                        Lang::Fr => format!(
                            "ligne {line} : doublon : l’identifiant de transaction {id} a déjà servi ({reference}, {status})"
                        ),
                    })
                }
                ItemOutcome::Refused(r) => {
                    let (code, reason) = (r.code.as_str(), refusals::batch_line(lang, r));
                    Some(match lang {
                        Lang::En => format!("line {line}: refused ({code}): {reason}"),
                        // The code is for scripts, which read the JSON; a French reader gets the sentence.
                        Lang::Fr => format!("ligne {line} : refusée : {reason}"),
                    })
                }
            }
        })
        .collect()
}

fn counts(b: &PayoutBatch) -> serde_json::Value {
    let tally = |t: crate::domain::Tally| json!({"count": t.count, "amount": t.amount.get()});
    json!({
        "id": b.id.as_str(), "status": b.status().as_str(), "label": b.label,
        "submitted": b.submitted, "refused": b.refused, "duplicates": b.duplicates,
        "accepted": tally(b.accepted), "successful": tally(b.successful), "failed": tally(b.failed),
    })
}

/// What a recorded batch prints: its counts and its refusals, in `lang` as text; JSON, a
/// contract for scripts, keeps the API's English.
fn render_created(created: &BatchCreated, format: Format, lang: Lang) -> Vec<String> {
    let b = &created.batch;
    match format {
        Format::Json => vec![json!({"batch": counts(b), "refusals": refusals(&created.items, Lang::En)}).to_string()],
        Format::Text => {
            let mut lines = vec![format!(
                "batch {} recorded: {} of {} lines accepted ({} XOF), {} refused, {} duplicates",
                b.id, b.accepted.count, b.submitted, b.accepted.amount, b.refused, b.duplicates
            )];
            lines.extend(refusals(&created.items, lang));
            lines
        }
    }
}

fn render_done(b: &PayoutBatch, format: Format) -> Vec<String> {
    match format {
        Format::Json => vec![json!({"batch": counts(b)}).to_string()],
        Format::Text => vec![format!(
            "batch {} completed: {} paid ({} XOF), {} failed ({} XOF)",
            b.id, b.successful.count, b.successful.amount, b.failed.count, b.failed.amount
        )],
    }
}
