//! One seed: a gateway on the shared database, routed to the scripted operators, and the actors
//! the seed starts in the order it picks. Every actor is a task of its own that runs the real
//! use case or worker step (a creation, a status check, an expiry, a callback) until it parks
//! on an operator call or ends; the scheduler acts only when every actor has, so the seed alone
//! decides the order of events.

use std::sync::Arc;
use std::time::Duration;

use momo_gateway::app;
use momo_gateway::config::connectors::Chain;
use momo_gateway::config::{BreakerSettings, Config, ReconcileSettings};
use momo_gateway::domain::{Environment, Kind, OperatorCode, Tenant, Timestamp};
use momo_gateway::operator::{Connector, Operators};
use momo_gateway::service::Gateway;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use tokio::task::JoinHandle;

use super::invariants::Verdict;
use super::operator::{Fault, Protocol, Scripted, Sim, ACTOR};

/// The simulated routes, by operator: one protocol, or two with a fallback.
pub const ROUTES: [(OperatorCode, &[Protocol]); 4] = [
    (OperatorCode::Alpha, &[Protocol::Paydunya]),
    (OperatorCode::Beta, &[Protocol::Momo]),
    (OperatorCode::Gamma, &[Protocol::Momo, Protocol::Paydunya]),
    (OperatorCode::Delta, &[Protocol::Paydunya, Protocol::Momo]),
];

/// Steps a seed takes before it settles everything down.
const STEPS: usize = 40;

/// What a seed ran, for the summary.
#[derive(Debug, Default, Clone, Copy)]
pub struct Counts {
    pub seeds: usize,
    pub steps: usize,
    pub faults: usize,
    pub crashes: usize,
    pub payments: usize,
}

impl Counts {
    pub fn add(&mut self, other: Counts) {
        self.seeds += other.seeds;
        self.steps += other.steps;
        self.faults += other.faults;
        self.crashes += other.crashes;
        self.payments += other.payments;
    }
}

/// A payment the seed will ask for.
#[derive(Debug, Clone, Copy)]
pub struct Plan {
    pub kind: Kind,
    /// A transfer asked for in a payout batch of its own: queued, sent by the payout sender.
    pub batched: bool,
    pub operator: OperatorCode,
    pub amount: i64,
}

pub struct World {
    pub rng: StdRng,
    pub sim: Arc<Sim>,
    pub config: Config,
    pub gateway: Gateway,
    pub tenant: Tenant,
    pub plans: Vec<Plan>,
    pub created: usize,
    /// The collections a refund was asked for (one each, of all of it).
    pub refunds_asked: Vec<usize>,
    pub actors: Vec<JoinHandle<()>>,
    pub next_actor: usize,
    /// The callback actor running, if any: callbacks are delivered one at a time.
    pub callback_actor: Option<tokio::task::Id>,
    pub counts: Counts,
    pub verdict: Verdict,
}

/// When seed `seed` starts: a day apart, so seeds sharing a database never meet in time.
fn start_of(seed: u64) -> Timestamp {
    Timestamp(1_800_000_000_000 + (seed as i64 % 1_000_000) * 86_400_000)
}

pub fn connectors(sim: &Arc<Sim>) -> Operators {
    let connector = |protocol: Protocol| {
        Connector::new(
            protocol.name(),
            Arc::new(Scripted {
                protocol,
                sim: sim.clone(),
            }),
        )
    };
    // The Sandbox's unnamed operators: none here, every operator is routed.
    let mut operators = Operators::new(Arc::new(Scripted {
        protocol: Protocol::Momo,
        sim: sim.clone(),
    }));
    for (operator, route) in ROUTES {
        operators = operators.route(
            operator,
            Environment::Sandbox,
            route.iter().map(|p| connector(*p)).collect(),
        );
    }
    operators
}

/// The settings of a seed: its timings are the seed's too.
fn config(database_url: &str, rng: &mut StdRng) -> Config {
    let mut config = Config {
        database_url: database_url.to_owned(),
        jwt_secret: Some("simulation-jwt-secret-that-is-at-least-32-bytes".into()),
        sandbox_initial_balance: 10_000_000,
        breaker: BreakerSettings {
            failures: u32::MAX,
            cool_down: Duration::from_secs(1),
        },
        ..Config::default()
    };
    let after = [0, 300, 2_000, 30_000][rng.gen_range(0..4)];
    config.reconcile = ReconcileSettings {
        interval: Duration::from_secs(1),
        after: Duration::from_millis(after),
        collection_ttl: Duration::from_secs([20, 60, 180][rng.gen_range(0..3)]),
        link_payment_ttl: Duration::from_secs(180),
    };
    config.connectors.timeout = Duration::from_millis([500, 2_000, 15_000][rng.gen_range(0..3)]);
    config.connectors.routes = ROUTES
        .iter()
        .map(|(operator, route)| {
            let names: Vec<&str> = route.iter().map(|p| p.name()).collect();
            let chain = Chain::parse(&names.join("|")).expect("a route");
            (*operator, Environment::Sandbox, chain)
        })
        .collect();
    config
}

impl World {
    pub async fn open(seed: u64, database_url: &str) -> Result<World, String> {
        let mut rng = StdRng::seed_from_u64(seed);
        let config = config(database_url, &mut rng);
        let sim = Arc::new(Sim::default());
        {
            let mut s = sim.lock();
            s.start = start_of(seed);
            s.now = s.start;
            s.timeout_ms = config.connectors.timeout.as_millis() as i64;
            s.log(format!(
                "seed {seed}: reconcile after {:?}, operator timeout {:?}, collections live {:?}",
                config.reconcile.after, config.connectors.timeout, config.reconcile.collection_ttl
            ));
        }
        let gateway = app::open_with(config.clone(), connectors(&sim))
            .await
            .map_err(|e| format!("open: {e:#}"))?;
        let merchant = gateway
            .merchants
            .create_merchant(&format!("Seed {seed}"), None, start_of(seed))
            .await
            .map_err(|e| format!("merchant: {e}"))?;
        let tenant = Tenant {
            merchant_id: merchant.id,
            environment: Environment::Sandbox,
        };
        let plans = (0..rng.gen_range(1..=3))
            .map(|_| Plan {
                kind: if rng.gen_bool(0.5) {
                    Kind::Collection
                } else {
                    Kind::Transfer
                },
                batched: rng.gen_bool(0.3),
                // The routes with a fallback twice as often: they have the most orders.
                operator: [0, 1, 2, 2, 3, 3].map(|i| ROUTES[i].0)[rng.gen_range(0..6)],
                amount: rng.gen_range(1..50) * 100,
            })
            .collect();
        Ok(World {
            rng,
            sim,
            config,
            gateway,
            tenant,
            plans,
            created: 0,
            refunds_asked: Vec::new(),
            actors: Vec::new(),
            next_actor: 0,
            callback_actor: None,
            counts: Counts {
                seeds: 1,
                ..Counts::default()
            },
            verdict: Verdict::default(),
        })
    }

    pub fn now(&self) -> Timestamp {
        self.sim.lock().now
    }

    pub fn log(&self, line: String) {
        self.sim.lock().log(line);
    }

    /// Starts `what` as an actor of its own.
    pub fn spawn<F>(&mut self, name: String, what: F)
    where
        F: std::future::Future<Output = ()> + Send + 'static,
    {
        self.next_actor += 1;
        let actor = self.next_actor;
        let sim = self.sim.clone();
        let generation = {
            let mut s = sim.lock();
            s.alive += 1;
            s.log(format!("actor {actor} starts: {name}"));
            s.generation
        };
        self.actors.push(tokio::spawn(ACTOR.scope(actor, async move {
            what.await;
            // An actor a crash aborted while it was running ends in that poll all the same; the
            // crash has counted it out already.
            let mut s = sim.lock();
            if s.generation == generation {
                s.alive -= 1;
            }
            drop(s);
            sim.changed.notify_one();
        })));
    }

    /// Answers held call `at` as `fault` says, and wakes whoever waits for a call to end.
    pub fn resolve(&self, at: usize, fault: Fault) {
        self.sim.lock().resolve(at, fault);
        self.sim.resolved.notify_waiters();
    }

    /// Waits until every actor is parked on an operator call or has ended.
    pub async fn settle_down(&mut self) -> Result<(), String> {
        loop {
            {
                let s = self.sim.lock();
                if s.alive == s.parked {
                    break;
                }
            }
            if tokio::time::timeout(Duration::from_secs(20), self.sim.changed.notified())
                .await
                .is_err()
            {
                return Err("the actors neither parked nor ended within 20 s: a hang".into());
            }
        }
        self.actors.retain(|a| !a.is_finished());
        if self
            .callback_actor
            .is_some_and(|id| !self.actors.iter().any(|a| a.id() == id))
        {
            self.callback_actor = None;
        }
        Ok(())
    }

    /// The seed's steps, then everything settled, checking the invariants after each.
    pub async fn run(&mut self) -> Result<(), String> {
        self.check(false).await?;
        for _ in 0..STEPS {
            self.step().await?;
            self.settle_down().await?;
            self.counts.steps += 1;
            self.check(false).await?;
        }
        self.quiesce().await?;
        self.check(true).await
    }

    async fn step(&mut self) -> Result<(), String> {
        let (held, open, callbacks) = {
            let s = self.sim.lock();
            (s.held.len(), s.open_entries().len(), s.callbacks.len())
        };
        let creatable = self.created < self.plans.len();
        // Out of about 90: a crash once in two seeds or so.
        let callback = callbacks > 0 && self.callback_actor.is_none();
        let refundable = self.verdict.refundable.iter().any(|p| !self.refunds_asked.contains(p));
        let weights = [
            if creatable { 16 } else { 0 }, // a creating request
            8,                              // a reconciler pass
            4,                              // an expiry pass
            if held > 0 { 32 } else { 0 },  // a held call answered
            if open > 0 { 8 } else { 0 },   // the operator decides
            if callback { 8 } else { 0 },   // a callback
            12,                             // time passes
            1,                              // a crash
            4,                              // the payout sender's step
            1,                              // the abandoned batches' sweep
            if refundable { 4 } else { 0 }, // a refund of a paid collection
        ];
        let total: u32 = weights.iter().sum();
        let mut pick = self.rng.gen_range(0..total);
        let choice = weights
            .iter()
            .position(|w| {
                if pick < *w {
                    true
                } else {
                    pick -= w;
                    false
                }
            })
            .expect("a choice");
        match choice {
            0 => self.create(),
            1 => self.reconcile(false).await?,
            2 => self.reconcile(true).await?,
            3 => {
                let at = self.rng.gen_range(0..held);
                let fault = match self.rng.gen_range(0..20) {
                    0..=10 => Fault::Answer,
                    11..=14 => Fault::RefusedBefore,
                    15..=16 => Fault::LostBefore,
                    _ => Fault::LostAfter,
                };
                if fault != Fault::Answer {
                    self.counts.faults += 1;
                }
                self.resolve(at, fault);
            }
            4 => {
                let mut s = self.sim.lock();
                let entries = s.open_entries();
                let key = &entries[self.rng.gen_range(0..entries.len())];
                let pay = self.rng.gen_bool(0.7);
                s.decide(key, pay);
            }
            5 => self.callback(),
            6 => {
                let timeout = self.config.connectors.timeout;
                let steps = [
                    Duration::from_millis(50),
                    Duration::from_millis(300),
                    Duration::from_secs(1),
                    timeout,
                    timeout * 3,
                    timeout * 10,
                    Duration::from_secs(60),
                    Duration::from_secs(300),
                ];
                let by = steps[self.rng.gen_range(0..steps.len())];
                self.advance(by).await?;
            }
            7 => self.crash().await?,
            8 => self.send_queued().await?,
            9 => self.sweep_abandoned().await?,
            _ => self.refund(),
        }
        Ok(())
    }
}
