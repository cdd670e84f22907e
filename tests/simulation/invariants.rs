//! What must hold after every step and at quiescence: no two sends of one payment are on their
//! way at once; the operators moved each payment's money at most once across all connectors; a payment the gateway calls `SUCCESSFUL` was moved, one
//! it calls `FAILED` was not; a final state never changes; the ledger balances; and at
//! quiescence nothing an operator decided is left `PENDING`.

use std::collections::{BTreeMap, BTreeSet};

use momo_gateway::domain::{Kind, PageRequest, Status, TransactionFilter, TransactionRecord};

use super::books::name;
use super::operator::payment_of;
use super::world::World;

/// What the checks remember between steps: each transaction's first final state.
#[derive(Debug, Default)]
pub struct Verdict {
    finals: BTreeMap<String, Status>,
    /// The seed's collections the gateway has called `SUCCESSFUL`: each may be refunded.
    pub refundable: BTreeSet<usize>,
}

impl World {
    async fn records(&self) -> Result<Vec<TransactionRecord>, String> {
        self.gateway
            .payments
            .transactions(
                &self.tenant,
                &TransactionFilter::default(),
                &PageRequest {
                    limit: 100,
                    after: None,
                },
            )
            .await
            .map_err(|e| format!("list: {e}"))
    }

    /// The seed's transactions still `PENDING`.
    pub async fn pending(&self) -> Result<usize, String> {
        Ok(self
            .records()
            .await?
            .iter()
            .filter(|r| r.transaction.status == Status::Pending)
            .count())
    }

    /// The invariants, after a step (`at_rest`: at quiescence, when every operator has decided;
    /// the whole ledger is checked then).
    pub async fn check(&mut self, at_rest: bool) -> Result<(), String> {
        let records = self.records().await?;
        let mut broken = Vec::new();
        {
            let s = self.sim.lock();
            broken.extend(s.seen.iter().cloned());
            for (p, kind) in s.known() {
                if s.paid(p, kind) > 1 {
                    let times = s.paid(p, kind);
                    broken.push(format!("{} was paid {times} times by the operators", name(p, kind)));
                }
            }
            for r in &records {
                let t = &r.transaction;
                let (p, kind) = (payment_of(t.phone.last_two_digits()), t.kind());
                if kind == Kind::Collection && t.status == Status::Successful {
                    self.verdict.refundable.insert(p);
                }
                let (paid, decided, shown) = (s.paid(p, kind), s.decided(p, kind), name(p, kind));
                match t.status {
                    Status::Successful if paid == 0 => {
                        broken.push(format!("{shown} is SUCCESSFUL, and no operator moved its money"))
                    }
                    Status::Failed if paid > 0 => broken.push(format!(
                        "{shown} is FAILED ({:?}), and an operator moved its money",
                        t.failure_code
                    )),
                    Status::Pending if at_rest && decided => {
                        broken.push(format!("{shown} is left PENDING, though its operator decided it"))
                    }
                    _ => {}
                }
                match self.verdict.finals.get(t.id.as_str()) {
                    Some(was) if *was != t.status => {
                        broken.push(format!("{shown} was {was:?} and is now {:?}", t.status))
                    }
                    Some(_) => {}
                    None if t.status.is_final() => {
                        self.verdict.finals.insert(t.id.as_str().to_owned(), t.status);
                    }
                    None => {}
                }
            }
        }
        if !at_rest {
            return if broken.is_empty() {
                Ok(())
            } else {
                Err(broken.join("; "))
            };
        }
        // The whole ledger (every seed's, on a shared database) once the seed is at rest.
        let ledger = self
            .gateway
            .payments
            .check_ledger()
            .await
            .map_err(|e| format!("ledger: {e}"))?;
        if ledger.postings_sum != 0 || ledger.inconsistent_balances != 0 || ledger.final_without_one_event != 0 {
            broken.push(format!("the ledger does not balance: {ledger:?}"));
        }
        if broken.is_empty() {
            Ok(())
        } else {
            Err(broken.join("; "))
        }
    }
}
