//! Operations whose parts run at once: creations that share write batches, and settlements that
//! race each other. Which part goes first is the gateway's to choose, so the model checks the
//! outcome is one that some order allows, then adopts it:
//! - in a burst, each creation's state follows its script exactly; one of a reused id is stored
//!   and the others answered with it; a transfer is refused for funds only if it could not fit
//!   beside the transfers the burst did store;
//! - in a race, a payment that one of the racers alone would settle is settled, as one of them
//!   would; one nobody would settle stays pending; the workers' and resolutions' reports add up
//!   to the payments that moved (payers' answers do not say whether they won).

use std::collections::BTreeMap;

use momo_gateway::domain::{FailureCode, Kind, Reference, Status, TransactionRecord, TransactionRef};
use momo_gateway::reconcile::{self, review, Report};
use momo_gateway::service::{PayerDecision, PaymentError, ServiceError};
use tokio::task::JoinSet;

use super::ops::{Id, Racer};
use super::run::{request, World};
use super::state::{fee, Creation, Final, Model};

/// What a racer answered.
enum Raced {
    Pass(Result<Report, ServiceError>),
    Resolved(usize, Status, Result<TransactionRecord, ServiceError>),
    Payer(usize, Result<TransactionRecord, ServiceError>),
}

impl World {
    pub(super) async fn burst(&mut self, creations: &[(Creation, Id)]) -> Result<(), String> {
        let now = self.model.now;
        self.bursts += 1;
        let mut ids: Vec<String> = Vec::new();
        for (k, (_, id)) in creations.iter().enumerate() {
            let id = match (id, ids.last()) {
                (Id::SameAsPrevious, Some(previous)) => previous.clone(),
                _ => format!("burst-{}-{k}", self.bursts),
            };
            ids.push(id);
        }
        let mut tasks = JoinSet::new();
        for (k, (new, _)) in creations.iter().enumerate() {
            let (gateway, tenant) = (self.gateway.clone(), self.tenants[new.tenant].clone());
            let request = request(new, ids[k].clone());
            tasks.spawn(async move { (k, gateway.payments.create_payment(&tenant, request, now).await) });
        }
        let mut answers: Vec<_> = creations.iter().map(|_| None).collect();
        while let Some(joined) = tasks.join_next().await {
            let (k, answer) = joined.map_err(|e| format!("a creation panicked: {e}"))?;
            answers[k] = Some(answer);
        }

        let available_before: Vec<i64> = self.model.tenants.iter().map(|a| a.available).collect();
        let mut reserved_by_burst = vec![0; self.tenants.len()];
        // By tenant and id: ids are the merchant environment's own.
        let mut stored: BTreeMap<(usize, String), String> = BTreeMap::new();
        let mut short = Vec::new();
        let mut duplicates = Vec::new();
        for (k, answer) in answers.into_iter().enumerate() {
            let (new, _) = &creations[k];
            let (record, refused) = match answer.expect("every creation answered") {
                Ok(record) => (record, false),
                Err(PaymentError::Refused(record)) => (*record, true),
                Err(PaymentError::InsufficientFunds) if new.kind == Kind::Transfer => {
                    short.push((new.tenant, new.amount + fee(new.operator, new.kind, new.amount)));
                    continue;
                }
                Err(PaymentError::Duplicate(existing)) => {
                    duplicates.push((k, existing.transaction.reference.into_string()));
                    continue;
                }
                Err(e) => return Err(format!("creation {k} of the burst answered {e:?}")),
            };
            let key = (new.tenant, ids[k].clone());
            if stored.insert(key, record.transaction.reference.to_string()).is_some() {
                return Err(format!("the id {} was stored twice", ids[k]));
            }
            let index = self.model.admit(new, ids[k].clone());
            if new.kind == Kind::Transfer {
                reserved_by_burst[new.tenant] += self.model.payments[index].total();
            }
            self.stored(record, refused)?;
        }
        for (k, existing) in duplicates {
            let holder = stored.get(&(creations[k].0.tenant, ids[k].clone()));
            if holder != Some(&existing) {
                return Err(format!(
                    "creation {k} of the burst was answered as a duplicate of {existing}, but its id {} holds {holder:?}",
                    ids[k]
                ));
            }
        }
        for (tenant, total) in short {
            let left = available_before[tenant] - reserved_by_burst[tenant];
            if total <= left {
                return Err(format!(
                    "a transfer of total {total} in tenant {tenant} was refused for funds, though {left} stayed available"
                ));
            }
        }
        Ok(())
    }

    pub(super) async fn race(&mut self, racers: &[Racer]) -> Result<(), String> {
        let now = self.model.now;
        let count = self.model.payments.len();
        let pages: Vec<usize> = (0..count).filter(|&i| self.tokens[i].is_some()).collect();
        let before = self.model.clone();
        // What each racer would do alone, from the same state.
        let mut alone: Vec<Model> = Vec::new();
        let mut tasks = JoinSet::new();
        for racer in racers {
            let mut model = before.clone();
            let gateway = self.gateway.clone();
            match *racer {
                Racer::Callbacks => {
                    model.callbacks();
                    tasks.spawn(
                        async move { Raced::Pass(reconcile::callbacks::run_once(&gateway.payments, now).await) },
                    );
                }
                Racer::Reconcile => {
                    model.reconcile();
                    tasks.spawn(
                        async move { Raced::Pass(reconcile::reconciler::run_once(&gateway.payments, now).await) },
                    );
                }
                Racer::Expire => {
                    model.expire();
                    tasks.spawn(async move { Raced::Pass(reconcile::expiry::run_once(&gateway.payments, now).await) });
                }
                Racer::Resolve { pick, status } if count > 0 => {
                    let i = pick % count;
                    model.resolve(i, status);
                    let reference = self.references[i].clone();
                    tasks.spawn(async move {
                        Raced::Resolved(
                            i,
                            status,
                            review::resolve(
                                &gateway.payments,
                                &Reference::from(reference.as_str()),
                                status,
                                "model test",
                                now,
                            )
                            .await,
                        )
                    });
                }
                Racer::Payer { pick, approve } if !pages.is_empty() => {
                    let i = pages[pick % pages.len()];
                    model.payer(i, approve);
                    let token = self.tokens[i].clone().expect("a page");
                    let decision = if approve {
                        PayerDecision::Approve
                    } else {
                        PayerDecision::Decline
                    };
                    tasks.spawn(async move {
                        Raced::Payer(i, gateway.payments.decide_checkout(&token, decision, now).await)
                    });
                }
                Racer::Resolve { .. } | Racer::Payer { .. } => {} // nothing to settle
            }
            alone.push(model);
        }
        let mut answers = Vec::new();
        while let Some(joined) = tasks.join_next().await {
            answers.push(joined.map_err(|e| format!("a racer panicked: {e}"))?);
        }

        let mut seen: Vec<Final> = Vec::new();
        for p in &self.model.payments {
            let t = self
                .gateway
                .payments
                .transaction(
                    &self.tenants[p.tenant],
                    &TransactionRef::from(p.transaction_id.as_str()),
                )
                .await
                .map_err(|e| format!("lookup of {}: {e}", p.transaction_id))?
                .transaction;
            seen.push((t.status, t.failure_code));
        }
        let reconciled = racers.iter().position(|r| matches!(r, Racer::Reconcile));
        let mut moved = 0;
        for i in (0..count).filter(|&i| before.payments[i].status == Status::Pending) {
            let allowed: Vec<Final> = alone
                .iter()
                .map(|m| &m.payments[i])
                .filter(|p| p.status != Status::Pending)
                .map(|p| (p.status, p.failure))
                .collect();
            if seen[i].0 == Status::Pending && allowed.is_empty() {
                // Still pending: the reconciler, if it raced, set its next check.
                if let Some(r) = reconciled {
                    self.model.payments[i].next_check = alone[r].payments[i].next_check;
                }
            } else if allowed.contains(&seen[i]) {
                self.model.settle(i, seen[i], Some(now));
                moved += 1;
            } else {
                return Err(format!(
                    "payment {} became {:?}; racing alone, the racers would give {allowed:?}",
                    before.payments[i].transaction_id, seen[i]
                ));
            }
        }
        self.check_answers(answers, &before, &seen, moved)
    }

    /// Each racer's answer agrees with what became of the payments.
    fn check_answers(&self, answers: Vec<Raced>, before: &Model, seen: &[Final], moved: usize) -> Result<(), String> {
        let (mut settled, mut resolved, mut payers) = (0, 0, 0);
        for answer in answers {
            match answer {
                Raced::Pass(report) => settled += report.map_err(|e| format!("a worker pass failed: {e}"))?.settled,
                Raced::Resolved(i, status, Ok(_)) => {
                    let code = (status == Status::Failed).then_some(FailureCode::ResolvedByAdmin);
                    let was = before.payments[i].status;
                    if was != Status::Pending || seen[i] != (status, code) {
                        return Err(format!(
                            "resolving payment {i} ({was:?} before) to {status:?} succeeded, and it is now {:?}",
                            seen[i]
                        ));
                    }
                    resolved += 1;
                }
                Raced::Resolved(i, _, Err(ServiceError::Invalid(_))) if seen[i].0 != Status::Pending => {}
                Raced::Resolved(i, _, Err(e)) => return Err(format!("resolving payment {i} answered {e}")),
                Raced::Payer(i, answer) => {
                    let t = answer
                        .map_err(|e| format!("the payer's answer on {i}: {e}"))?
                        .transaction;
                    if (t.status, t.failure_code) != seen[i] {
                        return Err(format!(
                            "the payer was shown {:?}, the payment is {:?}",
                            t.status, seen[i]
                        ));
                    }
                    payers += 1;
                }
            }
        }
        if moved < settled + resolved || moved > settled + resolved + payers {
            return Err(format!(
                "{moved} payments moved; workers report {settled} settled, {resolved} resolutions succeeded, {payers} payers answered"
            ));
        }
        Ok(())
    }
}
