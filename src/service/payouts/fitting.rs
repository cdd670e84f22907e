//! Two answers a batch gets without recording item by item: the items that fit the balance
//! when the whole does not, and the batch recorded before when the same all-or-nothing batch
//! is sent again.

use super::outcome::{ItemOutcome, Refusal, RefusalCode};
use super::record::Step;
use super::{BatchCreated, Payouts};
use crate::domain::{Tenant, Timestamp};
use crate::service::ServiceError;

impl Payouts {
    /// `steps` with each ready item that does not fit what the earlier ones left of the
    /// available balance refused, in the request's order, as recording them one by one would.
    /// The balance is read, not held: the database checks it again when they are recorded.
    pub(super) async fn fit_balance(
        &self,
        tenant: &Tenant,
        steps: Vec<Step>,
        now: Timestamp,
    ) -> Result<Vec<Step>, ServiceError> {
        let payments = self.payments();
        let mut left = payments.balances().balance(tenant).await?.available;
        Ok(steps
            .into_iter()
            .map(|step| match step {
                Step::Ready(request) => {
                    let total = payments.prepare(tenant, &request, now).1.amounts.amount_total;
                    if total <= left {
                        left -= total;
                        Step::Ready(request)
                    } else {
                        Step::Done(ItemOutcome::Refused(Refusal::new(
                            RefusalCode::InsufficientFunds,
                            "its total exceeds what remains of the available balance",
                        )))
                    }
                }
                Step::Done(outcome) => Step::Done(outcome),
            })
            .collect())
    }

    /// The batch `steps` were recorded as, when every item is a transaction of one earlier
    /// batch of exactly these items: an all-or-nothing batch sent again (a retry after a lost
    /// answer), answered with what was recorded rather than "nothing was recorded", which
    /// would invite paying again under new ids.
    pub(super) async fn recorded_before(
        &self,
        tenant: &Tenant,
        steps: &[Step],
    ) -> Result<Option<BatchCreated>, ServiceError> {
        let mut batch_id = None;
        for step in steps {
            let Step::Done(ItemOutcome::Duplicate(record)) = step else {
                return Ok(None);
            };
            match (&batch_id, record.transaction.purpose.batch()) {
                (_, None) => return Ok(None),
                (None, Some(id)) => batch_id = Some(id.clone()),
                (Some(seen), Some(id)) if seen != id => return Ok(None),
                (Some(_), Some(_)) => {}
            }
        }
        let Some(id) = batch_id else { return Ok(None) };
        let Some(batch) = self.batch(tenant, &id).await? else {
            return Ok(None);
        };
        if batch.submitted != steps.len() as u64 || batch.accepted.count != steps.len() as u64 {
            return Ok(None);
        }
        let items = steps
            .iter()
            .filter_map(|step| match step {
                Step::Done(ItemOutcome::Duplicate(record)) => Some(ItemOutcome::Duplicate(record.clone())),
                _ => None,
            })
            .collect();
        Ok(Some(BatchCreated { batch, items }))
    }
}
