//! What merchants read back of their account: transactions and the balance, and the top-ups
//! that credit it (admin command line).

use super::Payments;
use crate::domain::{
    Balance, Francs, PageRequest, Tenant, Timestamp, TransactionFilter, TransactionRecord, TransactionRef,
};
use crate::service::ServiceError;
use crate::store::StoreError;

impl Payments {
    /// The tenant's transaction, by the merchant's transaction id or the service reference.
    pub async fn transaction(&self, tenant: &Tenant, id: &TransactionRef) -> Result<TransactionRecord, ServiceError> {
        self.store
            .transaction(tenant, id)
            .await?
            .ok_or(ServiceError::NotFound("transaction"))
    }

    pub async fn transactions(
        &self,
        tenant: &Tenant,
        filter: &TransactionFilter,
        page: &PageRequest,
    ) -> Result<Vec<TransactionRecord>, ServiceError> {
        Ok(self.store.transactions(tenant, filter, page).await?)
    }

    pub async fn balance(&self, tenant: &Tenant) -> Result<Balance, ServiceError> {
        match self.store.balance(tenant).await {
            Ok(balance) => Ok(balance),
            Err(StoreError::NotFound) => Err(ServiceError::NotFound("balance")),
            Err(e) => Err(e.into()),
        }
    }

    /// Credits Production money from an operator top-up (admin command line).
    pub async fn top_up(&self, tenant: &Tenant, amount: Francs, now: Timestamp) -> Result<Balance, ServiceError> {
        if !amount.is_positive() {
            return Err(ServiceError::Invalid(
                "the amount must be a positive number of francs".into(),
            ));
        }
        match self.store.credit(tenant, amount, now).await {
            Ok(()) => self.balance(tenant).await,
            Err(StoreError::NotFound) => Err(ServiceError::NotFound("merchant environment")),
            Err(e) => Err(e.into()),
        }
    }
}
