//! `report …`: a merchant's ledger statement and the daily settlement report, printed as the
//! API answers them (`GET /v1/ledger/entries`, `GET /v1/reports/settlement`): the `data` of
//! the JSON answer, or the CSV document. CSV lines end with a plain newline here, as a
//! terminal prints them; the API ends them with CRLF.

use clap::{Subcommand, ValueEnum};

use super::{parse_environment, print_lines};
use crate::api::csv;
use crate::api::v1::report_views::{self, SettlementOut, StatementLineOut};
use crate::app;
use crate::config::Config;
use crate::domain::{
    Day, Environment, MerchantId, ReportScope, SettlementReport, StatementFilter, StatementLine, Tenant, Timestamp,
};
use crate::service::Reports;

#[derive(Debug, Subcommand)]
pub enum ReportCommand {
    /// A merchant environment's postings with running balances, oldest first (every page).
    Statement {
        /// The merchant's id.
        #[arg(long, value_name = "ID")]
        merchant: String,
        /// Production or Sandbox.
        #[arg(long, value_name = "ENV", value_parser = parse_environment)]
        env: Environment,
        /// ISO 8601 start (inclusive); no bound when absent.
        #[arg(long, value_name = "TIME", value_parser = parse_time)]
        from: Option<Timestamp>,
        /// ISO 8601 end (exclusive); no bound when absent.
        #[arg(long, value_name = "TIME", value_parser = parse_time)]
        to: Option<Timestamp>,
        #[arg(long, value_enum, default_value_t = ReportFormat::Json)]
        format: ReportFormat,
    },
    /// Per operator, direction and status: counts and sums of one UTC day.
    Settlement {
        /// The UTC day, YYYY-MM-DD.
        #[arg(long, value_name = "DAY", value_parser = parse_day)]
        date: Day,
        /// Only this merchant; every merchant of the environment when absent.
        #[arg(long, value_name = "ID")]
        merchant: Option<String>,
        /// Production or Sandbox.
        #[arg(long, value_name = "ENV", value_parser = parse_environment, default_value = "Production")]
        env: Environment,
        #[arg(long, value_enum, default_value_t = ReportFormat::Json)]
        format: ReportFormat,
    },
}

/// How a report prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ReportFormat {
    Json,
    Csv,
}

fn parse_time(raw: &str) -> Result<Timestamp, String> {
    Timestamp::parse_iso8601(raw).ok_or_else(|| "expected an ISO 8601 time like 2026-11-20T10:15:30Z".to_owned())
}

fn parse_day(raw: &str) -> Result<Day, String> {
    Day::parse(raw).ok_or_else(|| "expected a UTC day like 2026-11-20 (YYYY-MM-DD)".to_owned())
}

/// What a report command read: the data it prints.
#[derive(Debug)]
enum Done {
    Statement(Vec<StatementLine>),
    Settlement(SettlementReport),
}

/// Opens the database, reads the report and prints it.
pub(super) async fn run(command: ReportCommand, config: Config) -> anyhow::Result<()> {
    let format = command.format();
    let gateway = app::open(config).await?;
    let done = command.execute(&gateway.reports).await?;
    print_lines(&render(&done, format)?);
    Ok(())
}

impl ReportCommand {
    fn format(&self) -> ReportFormat {
        match self {
            ReportCommand::Statement { format, .. } | ReportCommand::Settlement { format, .. } => *format,
        }
    }

    /// Runs the command's use case.
    async fn execute(self, reports: &Reports) -> anyhow::Result<Done> {
        Ok(match self {
            ReportCommand::Statement {
                merchant,
                env,
                from,
                to,
                ..
            } => {
                let tenant = Tenant {
                    merchant_id: MerchantId::from(merchant),
                    environment: env,
                };
                Done::Statement(reports.full_statement(&tenant, &StatementFilter { from, to }).await?)
            }
            ReportCommand::Settlement {
                date, merchant, env, ..
            } => {
                let scope = ReportScope {
                    environment: env,
                    merchant: merchant.map(MerchantId::from),
                };
                Done::Settlement(reports.settlement_report(&scope, date, Timestamp::now()).await?)
            }
        })
    }
}

/// The lines a report command prints.
fn render(done: &Done, format: ReportFormat) -> serde_json::Result<Vec<String>> {
    Ok(match (done, format) {
        (Done::Statement(lines), ReportFormat::Json) => {
            let body: Vec<StatementLineOut> = lines.iter().map(StatementLineOut::from).collect();
            vec![serde_json::to_string_pretty(&body)?]
        }
        (Done::Statement(lines), ReportFormat::Csv) => {
            let mut out = vec![csv::record(&report_views::STATEMENT_COLUMNS.map(csv::Cell::Plain))];
            out.extend(lines.iter().map(report_views::statement_record));
            out
        }
        (Done::Settlement(report), ReportFormat::Json) => {
            vec![serde_json::to_string_pretty(&SettlementOut::from(report))?]
        }
        (Done::Settlement(report), ReportFormat::Csv) => {
            let mut out = vec![csv::record(&report_views::SETTLEMENT_COLUMNS.map(csv::Cell::Plain))];
            out.extend(report_views::settlement_records(report));
            out
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::ledger::{Account, Balance};
    use crate::domain::statement::{LedgerPosting, PostingSource};
    use crate::domain::{Kind, OperatorCode, SettlementRow, Status};

    fn printed(done: &Done, format: ReportFormat) -> String {
        crate::cli::printed(render(done, format))
    }

    fn statement() -> Done {
        let opening = LedgerPosting {
            id: "p1".into(),
            entry_id: "e1".into(),
            at: Timestamp(1_795_169_730_123),
            account: Account::Available,
            amount: crate::domain::Francs(10_000),
            source: None,
        };
        let reservation = LedgerPosting {
            id: "p2".into(),
            entry_id: "e2".into(),
            at: Timestamp(1_795_169_731_000),
            account: Account::Available,
            amount: crate::domain::Francs(-1_015),
            source: Some(PostingSource {
                reference: "AB12CD34EF".into(),
                transaction_id: "=cmd,\"x\"".into(),
                kind: Kind::Transfer,
                operator: OperatorCode::Beta,
                status: Status::Pending,
                link_id: None,
            }),
        };
        Done::Statement(vec![
            StatementLine {
                posting: opening,
                balance: Balance {
                    available: crate::domain::Francs(10_000),
                    reserved: crate::domain::Francs(0),
                },
            },
            StatementLine {
                posting: reservation,
                balance: Balance {
                    available: crate::domain::Francs(8_985),
                    reserved: crate::domain::Francs(0),
                },
            },
        ])
    }

    fn settlement() -> Done {
        Done::Settlement(SettlementReport::new(
            Day::parse("2026-11-20").unwrap(),
            ReportScope {
                environment: Environment::Sandbox,
                merchant: None,
            },
            vec![SettlementRow {
                operator: OperatorCode::Alpha,
                kind: Kind::Collection,
                status: Status::Successful,
                count: 2,
                amount: crate::domain::Francs(3_000),
                fees: crate::domain::Francs(60),
                net: crate::domain::Francs(2_940),
            }],
            Timestamp::from_millis(1_800_000_000_000),
        ))
    }

    #[test]
    fn a_statement_prints_as_csv_with_a_header_and_defused_merchant_text() {
        assert_eq!(
            printed(&statement(), ReportFormat::Csv),
            "createdAt,id,entryId,account,movement,amount,balanceAvailable,balanceReserved,ref,transactionId,typeTransaction,operator,status,linkPaymentId\n\
             2026-11-20T10:15:30.123Z,p1,e1,available,credit,10000,10000,0,,,,,,\n\
             2026-11-20T10:15:31.000Z,p2,e2,available,transfer_reservation,-1015,8985,0,AB12CD34EF,\"'=cmd,\"\"x\"\"\",transfer,BETA_MONEY_CI,PENDING,\n"
        );
    }

    #[test]
    fn a_statement_prints_as_the_apis_json_lines() {
        let printed = printed(&statement(), ReportFormat::Json);
        let value: serde_json::Value = serde_json::from_str(&printed).unwrap();
        assert_eq!(
            value,
            serde_json::json!([
                {"id": "p1", "entryId": "e1", "createdAt": "2026-11-20T10:15:30.123Z", "account": "available",
                 "movement": "credit", "amount": "10000", "balanceAvailable": "10000", "balanceReserved": "0",
                 "ref": null, "transactionId": null, "typeTransaction": null, "operator": null, "status": null},
                {"id": "p2", "entryId": "e2", "createdAt": "2026-11-20T10:15:31.000Z", "account": "available",
                 "movement": "transfer_reservation", "amount": "-1015", "balanceAvailable": "8985",
                 "balanceReserved": "0", "ref": "AB12CD34EF", "transactionId": "=cmd,\"x\"",
                 "typeTransaction": "transfer", "operator": "BETA_MONEY_CI", "status": "PENDING"}
            ])
        );
        assert!(
            printed.starts_with("[\n  {\n    \"id\": \"p1\",\n    \"entryId\""),
            "field order kept: {printed}"
        );
    }

    #[test]
    fn a_settlement_report_prints_its_rows_and_totals() {
        assert_eq!(
            printed(&settlement(), ReportFormat::Csv),
            "date,operator,typeTransaction,status,count,amount,fees,net,complete\n\
             2026-11-20,ALPHA_MONEY_CI,collecte,SUCCESSFUL,2,3000,60,2940,true\n"
        );
        assert_eq!(
            printed(&settlement(), ReportFormat::Json),
            "{\n  \"date\": \"2026-11-20\",\n  \"environment\": \"Sandbox\",\n  \"currency\": \"XOF\",\n  \"complete\": true,\n  \"rows\": [\n    {\n      \
             \"operator\": \"ALPHA_MONEY_CI\",\n      \"typeTransaction\": \"collecte\",\n      \"status\": \"SUCCESSFUL\",\n      \
             \"count\": 2,\n      \"amount\": \"3000\",\n      \"fees\": \"60\",\n      \"net\": \"2940\"\n    }\n  ],\n  \
             \"totals\": {\n    \"collected\": \"2940\",\n    \"paidOut\": \"0\",\n    \"refunded\": \"0\",\n    \"fees\": \"60\",\n    \"net\": \"2940\"\n  }\n}\n"
        );
    }

    #[test]
    fn an_empty_statement_prints_the_header_alone_or_an_empty_list() {
        assert_eq!(printed(&Done::Statement(vec![]), ReportFormat::Csv).lines().count(), 1);
        assert_eq!(printed(&Done::Statement(vec![]), ReportFormat::Json), "[]\n");
    }
}
