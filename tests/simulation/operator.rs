//! The scripted operators: connectors behind the gateway's own `Operator` trait, one per
//! protocol the fallback routes mix (MoMo's request-to-pay and transfer, PayDunya's token, then
//! submission), whose every call waits for the scheduler to answer it, time it out, reset it
//! after it took effect, or refuse it before it did. The operators keep their own books of what
//! they were asked and what they moved, which the invariants read.

use std::sync::{Arc, Mutex, MutexGuard};

use async_trait::async_trait;
use momo_gateway::domain::{Kind, Timestamp, Transaction};
use momo_gateway::operator::{
    CallbackRejected, CallbackRequest, Operator, OperatorAnswer, OperatorError, OperatorRequest, RefundOf,
};
use tokio::sync::{oneshot, Notify};

use super::books::{Held, Reply, State};

/// The actor of a call made outside every actor: the status check a callback starts on a task
/// of the gateway's own.
pub const DETACHED: usize = usize::MAX;

tokio::task_local! {
    /// The actor a task is, for the trace.
    pub static ACTOR: usize;
}

/// The protocols the simulated routes are made of, named as routes name them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Protocol {
    /// One call to move money, keyed by our key (`X-Reference-Id`); no cancellation.
    Momo,
    /// A token first (an invoice, a disbursement), then its submission; keyed by the token. A
    /// collection's submission needs the payer's one-time code (SOFTPAY).
    Paydunya,
}

impl Protocol {
    pub fn name(self) -> &'static str {
        match self {
            Protocol::Momo => "momo-openapi",
            Protocol::Paydunya => "paydunya",
        }
    }

    /// How many operator timeouts one call may last: MoMo's money call asks a token, the
    /// request, a new token after a 401 and the request again; its status lookup the same.
    pub fn timeouts(self, call: Call) -> u32 {
        match (self, call) {
            (Protocol::Momo, Call::Initiate | Call::Status) => 4,
            _ => 1,
        }
    }
}

/// What a held call asks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Call {
    Prepare,
    Initiate,
    Status,
    Cancel,
}

/// What the scheduler does with a held call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// The operator takes it and answers.
    Answer,
    /// Refused before anything was done (a refused connection): the gateway hears `Transient`.
    RefusedBefore,
    /// Lost before it reached the operator (a timeout): the gateway hears `Ambiguous`.
    LostBefore,
    /// Taken, then the answer is lost (a reset after the effect): the gateway hears `Ambiguous`.
    LostAfter,
}

/// The state, and the scheduler's wake-up when an actor parks or ends.
#[derive(Default)]
pub struct Sim {
    state: Mutex<State>,
    /// An actor parked or ended.
    pub changed: Notify,
    /// A held call was answered or dropped.
    pub resolved: Notify,
}

impl Sim {
    pub fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The simulated payment a number stands for: its last two digits.
pub fn payment_of(phone_last_two: &str) -> usize {
    phone_last_two.parse().unwrap_or(usize::MAX)
}

/// A connector of one protocol, every call of which waits for the scheduler.
pub struct Scripted {
    pub protocol: Protocol,
    pub sim: Arc<Sim>,
}

/// What a call is about, as the scripted connector holds it.
struct Ask<'a> {
    call: Call,
    payment: usize,
    kind: Kind,
    reference: &'a str,
    key: Option<String>,
    with_code: bool,
}

impl Scripted {
    async fn hold(&self, ask: Ask<'_>) -> Result<Reply, OperatorError> {
        let (reply, answer) = oneshot::channel();
        {
            let mut s = self.sim.lock();
            let budget = i64::from(self.protocol.timeouts(ask.call)) * s.timeout_ms;
            let held = Held {
                actor: ACTOR.try_with(|a| *a).unwrap_or(DETACHED),
                protocol: self.protocol,
                call: ask.call,
                payment: ask.payment,
                kind: ask.kind,
                reference: ask.reference.to_owned(),
                key: ask.key,
                with_code: ask.with_code,
                deadline: Timestamp(s.now.millis() + budget),
                reply,
            };
            s.hold(held);
        }
        self.sim.changed.notify_one();
        answer
            .await
            .unwrap_or_else(|_| Err(OperatorError::Ambiguous("the call was dropped".into())))
    }

    fn key_of(&self, operator_reference: &str, token: Option<&str>) -> Option<String> {
        match self.protocol {
            Protocol::Momo => Some(operator_reference.to_owned()),
            Protocol::Paydunya => token.map(str::to_owned),
        }
    }

    async fn money(&self, r: &OperatorRequest<'_>) -> Result<OperatorAnswer, OperatorError> {
        let ask = Ask {
            call: Call::Initiate,
            payment: payment_of(r.phone.last_two_digits()),
            kind: r.kind(),
            reference: r.reference,
            key: self.key_of(r.operator_reference, r.token),
            with_code: r.otp_code().is_some(),
        };
        match self.hold(ask).await? {
            Reply::Answer(a) => Ok(a),
            _ => Ok(OperatorAnswer::Pending),
        }
    }

    async fn lookup(&self, t: &Transaction) -> Result<OperatorAnswer, OperatorError> {
        let key = self.key_of(&t.id, t.carrier.token.as_deref());
        if key.is_none() {
            // PayDunya without a recorded token: nothing was ever asked to move money.
            return Ok(OperatorAnswer::NotReceived);
        }
        let ask = Ask {
            call: Call::Status,
            payment: payment_of(t.phone.last_two_digits()),
            kind: t.kind(),
            reference: &t.reference,
            key,
            with_code: false,
        };
        match self.hold(ask).await? {
            Reply::Answer(a) => Ok(a),
            _ => Ok(OperatorAnswer::Pending),
        }
    }
}

#[async_trait]
impl Operator for Scripted {
    async fn prepare(&self, r: &OperatorRequest<'_>) -> Result<Option<String>, OperatorError> {
        if self.protocol != Protocol::Paydunya {
            return Ok(None);
        }
        let ask = Ask {
            call: Call::Prepare,
            payment: payment_of(r.phone.last_two_digits()),
            kind: r.kind(),
            reference: r.reference,
            key: None,
            with_code: false,
        };
        match self.hold(ask).await? {
            Reply::Token(token) => Ok(Some(token)),
            _ => Err(OperatorError::Ambiguous("no token in the answer".into())),
        }
    }

    fn prepares(&self) -> bool {
        self.protocol == Protocol::Paydunya
    }

    async fn collect(&self, r: &OperatorRequest<'_>) -> Result<OperatorAnswer, OperatorError> {
        self.money(r).await
    }

    async fn transfer(&self, r: &OperatorRequest<'_>) -> Result<OperatorAnswer, OperatorError> {
        self.money(r).await
    }

    async fn refund(
        &self,
        r: &OperatorRequest<'_>,
        _collection: RefundOf<'_>,
    ) -> Result<OperatorAnswer, OperatorError> {
        self.money(r).await
    }

    async fn refund_status(&self, t: &Transaction, _now: Timestamp) -> Result<OperatorAnswer, OperatorError> {
        self.lookup(t).await
    }

    async fn cancel(&self, t: &Transaction) -> Result<(), OperatorError> {
        let ask = Ask {
            call: Call::Cancel,
            payment: payment_of(t.phone.last_two_digits()),
            kind: t.kind(),
            reference: &t.reference,
            key: self.key_of(&t.id, t.carrier.token.as_deref()),
            with_code: false,
        };
        self.hold(ask).await.map(|_| ())
    }

    async fn collection_status(&self, t: &Transaction, _now: Timestamp) -> Result<OperatorAnswer, OperatorError> {
        self.lookup(t).await
    }

    async fn transfer_status(&self, t: &Transaction, _now: Timestamp) -> Result<OperatorAnswer, OperatorError> {
        self.lookup(t).await
    }

    fn needs_code(&self, _operator: momo_gateway::domain::OperatorCode) -> bool {
        self.protocol == Protocol::Paydunya
    }

    /// MoMo gives a collection back (keyed by the refund's own key); PayDunya has no call for it.
    fn refunds(&self) -> bool {
        self.protocol == Protocol::Momo
    }

    fn refunds_in_part(&self) -> bool {
        false
    }

    fn verify_callback(&self, request: &CallbackRequest<'_>) -> Result<String, CallbackRejected> {
        if request.token != Some(self.protocol.name()) {
            return Err(CallbackRejected::Unauthenticated("another connector's callback".into()));
        }
        String::from_utf8(request.body.to_vec()).map_err(|_| CallbackRejected::Malformed("not UTF-8".into()))
    }

    fn callback(&self, _transaction: &Transaction, _now: Timestamp) -> Option<OperatorAnswer> {
        None
    }
}
