//! Payout batches: the `PayoutStore`. A batch's counts move with its transfers, in their own
//! database transactions (`sql::kinds::transfer`); this store makes, seals and reads batches, and
//! hands the payout sender the queued transfers of an operator.

use async_trait::async_trait;

use super::StoreError;
use crate::domain::ledger::Posting;
use crate::domain::TransactionRecord;
use crate::domain::{BatchId, Customer, OperatorCode, PageRequest, PayoutBatch, Tenant, Timestamp, Transaction};

/// The first status check of a queued transfer: never, until the sender claims it and sets
/// the real one. A batch's transfers are recorded with it.
pub fn queued_check() -> Timestamp {
    Timestamp::from_millis(i64::MAX / 2)
}

/// Renders the webhook body of a completed batch. The store writes the event in the database
/// transaction that completes the batch, with the body the webhook module makes.
pub type BatchEventBody = fn(&PayoutBatch) -> String;

/// A batch about to be recorded: its row as it starts.
#[derive(Debug, Clone)]
pub struct NewBatch {
    pub id: BatchId,
    pub tenant: Tenant,
    pub label: Option<String>,
    pub all_or_nothing: bool,
    pub submitted: i64,
    pub created_at: Timestamp,
    /// What one merchant may have queued and being recorded; the store refuses past them.
    pub limits: BatchLimits,
}

/// A merchant's caps on payout batches in one environment, settled by the database under a
/// lock of the merchant's environment, whichever process records the batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BatchLimits {
    /// The most transfers queued (not yet sent), this batch's included.
    pub queued_max: i64,
    /// The most batches being recorded item by item (unsealed) at once, this one included.
    pub at_once: i64,
}

/// One transfer of an all-or-nothing batch, as `PaymentStore::insert_pending` takes it.
#[derive(Debug, Clone)]
pub struct BatchItem {
    pub payer: Customer,
    pub transaction: Transaction,
    pub entry: Vec<Posting>,
}

/// What the sealing request found out about its items, and how a completion is told.
#[derive(Debug, Clone, Copy)]
pub struct Seal {
    pub refused: i64,
    pub duplicates: i64,
    pub at: Timestamp,
    pub event_body: BatchEventBody,
}

/// What a payout sender claims: up to `limit` queued transfers of `tenant` to `operator`, their
/// first status check due at `first_check`.
#[derive(Debug, Clone, Copy)]
pub struct QueuedClaim<'a> {
    pub tenant: &'a Tenant,
    pub operator: OperatorCode,
    pub first_check: Timestamp,
    pub limit: u32,
}

#[async_trait]
pub trait PayoutStore: Send + Sync + 'static {
    /// Records a batch that its items will join one by one (`insert_pending` with the batch's
    /// id on each transaction), each in its own database transaction. `OverLimit` when the
    /// tenant is at one of its [`BatchLimits`], counting all `submitted` items as queued.
    async fn insert_batch(&self, batch: &NewBatch) -> Result<(), StoreError>;

    /// Records a batch with every one of `items`, sealed, in one database transaction, or
    /// nothing: `Conflict` when a transaction id is taken, `InsufficientFunds` when the items'
    /// reservations together would overdraw, `OverLimit` past the tenant's [`BatchLimits`].
    async fn insert_batch_whole(
        &self,
        batch: &NewBatch,
        items: &[BatchItem],
        seal: Seal,
    ) -> Result<Vec<Customer>, StoreError>;

    /// The tenant's transactions with these merchant ids (those that exist), in no order: the
    /// items of a batch whose ids were used before.
    async fn transactions_by_ids(&self, tenant: &Tenant, ids: &[&str]) -> Result<Vec<TransactionRecord>, StoreError>;

    /// Seals a batch once its request has recorded every item it could, with the counts of
    /// those it could not: from then on, the settlement of its last open item completes it.
    /// Completed at once when nothing is open. The batch as it is then.
    async fn seal_batch(&self, id: &BatchId, seal: Seal) -> Result<PayoutBatch, StoreError>;

    /// Seals the batches still unsealed that were created before `created_before`: their
    /// request died while it recorded them item by item. What it did not record counts as
    /// refused. Completed at once when nothing of one is open. The batches sealed.
    async fn seal_abandoned(
        &self,
        created_before: Timestamp,
        at: Timestamp,
        event_body: BatchEventBody,
    ) -> Result<Vec<PayoutBatch>, StoreError>;

    /// The tenant's batch.
    async fn batch(&self, tenant: &Tenant, id: &BatchId) -> Result<Option<PayoutBatch>, StoreError>;

    /// The tenant's batches, newest first.
    async fn batches(&self, tenant: &Tenant, page: &PageRequest) -> Result<Vec<PayoutBatch>, StoreError>;

    /// The tenants whose batches are not complete, Production first, then by merchant: the
    /// only ones that may have queued transfers, for the sender to go round.
    async fn tenants_with_open_batches(&self) -> Result<Vec<Tenant>, StoreError>;

    /// Claims the queued transfers `claim` names, oldest first: each leaves the queue with its
    /// first status check due, in one statement, so a transfer is claimed by one sender once
    /// and, if that sender dies before asking the operator, the reconciler finds it as it finds
    /// a creation cut short.
    async fn claim_queued(&self, claim: QueuedClaim<'_>) -> Result<Vec<TransactionRecord>, StoreError>;

    /// The tenant's queued transfers: what counts against its cap.
    async fn queued_for(&self, tenant: &Tenant) -> Result<i64, StoreError>;

    /// Queued transfers of every operator: what the sender has left to send.
    async fn queued(&self) -> Result<i64, StoreError>;
}
