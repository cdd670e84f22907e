//! A batch's items checked before anything is written: each as a transfer would be (its id
//! unique in the batch, its operator served here, its recipient when asked, at the operator's
//! pace), then the ids used before found in one read.

use std::collections::{HashMap, HashSet};

use futures_util::stream::{self, StreamExt};

use super::outcome::{ItemOutcome, Refusal, RefusalCode};
use super::record::{refusal, Step};
use super::Payouts;
use crate::domain::{BatchId, Tenant, TransactionRecord};
use crate::service::payments::PaymentRequest;
use crate::service::payments::{RecipientCheck, Requested};
use crate::service::ServiceError;

/// Items checked at once (a recipient check is an operator call).
const CONCURRENT_CHECKS: usize = 32;

impl Payouts {
    /// Each item checked as a transfer would be before anything is written: ids unique in
    /// the batch, its operator served here, its recipient (when asked).
    pub(super) async fn check_items(
        &self,
        tenant: &Tenant,
        id: &BatchId,
        items: Vec<Result<PaymentRequest, Refusal>>,
    ) -> Result<Vec<Step>, ServiceError> {
        let mut seen = HashSet::with_capacity(items.len());
        let items: Vec<Result<PaymentRequest, Refusal>> = items
            .into_iter()
            .map(|item| {
                let mut request = item?;
                if !seen.insert(request.transaction_id.as_str().to_owned()) {
                    return Err(Refusal::new(
                        RefusalCode::DuplicateInBatch,
                        format!(
                            "transaction id {:?} is used by an earlier item of this batch",
                            request.transaction_id.as_str()
                        ),
                    ));
                }
                request.purpose = Requested::Transfer {
                    recipient_check: RecipientCheck::when(request.purpose.checks_recipient()),
                    batch: Some(id.clone()),
                };
                Ok(request)
            })
            .collect();
        let payments = self.payments();
        stream::iter(items)
            .map(|item| async move {
                let request = match item {
                    Ok(request) => request,
                    Err(refusal) => return Ok(Step::Done(ItemOutcome::Refused(refusal))),
                };
                if request.purpose.checks_recipient() {
                    self.check_turn(request.operator).await;
                }
                match payments.creatable(tenant, &request).await {
                    Ok(()) => Ok(Step::Ready(Box::new(request))),
                    Err(e) => refusal(e).map(Step::Done),
                }
            })
            .buffered(CONCURRENT_CHECKS)
            .collect::<Vec<_>>()
            .await
            .into_iter()
            .collect()
    }

    /// The items whose ids were used before, found in one read so that the batch may still go
    /// in one database transaction. The database's unique key stays the judge: an id taken in
    /// between fails that transaction, and the items then go one by one.
    pub(super) async fn find_duplicates(&self, tenant: &Tenant, steps: Vec<Step>) -> Result<Vec<Step>, ServiceError> {
        let ids: Vec<&str> = steps
            .iter()
            .filter_map(|s| match s {
                Step::Ready(request) => Some(request.transaction_id.as_str()),
                Step::Done(_) => None,
            })
            .collect();
        let found = self.0.store.transactions_by_ids(tenant, &ids).await?;
        if found.is_empty() {
            return Ok(steps);
        }
        let mut found: HashMap<String, TransactionRecord> = found
            .into_iter()
            .map(|r| (r.transaction.transaction_id.as_str().to_owned(), r))
            .collect();
        Ok(steps
            .into_iter()
            .map(|step| match step {
                Step::Ready(request) => match found.remove(request.transaction_id.as_str()) {
                    Some(existing) => Step::Done(ItemOutcome::Duplicate(Box::new(existing))),
                    None => Step::Ready(request),
                },
                done => done,
            })
            .collect())
    }
}
