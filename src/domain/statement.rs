//! A merchant's ledger statement: the postings of its own two accounts (`available` and
//! `reserved`), oldest first, each with the balances it leaves behind.
//!
//! - **Which postings.** Only the merchant's accounts. `operator_clearing` and `fee_revenue`
//!   are the gateway's side of each entry; a collection's fee shows as the difference between
//!   the transaction's amount and what `available` received.
//! - **Order.** Posting time, then stage, then posting id, all ascending. Postings often share
//!   their millisecond: both of an entry, and a transfer final at its creation has its
//!   reservation and its settlement at the same instant. Within one millisecond the stage puts
//!   money into `available` first, then what takes from `available` or adds to `reserved`
//!   (reservations), then what leaves `reserved` (payouts, releases); so a line never shows a
//!   balance below zero, which a random id order would (a payout before its reservation). The
//!   id makes the order total and stable; a cursor names a position (time, stage, id).
//! - **Running balance.** Each line carries both balances, `available` and `reserved`, after
//!   its posting: the sum of every posting of that account up to and including the line, from
//!   the environment's first posting, whatever page or time window the line is read in. The
//!   last line of the whole statement therefore shows `GET /v1/balance`.

use super::ledger::{Account, Balance};
use super::money::Francs;
use super::operator::OperatorCode;
use super::page::Cursor;
use super::purpose::Kind;
use super::time::Timestamp;
use super::transaction::Status;

/// The transaction a posting belongs to, as a statement names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PostingSource {
    pub reference: String,
    /// The merchant's own identifier of the transaction.
    pub transaction_id: String,
    pub kind: Kind,
    pub operator: OperatorCode,
    /// Its status now (not when the posting was made).
    pub status: Status,
    /// The payment link a collection was paid through.
    pub link_id: Option<String>,
}

/// One posting on one of the merchant's accounts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LedgerPosting {
    pub id: String,
    /// The entry the posting is part of: the postings of one entry sum to zero with the
    /// gateway's accounts.
    pub entry_id: String,
    pub at: Timestamp,
    pub account: Account,
    /// Signed: money into the account is positive.
    pub amount: Francs,
    /// `None` for money put in from outside (the Sandbox's opening credit, a top-up).
    pub source: Option<PostingSource>,
}

/// Why money moved, as a statement line says it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Movement {
    /// Money put in from outside: the Sandbox's opening credit or a Production top-up.
    Credit,
    /// A successful payment's credit into `available` (what the merchant receives of a
    /// collection, after fees).
    Received(Kind),
    /// A payout's total held from `available` into `reserved` while it is in flight.
    Reservation(Kind),
    /// A successful payout's total leaving `reserved`.
    Payout(Kind),
    /// A failed payout's total going back from `reserved` to `available`.
    Release(Kind),
}

impl Movement {
    /// Its name on the statement: `credit`, `collection`, `transfer_reservation`,
    /// `refund_payout`, ...
    pub fn name(self) -> String {
        match self {
            Movement::Credit => "credit".to_owned(),
            Movement::Received(kind) => kind.noun().to_owned(),
            Movement::Reservation(kind) => format!("{}_reservation", kind.noun()),
            Movement::Payout(kind) => format!("{}_payout", kind.noun()),
            Movement::Release(kind) => format!("{}_release", kind.noun()),
        }
    }
}

/// Where a posting sits in the statement's order.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Position {
    pub at: Timestamp,
    pub stage: u8,
    pub id: String,
}

impl Position {
    /// The position a cursor names: `{stage}_{id}` as [`LedgerPosting::cursor`] writes it.
    /// Any other text is a position too (stage 0, the text as the id), since every cursor the
    /// document allows must be accepted; it just matches no posting.
    pub fn of(cursor: &Cursor) -> Position {
        let staged = cursor
            .id
            .split_once('_')
            .and_then(|(stage, id)| Some((stage.parse::<u8>().ok().filter(|s| *s <= 2)?, id)))
            .filter(|(_, id)| !id.is_empty() && !id.contains('_'));
        let (stage, id) = staged.unwrap_or((0, cursor.id.as_str()));
        Position {
            at: cursor.created_at,
            stage,
            id: id.to_owned(),
        }
    }
}

impl LedgerPosting {
    /// The posting's stage within its millisecond: 0 money into `available`, 2 money out of
    /// `reserved`, 1 the rest (the store's SQL orders by the same rule).
    pub fn stage(&self) -> i64 {
        match self.account {
            Account::Available if self.amount.is_positive() => 0,
            Account::Reserved if self.amount.is_negative() => 2,
            Account::Available | Account::Reserved | Account::OperatorClearing | Account::FeeRevenue => 1,
        }
    }

    /// The cursor just after this posting, for the next page: its time, and `{stage}_{id}`.
    pub fn cursor(&self) -> Cursor {
        Cursor {
            created_at: self.at,
            id: format!("{}_{}", self.stage(), self.id),
        }
    }

    /// What moved the money, read from the account, the sign and the transaction (see
    /// `ledger::reserve` and `ledger::settle`: the only entries a transfer gets).
    pub fn movement(&self) -> Movement {
        let Some(source) = &self.source else {
            return Movement::Credit;
        };
        let kind = source.kind;
        if !kind.pays_out() {
            return Movement::Received(kind);
        }
        let (reservation, payout, release) = (
            Movement::Reservation(kind),
            Movement::Payout(kind),
            Movement::Release(kind),
        );
        match (self.account, self.amount.is_negative()) {
            (Account::Available, true) | (Account::Reserved, false) => reservation,
            (Account::Available, false) => release,
            // Money leaves `reserved` only when the payout is final: paid when it succeeded.
            (Account::Reserved, true) => match source.status {
                Status::Successful => payout,
                Status::Failed | Status::Pending => release,
            },
            // The gateway's accounts never reach a statement; should one, it is the
            // operator's side of the payout.
            (Account::OperatorClearing | Account::FeeRevenue, _) => payout,
        }
    }
}

/// What a statement page read: the merchant's balances just before its first posting, and
/// its postings in statement order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PostingPage {
    pub opening: Balance,
    pub postings: Vec<LedgerPosting>,
}

/// Which postings a statement shows.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StatementFilter {
    /// Posted at or after.
    pub from: Option<Timestamp>,
    /// Posted before.
    pub to: Option<Timestamp>,
}

/// A posting with the balances after it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatementLine {
    pub posting: LedgerPosting,
    pub balance: Balance,
}

/// Where the page after `lines` starts, when more lines follow: after the last line dated
/// before `horizon` ([`super::ledger::settled_before`]), so a client that follows cursors reads
/// the younger lines again, with any line that committed late among them, rather than passing
/// them for good. When the whole page is younger, after its last line: the cursor must move on,
/// or a client would read the same page until it ages (docs/reports.md says so).
pub fn resume_after(lines: &[StatementLine], horizon: Timestamp) -> Option<&StatementLine> {
    lines
        .iter()
        .rev()
        .find(|line| line.posting.at < horizon)
        .or(lines.last())
}

/// The lines of a page: each posting moves its account from the balance the previous line
/// left (`opening` for the first).
pub fn statement_lines(page: PostingPage) -> Vec<StatementLine> {
    let mut balance = page.opening;
    page.postings
        .into_iter()
        .map(|posting| {
            match posting.account {
                Account::Available => balance.available += posting.amount,
                Account::Reserved => balance.reserved += posting.amount,
                Account::OperatorClearing | Account::FeeRevenue => {}
            }
            StatementLine { posting, balance }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn posting(id: &str, account: Account, amount: i64, kind: Option<(Kind, Status)>) -> LedgerPosting {
        LedgerPosting {
            id: id.into(),
            entry_id: format!("e-{id}"),
            at: Timestamp(1_000),
            account,
            amount: Francs(amount),
            source: kind.map(|(kind, status)| PostingSource {
                reference: "AB12CD34EF".into(),
                transaction_id: "order-1".into(),
                kind,
                operator: OperatorCode::Alpha,
                status,
                link_id: None,
            }),
        }
    }

    #[test]
    fn each_line_carries_both_balances_after_its_posting_from_the_opening() {
        let transfer = Some((Kind::Transfer, Status::Failed));
        let lines = statement_lines(PostingPage {
            opening: Balance {
                available: Francs(5_000),
                reserved: Francs(100),
            },
            postings: vec![
                posting("a", Account::Available, -1_010, transfer),
                posting("b", Account::Reserved, 1_010, transfer),
                posting("c", Account::Reserved, -1_010, transfer),
                posting("d", Account::Available, 1_010, transfer),
                posting(
                    "e",
                    Account::Available,
                    1_470,
                    Some((Kind::Collection, Status::Successful)),
                ),
            ],
        });
        let balances: Vec<(i64, i64)> = lines
            .iter()
            .map(|l| (l.balance.available.get(), l.balance.reserved.get()))
            .collect();
        assert_eq!(
            balances,
            [(3_990, 100), (3_990, 1_110), (3_990, 100), (5_000, 100), (6_470, 100)]
        );
        let movements: Vec<String> = lines.iter().map(|l| l.posting.movement().name()).collect();
        assert_eq!(
            movements,
            [
                "transfer_reservation",
                "transfer_reservation",
                "transfer_release",
                "transfer_release",
                "collection"
            ]
        );
    }

    #[test]
    fn a_cursor_carries_the_stage_and_any_other_text_is_still_a_position() {
        let p = posting("9b6fa9de-6e45", Account::Reserved, -5, None);
        let cursor = p.cursor();
        assert_eq!(cursor.id, "2_9b6fa9de-6e45");
        assert_eq!(
            Position::of(&cursor),
            Position {
                at: Timestamp(1_000),
                stage: 2,
                id: "9b6fa9de-6e45".into()
            }
        );
        for (id, stage, rest) in [
            ("abc", 0, "abc"),
            ("7_x", 0, "7_x"),
            ("1_", 0, "1_"),
            ("0_a_b", 0, "0_a_b"),
            ("1_a", 1, "a"),
        ] {
            let c = Cursor {
                created_at: Timestamp(5),
                id: id.into(),
            };
            assert_eq!(
                (Position::of(&c).stage, Position::of(&c).id.as_str()),
                (stage, rest),
                "{id}"
            );
        }
        let stages: Vec<i64> = [
            posting("a", Account::Available, 10, None),
            posting("b", Account::Available, -10, None),
            posting("c", Account::Reserved, 10, None),
            posting("d", Account::Reserved, -10, None),
            posting("e", Account::Available, 0, None),
        ]
        .iter()
        .map(LedgerPosting::stage)
        .collect();
        assert_eq!(stages, [0, 1, 1, 2, 1]);
    }

    #[test]
    fn a_paid_transfer_and_an_outside_credit_are_named_as_such() {
        let paid = posting(
            "p",
            Account::Reserved,
            -1_010,
            Some((Kind::Transfer, Status::Successful)),
        );
        assert_eq!(paid.movement(), Movement::Payout(Kind::Transfer));
        assert_eq!(posting("c", Account::Available, 10, None).movement(), Movement::Credit);
        assert!(statement_lines(PostingPage {
            opening: Balance {
                available: Francs(1),
                reserved: Francs::ZERO
            },
            postings: vec![]
        })
        .is_empty());
    }

    #[test]
    fn the_next_page_starts_after_the_last_line_older_than_the_horizon_or_moves_on() {
        let line = |id: &str, at: i64| StatementLine {
            posting: LedgerPosting {
                at: Timestamp(at),
                ..posting(id, Account::Available, 1, None)
            },
            balance: Balance {
                available: Francs::ZERO,
                reserved: Francs::ZERO,
            },
        };
        let page = [line("a", 10), line("b", 20), line("c", 30), line("d", 40)];
        let id = |found: Option<&StatementLine>| found.map(|l| l.posting.id.clone());
        assert_eq!(id(resume_after(&page, Timestamp(100))), Some("d".into()), "all settled");
        assert_eq!(
            id(resume_after(&page, Timestamp(30))),
            Some("b".into()),
            "c and d read again"
        );
        assert_eq!(id(resume_after(&page, Timestamp(31))), Some("c".into()));
        assert_eq!(
            id(resume_after(&page, Timestamp(10))),
            Some("d".into()),
            "all young: on"
        );
        assert_eq!(id(resume_after(&[], Timestamp(10))), None);
    }
}
