//! What moves a merchant's balance, and the balance itself: settling a pending payment (its
//! final state, its ledger entry and its webhook event, in one database transaction), a top-up
//! that credits Production money, and reading the balance. Creating a payment reserves in its
//! own write (`payments::create`); everything after that moves money through here.

use std::sync::Arc;

use crate::domain::{ledger, Balance, EventId, Francs, Outcome, Status, Tenant, Timestamp, TransactionRecord};
use crate::service::{OrNotFound, ServiceError};
use crate::store::{BatchEventBody, PaymentStore, Settlement};
use crate::telemetry::metrics::Metrics;

/// The balances' use cases over the payment store. Cheap to clone.
#[derive(Clone)]
pub struct Balances {
    store: Arc<dyn PaymentStore>,
    metrics: Arc<Metrics>,
}

impl Balances {
    pub(super) fn new(store: Arc<dyn PaymentStore>, metrics: Arc<Metrics>) -> Balances {
        Balances { store, metrics }
    }

    pub async fn balance(&self, tenant: &Tenant) -> Result<Balance, ServiceError> {
        self.store.balance(tenant).await.or_not_found("balance")
    }

    /// Credits Production money from an operator top-up (admin command line).
    pub async fn top_up(&self, tenant: &Tenant, amount: Francs, now: Timestamp) -> Result<Balance, ServiceError> {
        if !amount.is_positive() {
            return Err(ServiceError::Invalid(
                "the amount must be a positive number of francs".into(),
            ));
        }
        self.store
            .credit(tenant, amount, now)
            .await
            .or_not_found("merchant environment")?;
        self.balance(tenant).await
    }

    /// Moves a pending transaction to its final state with its ledger entry and webhook event,
    /// in one database transaction. `None` when it was already final (nothing changes then).
    /// `updated_at` is `None` only for transactions final at creation.
    pub async fn settle(
        &self,
        record: &TransactionRecord,
        outcome: Outcome,
        now: Timestamp,
        updated_at: Option<Timestamp>,
        audit: Option<String>,
    ) -> Result<Option<TransactionRecord>, ServiceError> {
        let mut settled = record.clone();
        let t = &mut settled.transaction;
        t.status = outcome.status;
        t.failure_code = outcome.code.filter(|_| outcome.status == Status::Failed);
        t.failure_reason = outcome.reason.clone().filter(|_| outcome.status == Status::Failed);
        t.updated_at = updated_at;
        let entry = ledger::settle(t.kind(), &t.amounts, outcome.status);
        let settlement = Settlement {
            transaction: settled.transaction.clone(),
            entry,
            outcome,
            at: now,
            updated_at,
            event_id: EventId::from(format!("msg_{}", crate::domain::ids::new_record_id().simple())),
            event_payload: crate::webhook::payload::body(&settled),
            batch_event: settled
                .transaction
                .purpose
                .batch()
                .map(|_| crate::webhook::payload::batch_body as BatchEventBody),
            audit,
        };
        if self.store.settle(&settlement).await? {
            let t = &settled.transaction;
            self.metrics
                .transaction(t.operator.name(), t.kind().as_str(), t.status.as_str());
            tracing::info!(reference = %settled.transaction.reference, status = settled.transaction.status.as_str(),
                cause = %settlement.outcome.cause, "transaction settled");
            Ok(Some(settled))
        } else {
            Ok(None)
        }
    }

    /// Settles a pending transaction after its creation (callbacks, reconciler, payer, admin).
    pub async fn settle_later(
        &self,
        record: &TransactionRecord,
        outcome: Outcome,
        now: Timestamp,
        audit: Option<String>,
    ) -> Result<Option<TransactionRecord>, ServiceError> {
        self.settle(record, outcome, now, Some(now), audit).await
    }
}
