//! The operations of a random sequence, and how proptest draws them. Indices (`pick`) choose
//! among the payments existing when the operation runs, modulo their number, so a shrunk
//! sequence stays meaningful.

use momo_gateway::domain::{Kind, OperatorCode, Status};
use proptest::prelude::*;

use super::state::{Creation, Script};

#[derive(Debug, Clone)]
pub enum Op {
    /// A collection or a transfer whose number ends with the script's digits.
    Create(Creation),
    /// Creations sent together, so they share write batches; some reuse the id of the one
    /// before them.
    Burst(Vec<(Creation, Id)>),
    /// Worker passes and settlements racing each other at one instant.
    Race(Vec<Racer>),
    /// A creation reusing an existing payment's transaction id: refused, nothing changes.
    Duplicate { pick: usize },
    /// The model clock moves on.
    Advance { ms: i64 },
    /// One pass of the simulated operator callbacks.
    Callbacks,
    /// One pass of the reconciler.
    Reconcile,
    /// One pass of collection expiry.
    Expire,
    /// An operator top-up credited to `tenant`.
    TopUp { tenant: usize, amount: i64 },
    /// An administrator settles a payment by hand.
    Resolve { pick: usize, status: Status },
    /// The payer answers on a BETA collection's page.
    Payer { pick: usize, approve: bool },
    /// The gateway is closed and opened again on the same database.
    Restart,
}

/// Index of a case's merchant environments: merchant A's Sandbox and Production, merchant B's
/// Sandbox.
/// The merchant's transaction id of a creation in a burst.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Id {
    New,
    SameAsPrevious,
}

/// What may race in [`Op::Race`].
#[derive(Debug, Clone)]
pub enum Racer {
    Callbacks,
    Reconcile,
    Expire,
    Resolve { pick: usize, status: Status },
    Payer { pick: usize, approve: bool },
}

fn tenant() -> impl Strategy<Value = usize> {
    // Mostly merchant A's Sandbox, so payments meet each other there.
    prop_oneof![4 => Just(0usize), 1 => Just(1usize), 1 => Just(2usize)]
}

fn script() -> impl Strategy<Value = Script> {
    prop_oneof![
        Just(Script::SucceedAtOnce),
        Just(Script::SucceedLater),
        Just(Script::FailLater),
        Just(Script::FailAtOnce),
        Just(Script::SucceedWhenAsked),
        Just(Script::NeverResolve),
        Just(Script::Other),
    ]
}

fn operator() -> impl Strategy<Value = OperatorCode> {
    prop_oneof![
        Just(OperatorCode::Alpha),
        Just(OperatorCode::Beta),
        Just(OperatorCode::Gamma),
        Just(OperatorCode::Delta),
    ]
}

fn amount() -> impl Strategy<Value = i64> {
    // Small and large, with the limits: a case's opening balance is 300,000 francs, so large
    // transfers are refused until top-ups or collections come in.
    prop_oneof![
        3 => 100i64..=5_000,
        3 => 5_001i64..=150_000,
        1 => Just(100i64),
        1 => Just(1_000_000i64),
    ]
}

fn advance() -> impl Strategy<Value = i64> {
    // Around the simulator delay (2 s), the reconcile delay (1 s) and the lifetime (10 s).
    prop_oneof![2 => 1i64..=999, 2 => 1_000i64..=3_000, 1 => 4_000i64..=12_000]
}

fn creation() -> impl Strategy<Value = Creation> {
    let kind = prop_oneof![Just(Kind::Collection), Just(Kind::Transfer)];
    (tenant(), kind, operator(), script(), amount()).prop_map(|(tenant, kind, operator, script, amount)| Creation {
        tenant,
        kind,
        operator,
        script,
        amount,
    })
}

fn final_status() -> impl Strategy<Value = Status> {
    prop_oneof![Just(Status::Successful), Just(Status::Failed)]
}

fn racer() -> impl Strategy<Value = Racer> {
    prop_oneof![
        Just(Racer::Callbacks),
        Just(Racer::Reconcile),
        Just(Racer::Expire),
        (any::<usize>(), final_status()).prop_map(|(pick, status)| Racer::Resolve { pick, status }),
        (any::<usize>(), any::<bool>()).prop_map(|(pick, approve)| Racer::Payer { pick, approve }),
    ]
}

pub fn op() -> impl Strategy<Value = Op> {
    let id = prop_oneof![4 => Just(Id::New), 1 => Just(Id::SameAsPrevious)];
    prop_oneof![
        6 => creation().prop_map(Op::Create),
        2 => proptest::collection::vec((creation(), id), 2..=6).prop_map(Op::Burst),
        2 => proptest::collection::vec(racer(), 2..=4).prop_map(Op::Race),
        1 => any::<usize>().prop_map(|pick| Op::Duplicate { pick }),
        5 => advance().prop_map(|ms| Op::Advance { ms }),
        2 => Just(Op::Callbacks),
        2 => Just(Op::Reconcile),
        2 => Just(Op::Expire),
        1 => (tenant(), 1i64..=500_000).prop_map(|(tenant, amount)| Op::TopUp { tenant, amount }),
        2 => (any::<usize>(), final_status()).prop_map(|(pick, status)| Op::Resolve { pick, status }),
        1 => (any::<usize>(), any::<bool>()).prop_map(|(pick, approve)| Op::Payer { pick, approve }),
        1 => Just(Op::Restart),
    ]
}

/// A sequence as a failure message shows it: one numbered operation a line.
pub fn describe(ops: &[Op]) -> String {
    ops.iter()
        .enumerate()
        .map(|(i, op)| format!("  {i:>2}: {op:?}\n"))
        .collect()
}
