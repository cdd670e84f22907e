//! The reports as v1 shows them, in JSON and in CSV: statement lines and the settlement
//! report. The command line prints the same views (`momo-gateway report …`).
//!
//! Money is a string of whole francs, as everywhere in v1; a statement's `amount` and the
//! totals' `net` carry a sign (`"-1015"`), every other amount is a magnitude. CSV writes the
//! same values as bare numbers.

use serde::Serialize;

use super::wire::{KindV1, StatusV1};
use crate::api::csv::{self, Cell};
use crate::domain::{SettlementReport, SettlementRow, StatementLine};

/// One statement line.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StatementLineOut<'a> {
    pub id: &'a str,
    pub entry_id: &'a str,
    pub created_at: String,
    pub account: &'static str,
    pub movement: String,
    pub amount: String,
    pub balance_available: String,
    pub balance_reserved: String,
    #[serde(rename = "ref")]
    pub reference: Option<&'a str>,
    pub transaction_id: Option<&'a str>,
    pub type_transaction: Option<KindV1>,
    pub operator: Option<&'static str>,
    pub status: Option<StatusV1>,
    /// The payment link a collection was paid through; left out otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub link_payment_id: Option<&'a str>,
}

impl<'a> From<&'a StatementLine> for StatementLineOut<'a> {
    fn from(line: &'a StatementLine) -> Self {
        let p = &line.posting;
        let source = p.source.as_ref();
        StatementLineOut {
            id: &p.id,
            entry_id: &p.entry_id,
            created_at: p.at.iso8601_millis(),
            account: p.account.as_str(),
            movement: p.movement().name(),
            amount: p.amount.to_string(),
            balance_available: line.balance.available.to_string(),
            balance_reserved: line.balance.reserved.to_string(),
            reference: source.map(|s| s.reference.as_str()),
            transaction_id: source.map(|s| s.transaction_id.as_str()),
            type_transaction: source.map(|s| s.kind.into()),
            operator: source.map(|s| s.operator.v1_code()),
            status: source.map(|s| s.status.into()),
            link_payment_id: source.and_then(|s| s.link_id.as_deref()),
        }
    }
}

pub const STATEMENT_COLUMNS: [&str; 14] = [
    "createdAt",
    "id",
    "entryId",
    "account",
    "movement",
    "amount",
    "balanceAvailable",
    "balanceReserved",
    "ref",
    "transactionId",
    "typeTransaction",
    "operator",
    "status",
    "linkPaymentId",
];

/// A statement line as a CSV record, in [`STATEMENT_COLUMNS`] order.
pub fn statement_record(line: &StatementLine) -> String {
    let p = &line.posting;
    let created_at = p.at.iso8601_millis();
    let movement = p.movement().name();
    let source = p.source.as_ref();
    let or_empty = |text: Option<&'static str>| text.map(Cell::Plain).unwrap_or(Cell::Empty);
    csv::record(&[
        Cell::Plain(&created_at),
        Cell::Plain(&p.id),
        Cell::Plain(&p.entry_id),
        Cell::Plain(p.account.as_str()),
        Cell::Plain(&movement),
        Cell::Number(p.amount.get()),
        Cell::Number(line.balance.available.get()),
        Cell::Number(line.balance.reserved.get()),
        source.map(|s| Cell::Plain(&s.reference)).unwrap_or(Cell::Empty),
        source.map(|s| Cell::Text(&s.transaction_id)).unwrap_or(Cell::Empty),
        or_empty(source.map(|s| s.kind.as_str())),
        or_empty(source.map(|s| s.operator.v1_code())),
        or_empty(source.map(|s| s.status.as_str())),
        source
            .and_then(|s| s.link_id.as_deref())
            .map(Cell::Plain)
            .unwrap_or(Cell::Empty),
    ])
}

/// A whole statement page as a CSV document.
pub fn statement_csv(lines: &[StatementLine]) -> String {
    csv::document(&STATEMENT_COLUMNS, lines.iter().map(statement_record))
}

/// The settlement report.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SettlementOut {
    pub date: String,
    pub environment: &'static str,
    pub currency: &'static str,
    /// Final: the day ended more than the settle lag ago; until then it may still change.
    pub complete: bool,
    pub rows: Vec<SettlementRowOut>,
    pub totals: SettlementTotalsOut,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SettlementRowOut {
    pub operator: &'static str,
    pub type_transaction: KindV1,
    pub status: StatusV1,
    pub count: u64,
    pub amount: String,
    pub fees: String,
    pub net: String,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SettlementTotalsOut {
    pub collected: String,
    pub paid_out: String,
    pub refunded: String,
    pub fees: String,
    pub net: String,
}

impl From<&SettlementReport> for SettlementOut {
    fn from(report: &SettlementReport) -> Self {
        let totals = report.totals();
        SettlementOut {
            date: report.day.to_string(),
            environment: report.scope.environment.as_str(),
            currency: "XOF",
            complete: report.complete,
            rows: report.rows.iter().map(SettlementRowOut::from).collect(),
            totals: SettlementTotalsOut {
                collected: totals.collected.to_string(),
                paid_out: totals.paid_out.to_string(),
                refunded: totals.refunded.to_string(),
                fees: totals.fees.to_string(),
                net: totals.net.to_string(),
            },
        }
    }
}

impl From<&SettlementRow> for SettlementRowOut {
    fn from(row: &SettlementRow) -> Self {
        SettlementRowOut {
            operator: row.operator.v1_code(),
            type_transaction: row.kind.into(),
            status: row.status.into(),
            count: row.count,
            amount: row.amount.to_string(),
            fees: row.fees.to_string(),
            net: row.net.to_string(),
        }
    }
}

pub const SETTLEMENT_COLUMNS: [&str; 9] = [
    "date",
    "operator",
    "typeTransaction",
    "status",
    "count",
    "amount",
    "fees",
    "net",
    "complete",
];

/// The report's rows as CSV records, in [`SETTLEMENT_COLUMNS`] order. The totals are not
/// rows: a spreadsheet sums the `SUCCESSFUL` ones. `complete` is the report's, on every row.
pub fn settlement_records(report: &SettlementReport) -> Vec<String> {
    let date = report.day.to_string();
    report
        .rows
        .iter()
        .map(|row| {
            csv::record(&[
                Cell::Plain(&date),
                Cell::Plain(row.operator.v1_code()),
                Cell::Plain(row.kind.as_str()),
                Cell::Plain(row.status.as_str()),
                Cell::Number(i64::try_from(row.count).unwrap_or(i64::MAX)),
                Cell::Number(row.amount.get()),
                Cell::Number(row.fees.get()),
                Cell::Number(row.net.get()),
                Cell::Plain(if report.complete { "true" } else { "false" }),
            ])
        })
        .collect()
}

pub fn settlement_csv(report: &SettlementReport) -> String {
    csv::document(&SETTLEMENT_COLUMNS, settlement_records(report))
}
