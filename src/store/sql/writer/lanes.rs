//! The kinds of batched write, declared once (`lanes!` below): the queue's `Job`, a batch's
//! lanes and their answers, and every pass over them follow from that one list. A new kind of
//! batched write is a file with its [`BatchItem`] and a line here.

use std::collections::BTreeMap;

use sqlx::{Acquire, Transaction};

use super::super::balance_locks::{BalancePlan, BalanceUse};
use super::super::SqlDb;
use super::create::Create;
use super::item::{answer_each, each_answered, run_one, tenant_key, Answer, BatchItem, Lane, Reply};
use super::keys::KeyWrite;
use super::task::Writer;
use crate::store::handoff::{EventLease, Reserved};
use crate::store::idempotency::KeyClaim;
use crate::store::{Settlement, StoreError};

/// A write that can be queued for the writers: every [`BatchItem`] listed in `lanes!`.
pub(in crate::store) trait Queued: BatchItem {
    /// The write with where its answer goes.
    fn job(self, reply: Reply<Self::Answer>) -> Job;
}

macro_rules! lanes {
    ($($kind:ident => $lane:ident),+ $(,)?) => {
        /// A write on its way to a writer, with where its answer goes.
        pub(in crate::store) enum Job {
            $($kind(Box<$kind>, Reply<<$kind as BatchItem>::Answer>),)+
        }

        $(impl Queued for $kind {
            fn job(self, reply: Reply<Self::Answer>) -> Job {
                Job::$kind(Box::new(self), reply)
            }
        })+

        /// A batch's writes by kind, each kind's lane run in the order listed, in every pass.
        pub(super) struct Batch {
            $(pub $lane: Lane<$kind>,)+
        }

        /// The answers of a batch's writes, lane by lane, in the lanes' order.
        pub(super) struct Answers {
            $(pub $lane: Vec<Answer<<$kind as BatchItem>::Answer>>,)+
        }

        impl Answers {
            /// Whether some write failed on its own.
            pub fn any_failed(&self) -> bool {
                false $(|| self.$lane.iter().any(Result::is_err))+
            }
        }

        impl Batch {
            pub fn of(jobs: Vec<Job>) -> Batch {
                $(let mut $lane = Vec::new();)+
                for job in jobs {
                    match job {
                        $(Job::$kind(write, reply) => $lane.push((*write, reply)),)+
                    }
                }
                Batch { $($lane: Lane::of($lane),)+ }
            }

            pub fn len(&self) -> usize {
                0 $(+ self.$lane.writes.len())+
            }

            /// How many events its writes may hand to the dispatcher.
            pub fn events(&self) -> usize {
                0 $(+ if <$kind as BatchItem>::HANDS_OVER_EVENTS { self.$lane.writes.len() } else { 0 })+
            }

            /// What the batch does to each tenant's balance, in tenant order: the most any of
            /// its writes needs (`BalanceUse` is ordered so).
            pub fn balance_uses(&self) -> Vec<(&str, &str, BalanceUse)> {
                let mut uses = BTreeMap::new();
                $(for write in &self.$lane.writes {
                    if let Some(usage) = write.balance_use() {
                        let known = uses.entry(tenant_key(write.tenant())).or_insert(usage);
                        *known = (*known).max(usage);
                    }
                })+
                uses.into_iter().map(|((m, e), usage)| (m, e, usage)).collect()
            }

            /// The payer rows its writes touch, in the batch's order, each once.
            pub fn payers(&self) -> Vec<(&str, &str, &str)> {
                let mut payers = Vec::new();
                $(payers.extend(self.$lane.writes.iter().filter_map(BatchItem::payer));)+
                payers.dedup();
                payers
            }

            /// The first pass: each lane as one set.
            pub async fn run_together<DB: SqlDb>(
                &self,
                tx: &mut Transaction<'_, DB>,
                plan: &BalancePlan,
                lease: Option<&EventLease>,
            ) -> Result<Answers, StoreError> {
                $(let writes = &self.$lane.writes;
                let $lane = if writes.is_empty() {
                    Vec::new()
                } else {
                    each_answered($kind::run_set(writes, tx, plan, lease).await?, writes.len())?
                };)+
                Ok(Answers { $($lane,)+ })
            }

            /// The second pass: each write in a savepoint of `tx`, rolled back alone when it fails.
            pub async fn run_each_in_savepoint<DB: SqlDb>(
                &self,
                tx: &mut Transaction<'static, DB>,
                plan: &BalancePlan,
                lease: Option<&EventLease>,
            ) -> Result<Answers, StoreError> {
                $(let mut $lane = Vec::with_capacity(self.$lane.writes.len());
                for write in &self.$lane.writes {
                    let mut item = tx.begin().await?;
                    let answer = run_one(write, &mut item, plan, lease).await;
                    match &answer {
                        Ok(_) => item.commit().await?,
                        Err(_) => item.rollback().await?,
                    }
                    $lane.push(answer);
                })+
                Ok(Answers { $($lane,)+ })
            }

            /// Tries again, each on its own, the writes whose answer is a passing error
            /// (`Writer::retry_alone`).
            pub async fn retry_passing_errors<DB: SqlDb>(
                &self,
                writer: &Writer<DB>,
                answers: &mut Answers,
                lease: Option<&EventLease>,
            ) {
                $(writer.retry_alone(&self.$lane.writes, &mut answers.$lane, lease).await;)+
            }

            /// Answers a committed batch: every event its writes hand over reaches the
            /// dispatcher's queue before any answer leaves, so a caller that sees its payment
            /// settled finds its event handed over.
            pub fn answer(self, answers: Answers, mut handed: Option<&mut Reserved<'_>>) {
                $(let $lane = self.$lane.hand_over(&answers.$lane, handed.as_deref_mut());)+
                $(answer_each($lane, answers.$lane);)+
            }

            /// Every write answered `Unavailable`: the batch as a whole failed, nothing of it
            /// written.
            pub fn fail(self, why: &str) {
                $(self.$lane.fail(why);)+
            }

            /// Every write answered with `error`: a lone write's own failure.
            pub fn each_failed(&self, error: &StoreError) -> Answers {
                Answers { $($lane: self.$lane.writes.iter().map(|_| Err(error.clone())).collect(),)+ }
            }
        }
    };
}

lanes! {
    Create => creates,
    Settlement => settles,
    KeyWrite => keys,
    KeyClaim => claims,
}
