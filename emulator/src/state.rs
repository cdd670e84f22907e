//! The emulator's memory: every payment it received (whatever the protocol), how many times each
//! initiation arrived and was executed, the access tokens it issued, the fault rules in force and
//! the callbacks it made. Behind one `Mutex`, never held across an `.await`. A payment's status
//! is computed from the clock when asked, so a status lookup and a callback always agree.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::time::Instant;

use serde::Serialize;
use serde_json::Value;
use time::OffsetDateTime;

use super::faults::{CallbackFaults, FaultRule};

/// The kinds of payment, one per initiation endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Flow {
    /// MoMo `requesttopay`.
    Collection,
    /// MoMo `transfer`.
    Transfer,
    /// MoMo `refund` of a request to pay.
    Refund,
    /// Wave checkout session.
    Checkout,
    /// Wave payout.
    Payout,
    /// Wave refund of a checkout session.
    CheckoutRefund,
    /// PayDunya checkout invoice, paid by SOFTPAY.
    Invoice,
    /// PayDunya disbursement.
    Disburse,
}

impl Flow {
    pub fn name(self) -> &'static str {
        match self {
            Flow::Collection => "collection",
            Flow::Transfer => "transfer",
            Flow::Refund => "refund",
            Flow::Checkout => "checkout",
            Flow::Payout => "payout",
            Flow::CheckoutRefund => "checkout_refund",
            Flow::Invoice => "invoice",
            Flow::Disburse => "disburse",
        }
    }

    pub fn protocol(self) -> &'static str {
        match self {
            Flow::Collection | Flow::Transfer | Flow::Refund => "momo-openapi",
            Flow::Checkout | Flow::Payout | Flow::CheckoutRefund => "wave-checkout",
            Flow::Invoice | Flow::Disburse => "paydunya",
        }
    }
}

/// Where a payment is heading.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    Succeeded,
    /// `code` in the protocol's own vocabulary (`APPROVAL_REJECTED`, `insufficient-funds`, …).
    Failed {
        code: String,
        message: String,
    },
    /// Stays pending.
    Pending,
}

/// When and how a payment resolves. `generation` changes whenever the plan is replaced (a forced
/// settlement, the payer acting on the launch page) so that stale callbacks are not sent.
#[derive(Debug, Clone)]
pub struct Resolution {
    pub outcome: Outcome,
    /// When the outcome becomes visible; `None`: never.
    pub at: Option<Instant>,
    pub notify: bool,
    pub generation: u64,
}

/// Where a payment stands at some instant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Phase {
    Pending,
    Succeeded {
        at: Instant,
    },
    Failed {
        at: Instant,
        code: String,
        message: String,
    },
    /// A Wave checkout session that expired (on its own or through `expire`) unpaid.
    Expired {
        at: Instant,
    },
}

/// One payment the emulator received.
#[derive(Debug, Clone)]
pub struct Payment {
    /// MoMo: the `X-Reference-Id`; Wave: the `cos-…` or `pt-…` id.
    pub id: String,
    /// The initiation key counted by `/_emulator/initiations`: MoMo's `X-Reference-Id`, Wave's
    /// `idempotency-key`, else a checkout's `client_reference`, else its id.
    pub key: String,
    pub flow: Flow,
    /// The payer or payee phone number as sent.
    pub party: Option<String>,
    pub amount: String,
    pub currency: String,
    /// The initiation body as received, echoed in status answers.
    pub request: Value,
    pub created: Instant,
    pub created_at: OffsetDateTime,
    pub resolution: Resolution,
    pub callback: CallbackFaults,
    /// MoMo's `X-Callback-Url`.
    pub callback_url: Option<String>,
    /// A checkout's `when_expires`, or the moment `expire` was called if earlier.
    pub expires: Option<Instant>,
    /// MoMo's `financialTransactionId` or Wave's `transaction_id`, shown once settled.
    pub transaction_id: String,
    /// A Wave payout refused outright (422), not visible through `GET /v1/payout/:id`.
    pub refused: bool,
    /// What its protocol calls back about it once settled.
    pub calls_back: crate::callbacks::CallsBack,
}

impl Payment {
    /// The wall-clock time of `at`.
    pub fn wall(&self, at: Instant) -> OffsetDateTime {
        self.created_at + at.saturating_duration_since(self.created)
    }

    /// Where the payment stands at `now`.
    pub fn phase(&self, now: Instant) -> Phase {
        let settled = self.resolution.at.filter(|at| *at <= now);
        if let (Some(at), Outcome::Succeeded) = (settled, &self.resolution.outcome) {
            if self.expires.is_none_or(|expires| at < expires) {
                return Phase::Succeeded { at };
            }
        }
        if let Some(expires) = self.expires.filter(|expires| *expires <= now) {
            return Phase::Expired { at: expires };
        }
        match (settled, &self.resolution.outcome) {
            (Some(at), Outcome::Failed { code, message }) => Phase::Failed {
                at,
                code: code.clone(),
                message: message.clone(),
            },
            _ => Phase::Pending,
        }
    }
}

/// How many times an initiation arrived, and how many times the emulator acted on it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Initiation {
    pub received: u32,
    pub executed: u32,
}

/// One callback or webhook the emulator made (or did not make, when a fault dropped it).
#[derive(Debug, Clone, Serialize)]
pub struct CallbackRecord {
    pub payment: String,
    pub method: String,
    pub url: String,
    pub body: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signature: Option<String>,
    /// The receiver's HTTP status, when it answered.
    pub status: Option<u16>,
    pub error: Option<String>,
    pub at: String,
}

/// How many callbacks are remembered.
const CALLBACK_LOG: usize = 10_000;

/// Everything the emulator remembers.
#[derive(Debug, Default)]
pub struct State {
    payments: Vec<Payment>,
    by_id: HashMap<String, usize>,
    by_key: HashMap<(Flow, String), usize>,
    initiations: BTreeMap<String, Initiation>,
    tokens: HashMap<String, (&'static str, Instant)>,
    pub rules: Vec<FaultRule>,
    callbacks: VecDeque<CallbackRecord>,
    /// The callbacks scheduled and not yet made (or found stale), by serial: when each is due.
    scheduled: HashMap<u64, Instant>,
    next_serial: u64,
}

impl State {
    /// Counts an initiation carrying `key`.
    pub fn received(&mut self, key: &str) {
        self.initiations.entry(key.to_string()).or_default().received += 1;
    }

    /// Records a new payment, counting its initiation as executed.
    pub fn insert(&mut self, payment: Payment) {
        self.executed(&payment.key);
        self.insert_prepared(payment);
    }

    /// Counts an initiation carrying `key` as executed.
    pub fn executed(&mut self, key: &str) {
        self.initiations.entry(key.to_string()).or_default().executed += 1;
    }

    /// Records a payment not yet asked to move money (a PayDunya invoice or disbursement
    /// before its SOFTPAY or submission): no initiation is counted.
    pub fn insert_prepared(&mut self, payment: Payment) {
        let index = self.payments.len();
        self.by_id.insert(payment.id.clone(), index);
        self.by_key.entry((payment.flow, payment.key.clone())).or_insert(index);
        self.payments.push(payment);
    }

    pub fn initiation(&self, key: &str) -> Option<&Initiation> {
        self.initiations.get(key)
    }

    pub fn initiations(&self) -> &BTreeMap<String, Initiation> {
        &self.initiations
    }

    /// The payment with this id.
    pub fn get(&self, id: &str) -> Option<&Payment> {
        self.by_id.get(id).map(|&index| &self.payments[index])
    }

    pub fn get_mut(&mut self, id: &str) -> Option<&mut Payment> {
        self.by_id.get(id).map(|&index| &mut self.payments[index])
    }

    /// The first payment of `flow` initiated with `key`.
    pub fn by_key(&self, flow: Flow, key: &str) -> Option<&Payment> {
        self.by_key
            .get(&(flow, key.to_string()))
            .map(|&index| &self.payments[index])
    }

    /// The payment an admin call names: by id, else by initiation key.
    pub fn find(&self, reference: &str) -> Option<&Payment> {
        self.get(reference)
            .or_else(|| self.payments.iter().find(|p| p.key == reference))
    }

    pub fn payments(&self) -> &[Payment] {
        &self.payments
    }

    /// Remembers an access token for `product` until `expires`, forgetting those run out by `now`.
    pub fn issue_token(&mut self, token: String, product: &'static str, now: Instant, expires: Instant) {
        self.tokens.retain(|_, (_, until)| *until > now);
        self.tokens.insert(token, (product, expires));
    }

    /// Whether `token` is a live token of `product`.
    pub fn token_valid(&self, token: &str, product: &str, now: Instant) -> bool {
        matches!(self.tokens.get(token), Some((p, until)) if *p == product && *until > now)
    }

    pub fn log_callback(&mut self, record: CallbackRecord) {
        if self.callbacks.len() >= CALLBACK_LOG {
            self.callbacks.pop_front();
        }
        self.callbacks.push_back(record);
    }

    pub fn callbacks(&self) -> impl Iterator<Item = &CallbackRecord> {
        self.callbacks.iter()
    }

    /// Counts a callback due at `due` as scheduled; its serial, for [`State::unschedule`].
    pub fn schedule(&mut self, due: Instant) -> u64 {
        self.next_serial += 1;
        self.scheduled.insert(self.next_serial, due);
        self.next_serial
    }

    /// The callback `serial` was made (or dropped, or found stale).
    pub fn unschedule(&mut self, serial: u64) {
        self.scheduled.remove(&serial);
    }

    /// How many scheduled callbacks are due by `now` and not yet made.
    pub fn callbacks_due(&self, now: Instant) -> usize {
        self.scheduled.values().filter(|due| **due <= now).count()
    }
}
