//! The operators' books and the calls they hold: what each operator was asked and what it
//! moved, keyed as its protocol keys a payment, and how a held call is answered, timed out,
//! refused or dropped by a crash.

use std::collections::BTreeMap;

use momo_gateway::domain::{FailureCode, Kind, Timestamp};
use momo_gateway::operator::{OperatorAnswer, OperatorError};
use tokio::sync::oneshot;

use super::operator::{Call, Fault, Protocol};

/// An answer the operator holds back until the scheduler releases it.
pub enum Reply {
    Token(String),
    Answer(OperatorAnswer),
    Done,
}
/// An operator call waiting for the scheduler.
pub struct Held {
    pub actor: usize,
    pub protocol: Protocol,
    pub call: Call,
    /// The simulated payment it is about (the last two digits of its number).
    pub payment: usize,
    pub kind: Kind,
    /// Our service reference, which the operator's callbacks carry.
    pub reference: String,
    /// Its key at the operator: ours for MoMo, the token for PayDunya.
    pub key: Option<String>,
    pub with_code: bool,
    /// When the gateway stops waiting for it.
    pub deadline: Timestamp,
    pub(super) reply: oneshot::Sender<Result<Reply, OperatorError>>,
}

impl Held {
    pub fn describe(&self) -> String {
        let key = self.key.as_deref().unwrap_or("-");
        format!(
            "actor {} {}.{:?}(p{} {} key {key})",
            self.actor,
            self.protocol.name(),
            self.call,
            self.payment,
            self.kind.as_str()
        )
    }
}

/// Where a payment stands in an operator's books.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fate {
    Open,
    Paid,
    Refused,
}

/// One payment as one operator knows it, under one key.
#[derive(Debug, Clone)]
pub struct Entry {
    pub payment: usize,
    pub kind: Kind,
    pub reference: String,
    /// PayDunya: the token's submission arrived; MoMo: always.
    pub submitted: bool,
    pub fate: Fate,
}

/// The operators' side of the world and the scheduler's view of the actors.
pub struct State {
    /// The simulation's clock.
    pub now: Timestamp,
    /// The operator timeout the gateway is configured with, in ms.
    pub timeout_ms: i64,
    /// Actor tasks running or parked, and those parked on a held call.
    pub alive: usize,
    pub parked: usize,
    /// Crashes so far: an actor counts itself out only in the process it started in.
    pub generation: u64,
    /// Ordered by actor.
    pub held: Vec<Held>,
    pub(super) next_token: u64,
    /// By protocol and key.
    pub books: BTreeMap<(Protocol, String), Entry>,
    /// Callbacks the operators have to make: the payment's protocol, number and reference.
    pub callbacks: Vec<(Protocol, usize, String)>,
    pub trace: Vec<String>,
    /// What the operators saw that must never happen: two sends of one payment at once.
    pub seen: Vec<String>,
    /// Seed start, for the trace's times.
    pub start: Timestamp,
}

impl Default for State {
    fn default() -> State {
        State {
            now: Timestamp(0),
            timeout_ms: 0,
            alive: 0,
            parked: 0,
            generation: 0,
            held: Vec::new(),
            next_token: 0,
            books: BTreeMap::new(),
            callbacks: Vec::new(),
            trace: Vec::new(),
            seen: Vec::new(),
            start: Timestamp(0),
        }
    }
}

impl State {
    pub fn log(&mut self, line: String) {
        let at = self.now.millis() - self.start.millis();
        self.trace.push(format!("{:>9}ms {line}", at));
    }

    /// Operator entries of payment `p` of `kind` (a collection and its refund share a number)
    /// that moved money.
    pub fn paid(&self, p: usize, kind: Kind) -> usize {
        self.books
            .values()
            .filter(|e| e.payment == p && e.kind == kind && e.fate == Fate::Paid)
            .count()
    }

    /// Whether an operator decided payment `p` of `kind` (paid or refused it).
    pub fn decided(&self, p: usize, kind: Kind) -> bool {
        self.books
            .values()
            .any(|e| e.payment == p && e.kind == kind && e.submitted && e.fate != Fate::Open)
    }

    /// Each payment the operators know, once.
    pub fn known(&self) -> Vec<(usize, Kind)> {
        let mut known: Vec<(usize, Kind)> = Vec::new();
        for e in self.books.values() {
            if !known.contains(&(e.payment, e.kind)) {
                known.push((e.payment, e.kind));
            }
        }
        known
    }

    /// Entries a payer or the operator may still decide.
    pub fn open_entries(&self) -> Vec<(Protocol, String)> {
        self.books
            .iter()
            .filter(|(_, e)| e.submitted && e.fate == Fate::Open)
            .map(|(k, _)| k.clone())
            .collect()
    }

    /// The operator decides an open entry: paid or refused, with a callback to make.
    pub fn decide(&mut self, key: &(Protocol, String), pay: bool) {
        let Some(entry) = self.books.get_mut(key) else { return };
        entry.fate = if pay { Fate::Paid } else { Fate::Refused };
        let (payment, reference) = (entry.payment, entry.reference.clone());
        self.callbacks.push((key.0, payment, reference));
        self.log(format!(
            "operator {} {} p{payment} (key {})",
            key.0.name(),
            if pay { "PAID" } else { "refused" },
            key.1
        ));
    }

    /// Holds `held` until the scheduler answers it, in actor order (each actor holds one call
    /// at most: which of two running actors parks first is the machine's doing, and the seed's
    /// picks must not depend on it). A send while another send of the same payment is held is
    /// noted: two senders at once are what moves money twice.
    pub fn hold(&mut self, held: Held) {
        let sends = |call: Call| matches!(call, Call::Prepare | Call::Initiate);
        if sends(held.call) {
            let same = |h: &&Held| h.payment == held.payment && h.kind == held.kind && sends(h.call);
            if let Some(other) = self.held.iter().find(same) {
                let line = format!(
                    "p{} sent twice at once: {} while {}",
                    held.payment,
                    held.describe(),
                    other.describe()
                );
                self.seen.push(line);
            }
        }
        self.parked += 1;
        let at = self.held.partition_point(|h| h.actor < held.actor);
        self.held.insert(at, held);
    }

    /// Answers held call `at` as `fault` says.
    pub fn resolve(&mut self, at: usize, fault: Fault) {
        let held = self.held.remove(at);
        self.parked -= 1;
        let effect = matches!(fault, Fault::Answer | Fault::LostAfter);
        let answer = if effect { self.apply(&held) } else { Ok(Reply::Done) };
        let heard = match fault {
            Fault::Answer => answer,
            Fault::RefusedBefore => Err(OperatorError::Transient("connection refused (simulated)".into())),
            Fault::LostBefore | Fault::LostAfter => Err(OperatorError::Ambiguous("timed out (simulated)".into())),
        };
        let shown = match &heard {
            Ok(Reply::Token(t)) => format!("token {t}"),
            Ok(Reply::Answer(a)) => format!("{a:?}"),
            Ok(Reply::Done) => "done".into(),
            Err(e) => format!("{e}"),
        };
        self.log(format!("{} {fault:?} -> {shown}", held.describe()));
        let _ = held.reply.send(heard);
    }

    /// A crash: every held call is dropped with its caller; each reached the operator or not.
    pub fn crash(&mut self, reached: impl Fn(usize) -> bool) {
        let held: Vec<Held> = std::mem::take(&mut self.held);
        for (i, h) in held.into_iter().enumerate() {
            let took = reached(i);
            if took {
                let _ = self.apply(&h);
            }
            self.log(format!(
                "{} dropped by the crash, reached the operator: {took}",
                h.describe()
            ));
        }
        self.alive = 0;
        self.parked = 0;
        self.generation += 1;
    }

    /// What the operator does with `held`.
    fn apply(&mut self, held: &Held) -> Result<Reply, OperatorError> {
        let refused = |reason: &str| OperatorError::Rejected {
            code: FailureCode::OperatorRefused,
            reason: reason.into(),
        };
        match held.call {
            Call::Prepare => {
                self.next_token += 1;
                let token = format!("pd-{}", self.next_token);
                let entry = Entry {
                    payment: held.payment,
                    kind: held.kind,
                    reference: held.reference.clone(),
                    submitted: false,
                    fate: Fate::Open,
                };
                self.books.insert((held.protocol, token.clone()), entry);
                Ok(Reply::Token(token))
            }
            Call::Initiate => {
                let Some(key) = held.key.clone() else {
                    return Err(refused("no token"));
                };
                let entry = match held.protocol {
                    Protocol::Momo => self.books.entry((held.protocol, key)).or_insert(Entry {
                        payment: held.payment,
                        kind: held.kind,
                        reference: held.reference.clone(),
                        submitted: true,
                        fate: Fate::Open,
                    }),
                    Protocol::Paydunya => {
                        let Some(entry) = self.books.get_mut(&(held.protocol, key)) else {
                            return Err(refused("unknown token"));
                        };
                        if !entry.submitted && entry.kind == Kind::Collection && !held.with_code {
                            return Err(refused("SOFTPAY needs the payer's one-time code"));
                        }
                        entry.submitted = true;
                        entry
                    }
                };
                Ok(Reply::Answer(answer_of(entry)))
            }
            Call::Status => Ok(Reply::Answer(
                match held
                    .key
                    .as_ref()
                    .and_then(|k| self.books.get(&(held.protocol, k.clone())))
                {
                    Some(entry) if entry.submitted => answer_of(entry),
                    _ => OperatorAnswer::NotReceived,
                },
            )),
            Call::Cancel => {
                let key = held.key.clone().unwrap_or_default();
                match self.books.get_mut(&(held.protocol, key)) {
                    Some(entry) if entry.fate == Fate::Paid => {
                        Err(OperatorError::Ambiguous("already paid: cannot cancel".into()))
                    }
                    Some(entry) => {
                        entry.fate = Fate::Refused;
                        Ok(Reply::Done)
                    }
                    None => Ok(Reply::Done),
                }
            }
        }
    }
}

/// How the trace and the invariants name payment `p` of `kind`: `p0`, or `r0` for its refund.
pub fn name(p: usize, kind: Kind) -> String {
    match kind {
        Kind::Refund => format!("r{p}"),
        _ => format!("p{p}"),
    }
}

fn answer_of(entry: &Entry) -> OperatorAnswer {
    match entry.fate {
        Fate::Open => OperatorAnswer::Pending,
        Fate::Paid => OperatorAnswer::Succeeded,
        Fate::Refused => OperatorAnswer::Failed {
            code: FailureCode::PayerDeclined,
            reason: "refused (simulated)".into(),
        },
    }
}
