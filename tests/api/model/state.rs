//! The plain in-memory model: what DECISIONS §3 (fees, ledger) and §6 (the simulator's table,
//! `script.rs`) say each operation does, written without any of the gateway's code. Each method applies
//! one operation at the model's clock and says what the gateway must answer.

use momo_gateway::domain::{FailureCode, Kind, OperatorCode, Status, Timestamp};

pub use super::script::{Final, Script};

/// The settings the model and the gateway share (milliseconds).
#[derive(Debug, Clone, Copy)]
pub struct Settings {
    pub delay: i64,
    pub reconcile_after: i64,
    pub collection_ttl: i64,
}

/// The longest wait between two status checks (reconciler's module doc: "at most an hour").
const MAX_CHECK_INTERVAL: i64 = 3_600_000;

/// One merchant environment's ledger accounts. Every entry sums to zero, so they do too.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Accounts {
    pub available: i64,
    pub reserved: i64,
    pub operator_clearing: i64,
    pub fee_revenue: i64,
}

#[derive(Debug, Clone)]
pub struct Payment {
    pub tenant: usize,
    pub transaction_id: String,
    pub kind: Kind,
    pub operator: OperatorCode,
    pub script: Script,
    pub amount: i64,
    pub fees: i64,
    pub created_at: Timestamp,
    pub status: Status,
    pub failure: Option<FailureCode>,
    /// `None` while pending and for a payment final at creation.
    pub updated_at: Option<Timestamp>,
    /// When the reconciler may next ask the operator.
    pub next_check: Timestamp,
    /// Only Sandbox BETA collections have a payer's page.
    pub has_payer_page: bool,
}

impl Payment {
    /// Collection: the merchant gets `amount - fees`. Transfer: it pays `amount + fees`.
    pub fn total(&self) -> i64 {
        match self.kind {
            Kind::Collection => self.amount,
            Kind::Transfer | Kind::Refund => self.amount + self.fees,
        }
    }

    pub fn receive(&self) -> i64 {
        match self.kind {
            Kind::Collection => self.amount - self.fees,
            Kind::Transfer | Kind::Refund => self.amount,
        }
    }
}

/// A payment to create.
#[derive(Debug, Clone, Copy)]
pub struct Creation {
    pub tenant: usize,
    pub kind: Kind,
    pub operator: OperatorCode,
    pub script: Script,
    pub amount: i64,
}

/// What a creation must answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Created {
    /// Refused before anything was written.
    InsufficientFunds,
    /// Stored: the index of the new payment, in its state after the operator's answer.
    Stored(usize),
}

/// What a worker pass must report: (examined, settled).
pub type Pass = (usize, usize);

#[derive(Debug, Clone)]
pub struct Model {
    pub now: Timestamp,
    pub settings: Settings,
    pub tenants: Vec<Accounts>,
    pub payments: Vec<Payment>,
    next_id: u64,
}

/// Fees by operator and direction: collections 200 bp (BETA 150), transfers 100 bp (BETA 150),
/// rounded up to the franc (DECISIONS §3).
pub fn fee(operator: OperatorCode, kind: Kind, amount: i64) -> i64 {
    let bp = match (operator, kind) {
        (OperatorCode::Beta, _) => 150,
        (_, Kind::Collection) => 200,
        (_, Kind::Transfer) => 100,
        (_, Kind::Refund) => 0,
    };
    (amount * bp + 9_999) / 10_000
}

impl Model {
    /// Tenants with their opening balances, credited from the operators' side.
    pub fn new(now: Timestamp, settings: Settings, tenants: &[i64]) -> Model {
        let tenants = tenants
            .iter()
            .map(|&amount| Accounts {
                available: amount,
                operator_clearing: -amount,
                ..Accounts::default()
            })
            .collect();
        Model {
            now,
            settings,
            tenants,
            payments: Vec::new(),
            next_id: 0,
        }
    }

    /// The merchant's id of the next creation. A refused creation does not spend it.
    pub fn next_transaction_id(&self) -> String {
        format!("model-{}", self.next_id)
    }

    /// A creation as the gateway must answer it: a transfer beyond the available balance is
    /// refused and writes nothing (its id stays free).
    pub fn create(&mut self, new: &Creation, transaction_id: String) -> Created {
        let total = new.amount + fee(new.operator, new.kind, new.amount);
        if new.kind == Kind::Transfer && total > self.tenants[new.tenant].available {
            return Created::InsufficientFunds;
        }
        self.next_id += 1;
        Created::Stored(self.admit(new, transaction_id))
    }

    /// Stores a creation the gateway admitted, reserving a transfer's total, in the state its
    /// operator's first answer gives. Returns its index.
    pub fn admit(&mut self, new: &Creation, transaction_id: String) -> usize {
        let payment = Payment {
            tenant: new.tenant,
            transaction_id,
            kind: new.kind,
            operator: new.operator,
            script: new.script,
            amount: new.amount,
            fees: fee(new.operator, new.kind, new.amount),
            created_at: self.now,
            status: Status::Pending,
            failure: None,
            updated_at: None,
            next_check: Timestamp(self.now.millis() + self.settings.reconcile_after),
            // The simulator serves both environments here (Production routed to it), and it
            // hosts BETA's payer page wherever it serves BETA.
            has_payer_page: new.kind == Kind::Collection && new.operator == OperatorCode::Beta,
        };
        if payment.kind == Kind::Transfer {
            let accounts = &mut self.tenants[payment.tenant];
            accounts.available -= payment.total();
            accounts.reserved += payment.total();
        }
        let answer = payment.initiation();
        self.payments.push(payment);
        let index = self.payments.len() - 1;
        if let Some(done) = answer {
            self.settle(index, done, None);
        }
        index
    }

    /// Moves a pending payment to `done` with its ledger entry. `updated_at` is `None` for a
    /// settlement by the creation itself.
    pub fn settle(&mut self, index: usize, done: Final, updated_at: Option<Timestamp>) {
        let p = &mut self.payments[index];
        assert_eq!(p.status, Status::Pending, "the model settles only pending payments");
        let (total, receive, fees) = (p.total(), p.receive(), p.fees);
        let a = &mut self.tenants[p.tenant];
        match (p.kind, done.0) {
            (Kind::Collection, Status::Successful) => {
                a.operator_clearing -= total;
                a.available += receive;
                a.fee_revenue += fees;
            }
            (Kind::Transfer | Kind::Refund, Status::Successful) => {
                a.reserved -= total;
                a.operator_clearing += receive;
                a.fee_revenue += fees;
            }
            (Kind::Transfer | Kind::Refund, Status::Failed) => {
                a.reserved -= total;
                a.available += total;
            }
            (Kind::Collection, Status::Failed) | (_, Status::Pending) => {}
        }
        (p.status, p.failure, p.updated_at) = (done.0, done.1, updated_at);
    }

    fn pending(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.payments.len()).filter(|&i| self.payments[i].status == Status::Pending)
    }

    /// Simulated callbacks: every pending payment older than the delay whose script calls back.
    pub fn callbacks(&mut self) -> Pass {
        let now = self.now;
        let due: Vec<usize> = self
            .pending()
            .filter(|&i| now.millis() - self.payments[i].created_at.millis() >= self.settings.delay)
            .collect();
        let mut settled = 0;
        for &i in &due {
            if let Some(done) = self.payments[i].callback_at(now, self.settings.delay) {
                self.settle(i, done, Some(now));
                settled += 1;
            }
        }
        (due.len(), settled)
    }

    fn is_expired(&self, i: usize) -> bool {
        let p = &self.payments[i];
        p.kind == Kind::Collection && self.now.millis() - p.created_at.millis() >= self.settings.collection_ttl
    }

    fn is_due(&self, i: usize) -> bool {
        let p = &self.payments[i];
        self.now.millis() - p.created_at.millis() >= self.settings.reconcile_after && p.next_check <= self.now
    }

    /// An expired collection's last check: settled as the operator says, else FAILED (expired).
    fn expire_one(&mut self, i: usize) {
        let done = self.payments[i]
            .status_at(self.now, self.settings.delay)
            .unwrap_or((Status::Failed, Some(FailureCode::Expired)));
        self.settle(i, done, Some(self.now));
    }

    /// The reconciler: every pending payment whose check is due is asked; one still pending is
    /// asked again after half its age, at least the reconcile delay and at most an hour, and a
    /// collection no later than its expiry. An expired collection gets its last check.
    pub fn reconcile(&mut self) -> Pass {
        let now = self.now;
        let due: Vec<usize> = self.pending().filter(|&i| self.is_due(i)).collect();
        let mut settled = 0;
        for &i in &due {
            if self.is_expired(i) {
                self.expire_one(i);
                settled += 1;
                continue;
            }
            let p = &self.payments[i];
            match p.status_at(now, self.settings.delay) {
                Some(done) => {
                    self.settle(i, done, Some(now));
                    settled += 1;
                }
                None => {
                    let age = now.millis() - p.created_at.millis();
                    let wait = (age / 2).clamp(self.settings.reconcile_after.max(1), MAX_CHECK_INTERVAL);
                    let mut next = now.millis() + wait;
                    if p.kind == Kind::Collection {
                        next = next.min(p.created_at.millis() + self.settings.collection_ttl);
                    }
                    self.payments[i].next_check = Timestamp(next);
                }
            }
        }
        (due.len(), settled)
    }

    /// Collection expiry: every pending collection past its lifetime whose check is due.
    pub fn expire(&mut self) -> Pass {
        let due: Vec<usize> = self
            .pending()
            .filter(|&i| self.is_expired(i) && self.payments[i].next_check <= self.now)
            .collect();
        for &i in &due {
            self.expire_one(i);
        }
        (due.len(), due.len())
    }

    pub fn top_up(&mut self, tenant: usize, amount: i64) {
        let a = &mut self.tenants[tenant];
        a.available += amount;
        a.operator_clearing -= amount;
    }

    /// An administrator's resolution: `true` when it moves a pending payment; a final one
    /// never changes.
    pub fn resolve(&mut self, i: usize, status: Status) -> bool {
        if self.payments[i].status != Status::Pending {
            return false;
        }
        let code = (status == Status::Failed).then_some(FailureCode::ResolvedByAdmin);
        self.settle(i, (status, code), Some(self.now));
        true
    }

    /// The payer's answer on the BETA page: settles a pending collection, changes nothing else.
    pub fn payer(&mut self, i: usize, approve: bool) {
        if self.payments[i].status == Status::Pending {
            let done = match approve {
                true => (Status::Successful, None),
                false => (Status::Failed, Some(FailureCode::PayerDeclined)),
            };
            self.settle(i, done, Some(self.now));
        }
    }

    /// Money is conserved and no balance is negative; the reserve is exactly the totals of
    /// the transfers in flight. An error names the broken rule.
    pub fn check_invariants(&self) -> Result<(), String> {
        for (t, a) in self.tenants.iter().enumerate() {
            let sum = a.available + a.reserved + a.operator_clearing + a.fee_revenue;
            let in_flight: i64 = self
                .payments
                .iter()
                .filter(|p| p.tenant == t && p.kind == Kind::Transfer && p.status == Status::Pending)
                .map(Payment::total)
                .sum();
            if sum != 0 || a.available < 0 || a.reserved != in_flight {
                return Err(format!(
                    "model tenant {t} broke its own invariants: {a:?}, in flight {in_flight}"
                ));
            }
        }
        Ok(())
    }
}
