//! A merchant's ledger statement: the postings of its own two accounts (`available` and
//! `reserved`), oldest first, each with the balances it leaves behind.
//!
//! - **Which postings.** Only the merchant's accounts. `operator_clearing` and `fee_revenue`
//!   are the gateway's side of each entry; a collection's fee shows as the difference between
//!   the transaction's amount and what `available` received.
//! - **Order.** Posting time, then posting id, both ascending. The id breaks ties between the
//!   postings of one entry (they share their time), so the order is total and stable, and a
//!   cursor (time, id) names a position in it.
//! - **Running balance.** Each line carries both balances, `available` and `reserved`, after
//!   its posting: the sum of every posting of that account up to and including the line, from
//!   the environment's first posting, whatever page or time window the line is read in. The
//!   last line of the whole statement therefore shows `GET /v1/balance`.

use super::ledger::{Account, Balance};
use super::operator::OperatorCode;
use super::page::Cursor;
use super::time::Timestamp;
use super::transaction::{Kind, Status};

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
    pub amount: i64,
    /// `None` for money put in from outside (the Sandbox's opening credit, a top-up).
    pub source: Option<PostingSource>,
}

/// Why money moved, as a statement line says it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Movement {
    /// Money put in from outside: the Sandbox's opening credit or a Production top-up.
    Credit,
    /// A successful collection's credit (what the merchant receives, after fees).
    Collection,
    /// A transfer's total held from `available` into `reserved` while it is in flight.
    TransferReservation,
    /// A successful transfer's total leaving `reserved`.
    TransferPayout,
    /// A failed transfer's total going back from `reserved` to `available`.
    TransferRelease,
}

impl Movement {
    pub fn as_str(self) -> &'static str {
        match self {
            Movement::Credit => "credit",
            Movement::Collection => "collection",
            Movement::TransferReservation => "transfer_reservation",
            Movement::TransferPayout => "transfer_payout",
            Movement::TransferRelease => "transfer_release",
        }
    }
}

impl LedgerPosting {
    /// The position just after this posting, for the next page.
    pub fn position(&self) -> Cursor {
        Cursor {
            created_at: self.at,
            id: self.id.clone(),
        }
    }

    /// What moved the money, read from the account, the sign and the transaction (see
    /// `ledger::reserve` and `ledger::settle`: the only entries a transfer gets).
    pub fn movement(&self) -> Movement {
        let Some(source) = &self.source else {
            return Movement::Credit;
        };
        match (source.kind, self.account, self.amount < 0) {
            (Kind::Collection, _, _) => Movement::Collection,
            (Kind::Transfer, Account::Available, true) | (Kind::Transfer, Account::Reserved, false) => {
                Movement::TransferReservation
            }
            (Kind::Transfer, Account::Available, false) => Movement::TransferRelease,
            // Money leaves `reserved` only when the transfer is final: paid when it succeeded.
            (Kind::Transfer, Account::Reserved, true) => match source.status {
                Status::Successful => Movement::TransferPayout,
                Status::Failed | Status::Pending => Movement::TransferRelease,
            },
            // The gateway's accounts never reach a statement; should one, it is the
            // operator's side of the transfer.
            (Kind::Transfer, Account::OperatorClearing | Account::FeeRevenue, _) => Movement::TransferPayout,
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
            amount,
            source: kind.map(|(kind, status)| PostingSource {
                reference: "AB12CD34EF".into(),
                transaction_id: "order-1".into(),
                kind,
                operator: OperatorCode::Alpha,
                status,
            }),
        }
    }

    #[test]
    fn each_line_carries_both_balances_after_its_posting_from_the_opening() {
        let transfer = Some((Kind::Transfer, Status::Failed));
        let lines = statement_lines(PostingPage {
            opening: Balance {
                available: 5_000,
                reserved: 100,
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
            .map(|l| (l.balance.available, l.balance.reserved))
            .collect();
        assert_eq!(
            balances,
            [(3_990, 100), (3_990, 1_110), (3_990, 100), (5_000, 100), (6_470, 100)]
        );
        let movements: Vec<&str> = lines.iter().map(|l| l.posting.movement().as_str()).collect();
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
    fn a_paid_transfer_and_an_outside_credit_are_named_as_such() {
        let paid = posting(
            "p",
            Account::Reserved,
            -1_010,
            Some((Kind::Transfer, Status::Successful)),
        );
        assert_eq!(paid.movement(), Movement::TransferPayout);
        assert_eq!(posting("c", Account::Available, 10, None).movement(), Movement::Credit);
        assert!(statement_lines(PostingPage {
            opening: Balance {
                available: 1,
                reserved: 0
            },
            postings: vec![]
        })
        .is_empty());
    }
}
