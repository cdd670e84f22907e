//! One case: a fresh database, a gateway opened on it with no background loops, and a
//! sequence of operations applied to the gateway and to the model at the model's clock. Each
//! operation's own answer is compared as it comes; the whole state after it (`check.rs`).

use std::time::Duration;

use momo_gateway::app;
use momo_gateway::config::{Config, ReconcileSettings, SimulatorSettings};
use momo_gateway::domain::Francs;
use momo_gateway::domain::{
    Address, Amount, Environment, Kind, Msisdn, OperatorCode, Reference, Status, Tenant, Timestamp, TransactionRecord,
};
use momo_gateway::reconcile::{self, Report};
use momo_gateway::service::payments::Requested;
use momo_gateway::service::{Gateway, Party, PayerDecision, PaymentError, PaymentRequest, ServiceError};

use super::check::{same_payment, LedgerReader};
use super::ops::Op;
use super::state::{Created, Creation, Model, Pass, Script, Settings};
use crate::support::helpers::TEST_JWT_SECRET;
use momo_test_support::{Backend, TestDatabase};

const SETTINGS: Settings = Settings {
    delay: 2_000,
    reconcile_after: 1_000,
    collection_ttl: 10_000,
};
const OPENING_SANDBOX_BALANCE: i64 = 300_000;

/// A step that takes longer than this is a hang, reported as a failure.
const STEP_LIMIT: Duration = Duration::from_secs(30);

/// The gateway's side of a case, with the handles the gateway gave each model payment.
pub(super) struct World {
    pub(super) config: Config,
    pub(super) gateway: Gateway,
    pub(super) tenants: Vec<Tenant>,
    pub(super) model: Model,
    pub(super) ledger: LedgerReader,
    /// The service reference of each model payment, by index.
    pub(super) references: Vec<String>,
    /// The payer's page token of each model payment, by index.
    pub(super) tokens: Vec<Option<String>>,
    /// Bursts so far, which name their transaction ids.
    pub(super) bursts: usize,
}

/// Runs `ops` on a fresh database of `backend`; an error says which step disagreed and how.
pub async fn case(backend: Backend, ops: &[Op]) -> Result<(), String> {
    let db = TestDatabase::create(backend)
        .await
        .ok_or("the database could not be created")?;
    let mut world = World::open(backend, &db).await?;
    world.check().await.map_err(|e| format!("before any operation: {e}"))?;
    for (i, op) in ops.iter().enumerate() {
        let at = world.model.now;
        let step = async {
            world.apply(op).await?;
            world.check().await
        };
        match tokio::time::timeout(STEP_LIMIT, step).await {
            Ok(Ok(())) => {}
            Ok(Err(e)) => return Err(format!("operation {i} ({op:?}), clock {}: {e}", at.millis())),
            Err(_) => return Err(format!("operation {i} ({op:?}) did not finish within {STEP_LIMIT:?}")),
        }
    }
    world.gateway.close().await;
    world.ledger.close().await;
    Ok(())
}

fn passes(what: &str, report: Report, model: Pass) -> Result<(), String> {
    if (report.examined, report.settled) == model {
        Ok(())
    } else {
        Err(format!(
            "{what}: the gateway examined {} and settled {}, the model expects {} and {}",
            report.examined, report.settled, model.0, model.1
        ))
    }
}

/// The request of a creation, to a number ending with its script's digits.
pub(super) fn request(new: &Creation, transaction_id: String) -> PaymentRequest {
    let phone = Msisdn::parse(&format!("07010203{}", new.script.digits())).expect("a mobile number");
    PaymentRequest {
        transaction_id: transaction_id.into(),
        operator: new.operator,
        phone: phone.clone(),
        phone_as_sent: phone.as_str().to_owned(),
        amount: Amount::from_francs(new.amount).expect("an amount within the limits"),
        party: Party {
            first_name: "Awa".into(),
            last_name: "Kone".into(),
            email: None,
            phone,
            address: Address::parse("CI", None, None).expect("an address"),
        },
        operator_alias: None,
        purpose: match new.kind {
            Kind::Collection => Requested::collection(),
            Kind::Transfer => Requested::transfer(),
            Kind::Refund => unreachable!("the model makes collections and transfers only"),
        },
    }
}

impl World {
    async fn open(backend: Backend, db: &TestDatabase) -> Result<World, String> {
        let mut config = Config {
            database_url: db.url.clone(),
            jwt_secret: Some(TEST_JWT_SECRET.to_owned()),
            simulator: SimulatorSettings {
                delay: Duration::from_millis(SETTINGS.delay as u64),
            },
            reconcile: ReconcileSettings {
                interval: Duration::from_secs(5),
                after: Duration::from_millis(SETTINGS.reconcile_after as u64),
                collection_ttl: Duration::from_millis(SETTINGS.collection_ttl as u64),
                // The model makes no link payments; they would live as long as any collection.
                link_payment_ttl: Duration::from_millis(SETTINGS.collection_ttl as u64),
            },
            sandbox_initial_balance: OPENING_SANDBOX_BALANCE,
            ..Config::default()
        };
        // The model pays out of Production balances too.
        crate::support::helpers::production_simulated(&mut config);
        let gateway = app::open(config.clone()).await.map_err(|e| format!("open: {e:#}"))?;
        let start = Timestamp(1_800_000_000_000);
        let mut tenants = Vec::new();
        for name in ["Model A", "Model B"] {
            let merchant = gateway
                .merchants
                .create_merchant(name, None, start)
                .await
                .map_err(|e| format!("merchant: {e}"))?;
            let tenant = |environment| Tenant {
                merchant_id: merchant.id.clone(),
                environment,
            };
            tenants.push(tenant(Environment::Sandbox));
            if name == "Model A" {
                tenants.push(tenant(Environment::Production));
            }
        }
        // Sandbox, Production, Sandbox: Production opens empty.
        let opening = [OPENING_SANDBOX_BALANCE, 0, OPENING_SANDBOX_BALANCE];
        Ok(World {
            ledger: LedgerReader::connect(backend, &db.url).await?,
            config,
            gateway,
            tenants,
            model: Model::new(start, SETTINGS, &opening),
            references: Vec::new(),
            tokens: Vec::new(),
            bursts: 0,
        })
    }

    async fn apply(&mut self, op: &Op) -> Result<(), String> {
        let now = self.model.now;
        let count = self.model.payments.len();
        match *op {
            Op::Create(new) => {
                let id = self.model.next_transaction_id();
                let tenant = &self.tenants[new.tenant];
                let answer = self
                    .gateway
                    .payments
                    .create_payment(tenant, request(&new, id.clone()), now)
                    .await;
                let (record, refused) = match (self.model.create(&new, id), answer) {
                    (Created::InsufficientFunds, Err(PaymentError::InsufficientFunds)) => return Ok(()),
                    (Created::Stored(_), Ok(record)) => (record, false),
                    (Created::Stored(_), Err(PaymentError::Refused(record))) => (*record, true),
                    (predicted, answer) => {
                        return Err(format!(
                            "creation answered {:?}, the model expects {predicted:?}",
                            answer.map(|r| r.transaction.status)
                        ))
                    }
                };
                self.stored(record, refused)?;
            }
            Op::Duplicate { pick } if count > 0 => {
                let p = &self.model.payments[pick % count];
                let again = Creation {
                    tenant: p.tenant,
                    kind: Kind::Collection,
                    operator: OperatorCode::Gamma,
                    script: Script::SucceedAtOnce,
                    amount: 100,
                };
                let again = request(&again, p.transaction_id.clone());
                match self
                    .gateway
                    .payments
                    .create_payment(&self.tenants[p.tenant], again, now)
                    .await
                {
                    Err(PaymentError::Duplicate(existing))
                        if existing.transaction.reference == self.references[pick % count] => {}
                    other => {
                        return Err(format!(
                            "a reused transaction id answered {:?}, not the existing payment",
                            other.map(|r| r.transaction.reference)
                        ))
                    }
                }
            }
            Op::Advance { ms } => self.model.now = Timestamp(now.millis() + ms),
            Op::Callbacks => {
                let report = reconcile::callbacks::run_once(&self.gateway.payments, now).await;
                passes("callbacks", report.map_err(|e| e.to_string())?, self.model.callbacks())?;
            }
            Op::Reconcile => {
                let report = reconcile::reconciler::run_once(&self.gateway.payments, now).await;
                passes("reconciler", report.map_err(|e| e.to_string())?, self.model.reconcile())?;
            }
            Op::Expire => {
                let report = reconcile::expiry::run_once(&self.gateway.payments, now).await;
                passes("expiry", report.map_err(|e| e.to_string())?, self.model.expire())?;
            }
            Op::TopUp { tenant, amount } => {
                let balance = self
                    .gateway
                    .balances
                    .top_up(&self.tenants[tenant], Francs(amount), now)
                    .await;
                self.model.top_up(tenant, amount);
                let a = self.model.tenants[tenant];
                match balance {
                    Ok(b)
                        if (b.available, b.reserved)
                            == (
                                momo_gateway::domain::Francs(a.available),
                                momo_gateway::domain::Francs(a.reserved),
                            ) => {}
                    other => return Err(format!("top-up answered {other:?}, the model has {a:?}")),
                }
            }
            Op::Resolve { pick, status } if count > 0 => {
                let i = pick % count;
                let answer = reconcile::review::resolve(
                    &self.gateway.payments,
                    &Reference::from(self.references[i].as_str()),
                    status,
                    "model test",
                    now,
                )
                .await;
                match (self.model.resolve(i, status), answer) {
                    (true, Ok(record)) => same_payment(&self.model.payments[i], &record.transaction)?,
                    (false, Err(ServiceError::Invalid(_))) => {}
                    (moved, answer) => {
                        return Err(format!(
                            "resolving {i} answered {:?}; the model {} it",
                            answer.map(|r| r.transaction.status),
                            if moved { "moves" } else { "refuses" }
                        ))
                    }
                }
            }
            Op::Payer { pick, approve } => {
                let pages: Vec<usize> = (0..count).filter(|&i| self.tokens[i].is_some()).collect();
                if pages.is_empty() {
                    return Ok(());
                }
                let i = pages[pick % pages.len()];
                let token = self.tokens[i].as_deref().expect("a page");
                let decision = if approve {
                    PayerDecision::Approve
                } else {
                    PayerDecision::Decline
                };
                let answer = self.gateway.payments.decide_checkout(token, decision, now).await;
                self.model.payer(i, approve);
                same_payment(&self.model.payments[i], &answer.map_err(|e| e.to_string())?.transaction)?;
            }
            Op::Burst(ref creations) => self.burst(creations).await?,
            Op::Race(ref racers) => self.race(racers).await?,
            Op::Restart => {
                self.gateway.close().await;
                self.gateway = app::open(self.config.clone())
                    .await
                    .map_err(|e| format!("reopen: {e:#}"))?;
            }
            Op::Duplicate { .. } | Op::Resolve { .. } => {} // no payment yet
        }
        Ok(())
    }

    /// The gateway's answer to the creation the model stored last: the same payment, and
    /// answered as refused exactly when the operator refused it at once.
    pub(super) fn stored(&mut self, record: TransactionRecord, refused: bool) -> Result<(), String> {
        let p = self.model.payments.last().expect("just stored");
        same_payment(p, &record.transaction)?;
        if refused != (p.status == Status::Failed) {
            return Err(format!("a {:?} creation answered as refused: {refused}", p.status));
        }
        self.references.push(record.transaction.reference.into_string());
        self.tokens
            .push(record.transaction.purpose.checkout_token().map(str::to_owned));
        Ok(())
    }
}
