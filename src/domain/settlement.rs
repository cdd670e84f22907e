//! The settlement report: per UTC day, operator, direction and status, how many transactions
//! and how much money, with fees and net.
//!
//! - **Which day.** A final transaction belongs to the day of its final transition, which is
//!   also the time of its ledger entry: the report of a day and the ledger postings of that day
//!   describe the same settlements. A `PENDING` transaction belongs to the day it was created
//!   and shows there until it settles (then it moves to the day it settled): a past day's
//!   final rows never change once the day is complete (it ended more than the settle lag ago:
//!   a transition stamped before midnight may commit after it), its pending rows only shrink.
//! - **Sign conventions.** Row amounts are magnitudes (never negative). `net` is the money
//!   the transaction moves in the merchant's balance when it succeeds: a collection's
//!   `amountReceive` (amount − fees, credited), a transfer's `amountTotal` (amount + fees,
//!   debited). Only `SUCCESSFUL` rows move money; the totals count only them, and their
//!   `net` is signed: collected − paid out.

use super::money::Francs;
use std::fmt;

use time::{Date, Month};

use super::environment::Environment;
use super::ledger::settled_before;
use super::merchant::MerchantId;
use super::operator::OperatorCode;
use super::purpose::Kind;
use super::time::Timestamp;
use super::transaction::Status;

/// A UTC calendar day.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Day(Date);

const DAY_MILLIS: i64 = 86_400_000;

impl Day {
    /// Exactly `YYYY-MM-DD`, a day that exists (`2026-02-30` does not).
    pub fn parse(raw: &str) -> Option<Day> {
        let bytes = raw.as_bytes();
        let shaped = bytes.len() == 10
            && bytes[4] == b'-'
            && bytes[7] == b'-'
            && bytes
                .iter()
                .enumerate()
                .all(|(i, b)| i == 4 || i == 7 || b.is_ascii_digit());
        if !shaped {
            return None;
        }
        let year: i32 = raw[0..4].parse().ok()?;
        let month: u8 = raw[5..7].parse().ok()?;
        let day: u8 = raw[8..10].parse().ok()?;
        Date::from_calendar_date(year, Month::try_from(month).ok()?, day)
            .ok()
            .map(Day)
    }

    /// Its first instant (midnight UTC).
    pub fn start(self) -> Timestamp {
        Timestamp(self.0.midnight().assume_utc().unix_timestamp() * 1000)
    }

    /// The first instant of the next day: the day is `[start, end)`.
    pub fn end(self) -> Timestamp {
        Timestamp(self.start().millis() + DAY_MILLIS)
    }

    /// Whether every transition of the day has committed at `now`: the day ended more than
    /// [`super::ledger::SETTLE_LAG`] ago. Before that a transition stamped just before midnight
    /// may still commit, so the day's report may still change.
    pub fn complete_at(self, now: Timestamp) -> bool {
        self.end() < settled_before(now)
    }
}

impl fmt::Display for Day {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:04}-{:02}-{:02}",
            self.0.year(),
            u8::from(self.0.month()),
            self.0.day()
        )
    }
}

/// Whose transactions a report covers: one environment, of one merchant or of all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReportScope {
    pub environment: Environment,
    pub merchant: Option<MerchantId>,
}

/// The transactions of one operator, direction and status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SettlementRow {
    pub operator: OperatorCode,
    pub kind: Kind,
    pub status: Status,
    pub count: u64,
    /// The sum of their amounts.
    pub amount: Francs,
    pub fees: Francs,
    /// Collections: the sum of `amountReceive`; transfers: of `amountTotal`.
    pub net: Francs,
}

/// What a day's successful transactions did to the merchant's money.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SettlementTotals {
    /// Successful collections' net: credited to `available`.
    pub collected: Francs,
    /// Successful transfers' net (amount + fees): debited from `reserved`.
    pub paid_out: Francs,
    /// Successful refunds' net (amount + fees): debited from `reserved`, back to payers.
    pub refunded: Francs,
    /// The fees of successful transactions, every kind.
    pub fees: Francs,
    /// `collected - paid_out - refunded`: the day's change of `available + reserved`, but for credits
    /// from outside (top-ups), which are no transaction.
    pub net: Francs,
}

/// A day's report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SettlementReport {
    pub day: Day,
    pub scope: ReportScope,
    /// Sorted by operator, direction, then status (see [`SettlementReport::new`]).
    pub rows: Vec<SettlementRow>,
    /// Final: read after the day's transitions all committed ([`Day::complete_at`]). An
    /// incomplete report may still gain final rows.
    pub complete: bool,
}

fn rank(row: &SettlementRow) -> (usize, usize, usize) {
    let operator = OperatorCode::ALL.iter().position(|o| *o == row.operator).unwrap_or(0);
    let kind = row.kind.index();
    let status = match row.status {
        Status::Successful => 0,
        Status::Failed => 1,
        Status::Pending => 2,
    };
    (operator, kind, status)
}

impl SettlementReport {
    /// Orders the rows as the report shows them: ALPHA, BETA, GAMMA, DELTA; collections, transfers, then refunds;
    /// transfers; SUCCESSFUL, FAILED, PENDING. The database's text order would depend on its
    /// collation.
    /// `now` is when the rows were read, which says whether the report is complete.
    pub fn new(day: Day, scope: ReportScope, mut rows: Vec<SettlementRow>, now: Timestamp) -> SettlementReport {
        rows.sort_by_key(rank);
        SettlementReport {
            day,
            scope,
            rows,
            complete: day.complete_at(now),
        }
    }

    pub fn totals(&self) -> SettlementTotals {
        let mut totals = SettlementTotals::default();
        for row in &self.rows {
            match (row.status, row.kind) {
                (Status::Successful, Kind::Collection) => totals.collected += row.net,
                (Status::Successful, Kind::Transfer) => totals.paid_out += row.net,
                (Status::Successful, Kind::Refund) => totals.refunded += row.net,
                (Status::Failed | Status::Pending, _) => continue,
            }
            totals.fees += row.fees;
        }
        totals.net = totals.collected - totals.paid_out - totals.refunded;
        totals
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_day_is_exactly_yyyy_mm_dd_and_spans_24_hours_from_midnight_utc() {
        let day = Day::parse("2026-11-20").unwrap();
        assert_eq!(day.to_string(), "2026-11-20");
        assert_eq!(day.start().iso8601_millis(), "2026-11-20T00:00:00.000Z");
        assert_eq!(day.end().iso8601_millis(), "2026-11-21T00:00:00.000Z");
        assert_eq!(Day::parse("0001-01-01").unwrap().to_string(), "0001-01-01");
        assert!(Day::parse("2024-02-29").is_some());
        for bad in [
            "",
            "2026-11-2",
            "2026-11-200",
            "2026/11/20",
            "2026-13-01",
            "2026-02-30",
            "2025-02-29",
            "+026-11-20",
            "2026-11-20T00:00:00Z",
            "２０２６-11-20",
            "2026-1a-20",
        ] {
            assert_eq!(Day::parse(bad), None, "{bad}");
        }
    }

    fn row(operator: OperatorCode, kind: Kind, status: Status, amount: i64, fees: i64, net: i64) -> SettlementRow {
        SettlementRow {
            operator,
            kind,
            status,
            count: 1,
            amount: Francs(amount),
            fees: Francs(fees),
            net: Francs(net),
        }
    }

    #[test]
    fn a_day_is_complete_once_it_ended_more_than_the_settle_lag_ago() {
        let day = Day::parse("2026-11-20").unwrap();
        let at = |ms: i64| Timestamp(day.end().millis() + ms);
        assert!(!day.complete_at(Timestamp(day.start().millis() + 1)));
        assert!(!day.complete_at(at(0)), "at midnight");
        assert!(
            !day.complete_at(at(60_000)),
            "a transition of 23:59:59.999 may still commit"
        );
        assert!(day.complete_at(at(60_002)));
    }

    #[test]
    fn rows_are_ordered_and_only_successful_ones_make_the_totals() {
        let rows = vec![
            row(
                OperatorCode::Delta,
                Kind::Transfer,
                Status::Successful,
                1_000,
                10,
                1_010,
            ),
            row(OperatorCode::Alpha, Kind::Collection, Status::Pending, 900, 18, 882),
            row(
                OperatorCode::Alpha,
                Kind::Collection,
                Status::Successful,
                1_500,
                30,
                1_470,
            ),
            row(OperatorCode::Beta, Kind::Transfer, Status::Failed, 2_000, 30, 2_030),
        ];
        let report = SettlementReport::new(
            Day::parse("2026-11-20").unwrap(),
            ReportScope {
                environment: Environment::Sandbox,
                merchant: None,
            },
            rows,
            Timestamp(0),
        );
        let order: Vec<(OperatorCode, Status)> = report.rows.iter().map(|r| (r.operator, r.status)).collect();
        assert_eq!(
            order,
            [
                (OperatorCode::Alpha, Status::Successful),
                (OperatorCode::Alpha, Status::Pending),
                (OperatorCode::Beta, Status::Failed),
                (OperatorCode::Delta, Status::Successful),
            ]
        );
        assert_eq!(
            report.totals(),
            SettlementTotals {
                collected: Francs(1_470),
                paid_out: Francs(1_010),
                refunded: Francs::ZERO,
                fees: Francs(40),
                net: Francs(460)
            }
        );
    }
}
