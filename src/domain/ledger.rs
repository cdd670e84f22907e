//! The double-entry ledger of each merchant environment.
//!
//! Every entry is a set of postings that sums to zero. The merchant's money sits in
//! `available` and, while a transfer is in flight, `reserved`; `operator_clearing` is the money
//! on the operators' side and `fee_revenue` the gateway's fees.

use std::time::Duration;

use super::fees::Amounts;
use super::money::Francs;
use super::purpose::Kind;
use super::time::Timestamp;
use super::transaction::Status;

/// How long after its time a posting or a transition may still commit. Times are stamped
/// before the write is queued to the batch writer, so with several writers (PostgreSQL, lock
/// waits) a posting dated 100 can commit after one dated 102. A queued write commits or fails
/// in milliseconds, seconds under lock waits; 60 s is past the request timeout
/// (MOMO_HTTP_REQUEST_TIMEOUT_MS, 30 s by default) within which the API expects it to. Nothing
/// bounds it harder: a deployment that raises that timeout past a minute should raise this.
/// Reports treat what is older than this as final (docs/reports.md).
pub const SETTLE_LAG: Duration = Duration::from_secs(60);

/// The horizon at `now`: postings and transitions dated before it have all committed.
pub fn settled_before(now: Timestamp) -> Timestamp {
    now.minus(SETTLE_LAG)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Account {
    Available,
    Reserved,
    OperatorClearing,
    FeeRevenue,
}

impl Account {
    pub fn as_str(self) -> &'static str {
        match self {
            Account::Available => "available",
            Account::Reserved => "reserved",
            Account::OperatorClearing => "operator_clearing",
            Account::FeeRevenue => "fee_revenue",
        }
    }
}

/// One line of an entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Posting {
    pub account: Account,
    pub amount: Francs,
}

fn post(account: Account, amount: Francs) -> Posting {
    Posting { account, amount }
}

/// Money put into an environment from outside (Sandbox opening credit, Production top-up).
pub fn credit(amount: Francs) -> Vec<Posting> {
    vec![
        post(Account::Available, amount),
        post(Account::OperatorClearing, -amount),
    ]
}

/// A transfer or a refund holds its total while in flight.
pub fn reserve(amounts: &Amounts) -> Vec<Posting> {
    vec![
        post(Account::Available, -amounts.amount_total),
        post(Account::Reserved, amounts.amount_total),
    ]
}

/// The entry of a transaction reaching its final `status`.
/// Money in (a collection) reaches the available balance on success; money out (a transfer, a
/// refund: [`Kind::pays_out`]) leaves its reservation, paid on success or released on failure.
pub fn settle(kind: Kind, amounts: &Amounts, status: Status) -> Vec<Posting> {
    match (kind.pays_out(), status) {
        (false, Status::Successful) => vec![
            post(Account::OperatorClearing, -amounts.amount_total),
            post(Account::Available, amounts.amount_receive),
            post(Account::FeeRevenue, amounts.fees),
        ],
        (true, Status::Successful) => vec![
            post(Account::Reserved, -amounts.amount_total),
            post(Account::OperatorClearing, amounts.amount_receive),
            post(Account::FeeRevenue, amounts.fees),
        ],
        (true, Status::Failed) => {
            vec![
                post(Account::Reserved, -amounts.amount_total),
                post(Account::Available, amounts.amount_total),
            ]
        }
        (false, Status::Failed) | (_, Status::Pending) => Vec::new(),
    }
}

/// What an entry changes in the merchant's balance: (available, reserved).
pub fn balance_delta(postings: &[Posting]) -> (Francs, Francs) {
    postings
        .iter()
        .fold((Francs::ZERO, Francs::ZERO), |(available, reserved), p| {
            match p.account {
                Account::Available => (available + p.amount, reserved),
                Account::Reserved => (available, reserved + p.amount),
                Account::OperatorClearing | Account::FeeRevenue => (available, reserved),
            }
        })
}

/// Whether an entry only adds to the available balance: it can never overdraw, so it needs
/// no lock on the balance.
pub fn only_credits(postings: &[Posting]) -> bool {
    let (available, reserved) = balance_delta(postings);
    available.is_positive() && reserved == Francs::ZERO
}

/// Whether an entry can take the available balance down (a reservation, a debit).
pub fn may_debit_available(postings: &[Posting]) -> bool {
    balance_delta(postings).0.is_negative()
}

/// Whether an entry can take the available or the reserved balance down.
pub fn may_debit(postings: &[Posting]) -> bool {
    let (available, reserved) = balance_delta(postings);
    available.is_negative() || reserved.is_negative()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::amount::Amount;
    use crate::domain::fees::FeeSchedule;
    use crate::domain::operator::OperatorCode;
    use proptest::prelude::*;

    fn sum(p: &[Posting]) -> Francs {
        p.iter().map(|p| p.amount).sum()
    }

    #[derive(Debug, Clone)]
    enum Step {
        Collect(i64, bool),
        Transfer(i64, Option<bool>),
    }

    fn step() -> impl Strategy<Value = Step> {
        prop_oneof![
            (100i64..=1_000_000, any::<bool>()).prop_map(|(a, ok)| Step::Collect(a, ok)),
            (100i64..=1_000_000, prop::option::of(any::<bool>())).prop_map(|(a, ok)| Step::Transfer(a, ok)),
        ]
    }

    proptest! {
        /// Random creations and outcomes, applied as the store applies them (a transfer is
        /// refused when the available balance is short): no balance ever goes negative and
        /// every entry sums to zero.
        #[test]
        fn balances_never_go_negative_and_entries_sum_to_zero(opening in 0i64..2_000_000, steps in prop::collection::vec(step(), 1..40)) {
            let fees = FeeSchedule::default();
            let mut all: Vec<Posting> = credit(Francs(opening));
            let (mut available, mut reserved) = balance_delta(&all);
            let mut in_flight: Vec<Amounts> = Vec::new();
            for s in steps {
                let entry = match s {
                    Step::Collect(a, ok) => {
                        let amounts = fees.amounts(OperatorCode::Alpha, Kind::Collection, Amount::from_francs(a).unwrap());
                        settle(Kind::Collection, &amounts, if ok { Status::Successful } else { Status::Failed })
                    }
                    Step::Transfer(a, outcome) => {
                        let amounts = fees.amounts(OperatorCode::Beta, Kind::Transfer, Amount::from_francs(a).unwrap());
                        if amounts.amount_total > available {
                            continue;
                        }
                        let mut entry = reserve(&amounts);
                        match outcome {
                            Some(true) => entry.extend(settle(Kind::Transfer, &amounts, Status::Successful)),
                            Some(false) => entry.extend(settle(Kind::Transfer, &amounts, Status::Failed)),
                            None => in_flight.push(amounts),
                        }
                        entry
                    }
                };
                prop_assert_eq!(sum(&entry), Francs::ZERO);
                let (da, dr) = balance_delta(&entry);
                available += da;
                reserved += dr;
                prop_assert!(!available.is_negative() && !reserved.is_negative());
                all.extend(entry);
            }
            prop_assert_eq!(sum(&all), Francs::ZERO);
            prop_assert_eq!(reserved, in_flight.iter().map(|a| a.amount_total).sum::<Francs>());
        }
    }
}

/// A merchant environment's balance.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Balance {
    pub available: Francs,
    pub reserved: Francs,
}
