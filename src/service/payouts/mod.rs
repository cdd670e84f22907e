//! Payout batches: many transfers asked for in one request. Each item is an ordinary transfer
//! (its own transaction id, the 409 rules, its reservation, its webhook); a batch records its
//! items `PENDING` and queued, answers with each one's outcome, and leaves the sending to the
//! payout sender, which sends them at each operator's pace through the same
//! lifecycle as a single transfer (`reconcile::payout_sender`). The batch completes, with its own webhook event, when its
//! last item is final (`store::sql::kinds::transfer`).
//!
//! Recording: a batch that is not all-or-nothing is first fitted to the balance as read, in the
//! request's order (each item that does not fit what the earlier ones left is refused); then
//! the whole batch goes to the database in one transaction (a few set-based statements, well
//! under a second for 5,000 items), which checks the balance again. When that is refused (an id
//! taken, the balance short), an all-or-nothing batch is refused whole; any other is fitted
//! again and tried whole once more, then recorded item by item, each reserved on its own.
//!
//! Caps: a merchant's queued transfers and batches being recorded at once are bounded per
//! environment (`MOMO_PAYOUT_QUEUED_MAX`, `MOMO_PAYOUT_BATCHES_AT_ONCE`), counted by the store
//! under a lock of the merchant's environment, so one merchant cannot fill the queue.

mod checks;
pub mod csv;
mod fitting;
mod outcome;
mod record;

use std::sync::Arc;

use crate::domain::{BatchId, OperatorCode, PageRequest, PayoutBatch, Tenant, Timestamp, TransactionRecord};
use crate::service::rate_limit::TokenBuckets;
use crate::service::{Payments, ServiceError};
use crate::store::{PayoutStore, StoreError};

pub use crate::store::QueuedClaim;
pub use outcome::{BatchRequest, ItemOutcome, Refusal, RefusalCode};
pub use record::Previewed;

/// The payout batches' use cases.
#[derive(Clone)]
pub struct Payouts(Arc<PayoutsParts>);

struct PayoutsParts {
    store: Arc<dyn PayoutStore>,
    payments: Payments,
    /// Each operator's pace for the recipient checks batches ask (`MOMO_PAYOUT_RATE_PER_S`
    /// per process, as their sending): a batch of 5,000 checked items must not flood an
    /// operator's lookup API, which would refuse every merchant's checks.
    check_pace: Arc<TokenBuckets>,
}

/// A batch as recorded, with each item's outcome in the order of the request.
#[derive(Debug)]
pub struct BatchCreated {
    pub batch: PayoutBatch,
    pub items: Vec<ItemOutcome>,
}

/// Why a batch was not recorded.
#[derive(Debug, thiserror::Error)]
pub enum BatchError {
    /// An all-or-nothing batch with an item that could not be accepted: nothing was written.
    /// Every item's outcome says which and why (the others are refused as not attempted).
    #[error("the batch asks for all items or none, and {refused} of them cannot be accepted: nothing was recorded")]
    Refused { refused: usize, items: Vec<ItemOutcome> },
    /// The merchant is at a cap (transfers queued, batches being recorded at once): nothing
    /// was written. The text says which, and what to do.
    #[error("{0}")]
    OverLimit(String),
    /// The batch as a whole is no valid request (its size, its label, its checks): nothing was
    /// written.
    #[error(transparent)]
    Invalid(BatchProblem),
    #[error(transparent)]
    Service(#[from] ServiceError),
}

/// What makes a whole batch invalid.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BatchProblem {
    #[error("a batch holds from 1 to {max} items; this one has {submitted}", max = crate::domain::payout_batch::MAX_BATCH_ITEMS)]
    Size { submitted: usize },
    #[error(
        "a batch may ask to check at most {most} recipients (half a request's time at \
         MOMO_PAYOUT_RATE_PER_S checks a second); this one asks {asked}: split it, or check fewer"
    )]
    TooManyChecks { most: u64, asked: usize },
    #[error("label {0}")]
    Label(crate::domain::text::TextProblem),
}

impl From<StoreError> for BatchError {
    fn from(e: StoreError) -> BatchError {
        match e {
            StoreError::OverLimit(why) => BatchError::OverLimit(why),
            e => BatchError::Service(e.into()),
        }
    }
}

impl Payouts {
    pub(super) fn new(store: Arc<dyn PayoutStore>, payments: Payments) -> Payouts {
        let rate = f64::from(payments.config().payouts.rate_per_s.max(1));
        let check_pace = TokenBuckets::new(rate, rate).unwrap_or_else(|| unreachable!("a positive rate"));
        Payouts(Arc::new(PayoutsParts {
            store,
            payments,
            check_pace: Arc::new(check_pace),
        }))
    }

    /// Waits until `operator`'s pace allows one more recipient check.
    async fn check_turn(&self, operator: OperatorCode) {
        while let Err(wait) = self.0.check_pace.take(operator.name(), std::time::Instant::now()) {
            tokio::time::sleep(wait).await;
        }
    }

    /// The same payouts, their transfers sent through `payments` (other operator connectors).
    pub(super) fn with_payments(&self, payments: Payments) -> Payouts {
        Payouts(Arc::new(PayoutsParts {
            store: self.0.store.clone(),
            payments,
            check_pace: self.0.check_pace.clone(),
        }))
    }

    pub fn payments(&self) -> &Payments {
        &self.0.payments
    }

    /// The tenant's batch.
    pub async fn batch(&self, tenant: &Tenant, id: &BatchId) -> Result<Option<PayoutBatch>, ServiceError> {
        Ok(self.0.store.batch(tenant, id).await?)
    }

    /// The tenant's batches, newest first.
    pub async fn batches(&self, tenant: &Tenant, page: &PageRequest) -> Result<Vec<PayoutBatch>, ServiceError> {
        Ok(self.0.store.batches(tenant, page).await?)
    }

    /// The tenants that may have queued transfers, Production first, then by merchant.
    pub async fn tenants_with_open_batches(&self) -> Result<Vec<Tenant>, ServiceError> {
        Ok(self.0.store.tenants_with_open_batches().await?)
    }

    /// Claims queued transfers for the sender.
    pub async fn claim_queued(&self, claim: QueuedClaim<'_>) -> Result<Vec<TransactionRecord>, ServiceError> {
        Ok(self.0.store.claim_queued(claim).await?)
    }

    /// Seals the batches whose request died while it recorded them one by one, once they are
    /// older than any such request may run ([`abandoned_after`]): each completes when its
    /// recorded transfers are final, what was not recorded counted as refused.
    pub async fn seal_abandoned(&self, now: Timestamp) -> Result<Vec<PayoutBatch>, ServiceError> {
        let created_before = now.minus(abandoned_after(self.payments().config()));
        let sealed = self
            .0
            .store
            .seal_abandoned(created_before, now, crate::webhook::payload::batch_body)
            .await?;
        for batch in &sealed {
            tracing::warn!(
                batch = %batch.id,
                accepted = batch.accepted.count,
                refused = batch.refused,
                "payout batch sealed by the sweep: its request ended before sealing it"
            );
        }
        Ok(sealed)
    }

    /// Transfers of batches not sent yet, every operator together.
    pub async fn queued(&self) -> Result<i64, ServiceError> {
        Ok(self.0.store.queued().await?)
    }
}

/// The age after which an unsealed batch's request is surely over. An HTTP request is cut at
/// `MOMO_HTTP_REQUEST_TIMEOUT_MS`; the command line has no such limit, but records 5,000 items
/// one by one in seconds, so a quarter of an hour leaves a wide margin either way.
pub fn abandoned_after(config: &crate::config::Config) -> std::time::Duration {
    (config.http.request_timeout * 2).max(std::time::Duration::from_secs(15 * 60))
}

impl ItemOutcome {
    /// The transaction the item stands for: its own (accepted) or the earlier one (duplicate).
    pub fn transaction(&self) -> Option<&TransactionRecord> {
        match self {
            ItemOutcome::Accepted(record) | ItemOutcome::Duplicate(record) => Some(record),
            ItemOutcome::Refused(_) => None,
        }
    }
}
