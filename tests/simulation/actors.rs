//! What the actors do, as the scheduler starts them: a creating request, a reconciler or
//! expiry pass, the payout sender, a callback, a crash; and time passing, and the quiescence
//! that ends a seed.

use std::time::Duration;

use momo_gateway::app;
use momo_gateway::domain::{Address, Amount, Environment, Kind, Msisdn, OperatorCode, TransactionRef};
use momo_gateway::operator::CallbackRequest;
use momo_gateway::reconcile::check_lease;
use momo_gateway::service::payments::refunds::RefundRequest;
use momo_gateway::service::payments::Requested;
use momo_gateway::service::payouts::{BatchRequest, QueuedClaim};
use momo_gateway::service::settlement::visit;
use momo_gateway::service::{DueChecks, Party, PaymentRequest};
use rand::Rng;

use super::operator::{Fault, ACTOR, DETACHED};
use super::world::{connectors, World};

impl World {
    /// The next planned payment, asked for by a creating request.
    pub fn create(&mut self) {
        let p = self.created;
        self.created += 1;
        self.counts.payments += 1;
        let plan = self.plans[p];
        let phone = Msisdn::parse(&format!("07010203{p:02}")).expect("a mobile number");
        let request = PaymentRequest {
            transaction_id: format!("p{p}").into(),
            operator: plan.operator,
            operator_alias: None,
            phone: phone.clone(),
            phone_as_sent: phone.as_str().to_owned(),
            amount: Amount::from_francs(plan.amount).expect("an amount"),
            party: Party {
                first_name: "Awa".into(),
                last_name: "Kone".into(),
                email: None,
                phone,
                address: Address::parse("CI", None, None).expect("an address"),
            },
            purpose: match plan.kind {
                Kind::Collection => Requested::Collection {
                    otp_code: Some("123456".into()),
                    return_urls: Default::default(),
                    link: None,
                },
                _ => Requested::transfer(),
            },
        };
        let (payments, tenant, now) = (self.gateway.payments.clone(), self.tenant.clone(), self.now());
        if plan.kind == Kind::Transfer && plan.batched {
            let payouts = self.gateway.payouts.clone();
            let name = format!("batch of p{p}: transfer {} {}", plan.operator, plan.amount);
            self.spawn(name, async move {
                let batch = BatchRequest {
                    label: None,
                    all_or_nothing: false,
                    items: vec![Ok(request)],
                };
                if let Err(e) = payouts.create_batch(&tenant, batch, now).await {
                    tracing::debug!(error = %e, "batch refused");
                }
            });
            return;
        }
        let name = format!("create p{p}: {} {} {}", plan.kind.as_str(), plan.operator, plan.amount);
        self.spawn(name, async move {
            let answer = payments.create_payment(&tenant, request, now).await;
            let shown = match answer {
                Ok(r) => format!("{:?}", r.transaction.status),
                Err(e) => format!("error: {e}"),
            };
            ACTOR.with(|a| tracing::debug!(actor = a, %shown, "creation answered"));
        });
    }

    /// A reconciler pass (or an expiry pass): the due checks claimed now, each visited by an
    /// actor of its own.
    pub async fn reconcile(&mut self, expiry: bool) -> Result<(), String> {
        let now = self.now();
        let reconcile = &self.config.reconcile;
        let (created_before, kind) = if expiry {
            (
                now.minus(reconcile.shortest_collection_lifetime()),
                Some(Kind::Collection),
            )
        } else {
            (now.minus(reconcile.after), None)
        };
        let mut claims = self
            .gateway
            .payments
            .claim_due_checks(DueChecks {
                now,
                created_before,
                kind,
                lease_until: now.plus(check_lease(&self.config)),
                limit: 16,
            })
            .await
            .map_err(|e| format!("claim: {e}"))?;
        // In the seed's order, not by the ids the gateway drew.
        claims.sort_by(|a, b| a.transaction.transaction_id.cmp(&b.transaction.transaction_id));
        let pass = if expiry { "expiry" } else { "reconciler" };
        if claims.is_empty() {
            self.log(format!("{pass} pass: nothing due"));
        }
        for record in claims {
            let payments = self.gateway.payments.clone();
            let name = format!(
                "{pass} visit of p{}",
                record.transaction.transaction_id.trim_start_matches('p')
            );
            self.spawn(name, async move {
                if let Err(e) = visit(&payments, record, now).await {
                    tracing::debug!(error = %e, "visit failed");
                }
            });
        }
        Ok(())
    }

    /// A refund of all of a collection the gateway called `SUCCESSFUL`, by a request of its own
    /// (through the collection's connector only: MoMo gives money back, PayDunya has no call
    /// for it, and its collections are refused before anything is written).
    pub fn refund(&mut self) {
        let Some(p) = self
            .verdict
            .refundable
            .iter()
            .copied()
            .find(|p| !self.refunds_asked.contains(p))
        else {
            return;
        };
        self.refunds_asked.push(p);
        self.counts.payments += 1;
        let request = RefundRequest {
            transaction_id: format!("r{p}").into(),
            collection: TransactionRef::from(format!("p{p}").as_str()),
            amount: None,
            reason: None,
        };
        let (payments, tenant, now) = (self.gateway.payments.clone(), self.tenant.clone(), self.now());
        self.spawn(format!("refund r{p} of p{p}"), async move {
            if let Err(e) = payments.refund(&tenant, request, now).await {
                tracing::debug!(error = %e, "refund refused");
            }
        });
    }

    /// A step of the payout sender: each operator's queued transfers claimed now, each sent by
    /// an actor of its own.
    pub async fn send_queued(&mut self) -> Result<(), String> {
        let now = self.now();
        let mut claimed = Vec::new();
        for operator in OperatorCode::ALL {
            let claim = QueuedClaim {
                tenant: &self.tenant,
                operator,
                first_check: now.plus(self.config.reconcile.after),
                limit: 16,
            };
            let found = self
                .gateway
                .payouts
                .claim_queued(claim)
                .await
                .map_err(|e| format!("claim queued: {e}"))?;
            claimed.extend(found);
        }
        if claimed.is_empty() {
            self.log("payout sender: nothing queued".into());
        }
        claimed.sort_by(|a, b| a.transaction.transaction_id.cmp(&b.transaction.transaction_id));
        for record in claimed {
            let payments = self.gateway.payments.clone();
            let name = format!("payout sender's send of {}", record.transaction.transaction_id);
            self.spawn(name, async move {
                if let Err(e) = payments.send_queued(record, now).await {
                    tracing::debug!(error = %e, "send failed");
                }
            });
        }
        Ok(())
    }

    /// The sweep that seals the batches whose recording died with its process.
    pub async fn sweep_abandoned(&mut self) -> Result<(), String> {
        let sealed = self
            .gateway
            .payouts
            .seal_abandoned(self.now())
            .await
            .map_err(|e| format!("sweep: {e}"))?;
        self.log(format!("abandoned batches' sweep: {} sealed", sealed.len()));
        Ok(())
    }

    /// One of the callbacks the operators owe: delivered, delivered and kept to come again,
    /// or lost.
    pub fn callback(&mut self) {
        let at = {
            let s = self.sim.lock();
            self.rng.gen_range(0..s.callbacks.len())
        };
        let (protocol, p, reference) = self.sim.lock().callbacks[at].clone();
        match self.rng.gen_range(0..10) {
            0 => {
                self.sim.lock().callbacks.remove(at);
                self.log(format!("{} callback of p{p} lost", protocol.name()));
                self.counts.faults += 1;
                return;
            }
            1..=2 => self.log(format!("{} callback of p{p} will come again", protocol.name())),
            _ => {
                self.sim.lock().callbacks.remove(at);
            }
        }
        let (payments, operator, now) = (self.gateway.payments.clone(), self.plans[p].operator, self.now());
        let sim = self.sim.clone();
        self.spawn(format!("{} callback of p{p}", protocol.name()), async move {
            let request = CallbackRequest {
                token: Some(protocol.name()),
                signature: None,
                body: reference.as_bytes(),
                now,
            };
            if let Err(e) = payments
                .receive_operator_callback(operator, Environment::Sandbox, request)
                .await
            {
                tracing::debug!(error = %e, "callback refused");
            }
            // The gateway checks the status on a task of its own: this actor stands for it
            // until it ends (one callback at a time, so the count is this one's). While that
            // task is parked on an operator call, this one waits for a call to end.
            while payments.callback_checks_in_flight() > 0 {
                let resolved = sim.resolved.notified();
                tokio::pin!(resolved);
                resolved.as_mut().enable();
                if sim.lock().held.iter().any(|h| h.actor == DETACHED) {
                    resolved.await;
                } else {
                    tokio::task::yield_now().await;
                }
            }
        });
        self.callback_actor = self.actors.last().map(|a| a.id());
    }

    /// Moves the clock on by `by`; a held call whose caller stops waiting first times out.
    pub async fn advance(&mut self, by: Duration) -> Result<(), String> {
        let to = self.now().plus(by);
        loop {
            let due = {
                let s = self.sim.lock();
                s.held
                    .iter()
                    .enumerate()
                    .filter(|(_, h)| h.deadline <= to)
                    .min_by_key(|(_, h)| (h.deadline, h.actor))
                    .map(|(i, h)| (i, h.deadline))
            };
            let Some((at, deadline)) = due else { break };
            let fault = if self.rng.gen_bool(0.5) {
                Fault::LostBefore
            } else {
                Fault::LostAfter
            };
            self.counts.faults += 1;
            {
                let mut s = self.sim.lock();
                s.now = s.now.max(deadline);
                s.log("the caller's timeout".into());
            }
            self.resolve(at, fault);
            self.settle_down().await?;
        }
        let mut s = self.sim.lock();
        s.now = to;
        s.log(format!("time passes: {by:?}"));
        Ok(())
    }

    /// The gateway's process dies: every actor's future is dropped with it, and a new process
    /// opens the same database.
    pub async fn crash(&mut self) -> Result<(), String> {
        self.counts.crashes += 1;
        for actor in self.actors.drain(..) {
            actor.abort();
        }
        {
            let rng = &mut self.rng;
            let reached: Vec<bool> = (0..64).map(|_| rng.gen_bool(0.5)).collect();
            let mut s = self.sim.lock();
            s.log("CRASH: the gateway's process is killed".into());
            s.crash(|i| reached[i % reached.len()]);
        }
        self.callback_actor = None;
        self.sim.resolved.notify_waiters();
        self.gateway.close().await;
        self.gateway = app::open_with(self.config.clone(), connectors(&self.sim))
            .await
            .map_err(|e| format!("reopen: {e:#}"))?;
        Ok(())
    }

    /// Every held call answered, and those its callers make next, until none is held.
    pub async fn answer_all(&mut self) -> Result<(), String> {
        while !self.sim.lock().held.is_empty() {
            self.resolve(0, Fault::Answer);
            self.settle_down().await?;
        }
        Ok(())
    }

    /// Everything the operators hold is answered and decided, and time passes with the
    /// workers running, until nothing is pending (or it is plain that something stays so).
    pub async fn quiesce(&mut self) -> Result<(), String> {
        self.log("--- quiescence: every call answered, every payment decided, the workers run".into());
        for _ in 0..12 {
            self.answer_all().await?;
            let open = self.sim.lock().open_entries();
            for key in open {
                let pay = self.rng.gen_bool(0.7);
                self.sim.lock().decide(&key, pay);
            }
            while !self.sim.lock().callbacks.is_empty() {
                if self.callback_actor.is_none() {
                    self.callback();
                }
                self.settle_down().await?;
                self.answer_all().await?;
            }
            self.check(false).await?;
            if self.sim.lock().held.is_empty() && self.pending().await? == 0 {
                return Ok(());
            }
            self.advance(Duration::from_secs(2 * 3600)).await?;
            self.sweep_abandoned().await?;
            self.send_queued().await?;
            self.settle_down().await?;
            self.reconcile(true).await?;
            self.settle_down().await?;
            self.reconcile(false).await?;
            self.settle_down().await?;
        }
        Ok(())
    }
}
