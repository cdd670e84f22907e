//! What merchants read back of their payments: a transaction, and their list (the balance is
//! `balances`).

use super::Payments;
use crate::domain::{PageRequest, Tenant, TransactionFilter, TransactionRecord, TransactionRef};
use crate::service::ServiceError;

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
}
