//! Customer records: created explicitly, or found by phone number when a payment embeds one.

use std::sync::Arc;

use super::ServiceError;
use crate::domain::{Customer, CustomerId, NewCustomer, PageRequest, Tenant, TextId, Timestamp};
use crate::store::MerchantStore;

/// Customer records: the merchants' store and nothing else.
#[derive(Clone)]
pub struct Customers {
    store: Arc<dyn MerchantStore>,
}

impl Customers {
    pub(super) fn new(store: Arc<dyn MerchantStore>) -> Customers {
        Customers { store }
    }

    pub async fn create_customer(
        &self,
        tenant: &Tenant,
        new: NewCustomer,
        now: Timestamp,
    ) -> Result<Customer, ServiceError> {
        let customer = Customer {
            id: CustomerId::from_text(crate::domain::ids::new_record_id().to_string()),
            tenant: tenant.clone(),
            first_name: new.first_name.into_string(),
            last_name: new.last_name.into_string(),
            email: new.email.map(|e| e.as_str().to_owned()),
            phone: new.phone,
            address: new.address,
            created_at: now,
        };
        self.store.insert_customer(&customer).await?;
        Ok(customer)
    }

    /// The tenant's customer `id`; another tenant's customer is not found, like a missing one.
    pub async fn customer(&self, tenant: &Tenant, id: &CustomerId) -> Result<Customer, ServiceError> {
        self.store
            .customer(tenant, id)
            .await?
            .ok_or(ServiceError::NotFound("customer"))
    }

    pub async fn customers(&self, tenant: &Tenant, page: &PageRequest) -> Result<Vec<Customer>, ServiceError> {
        Ok(self.store.customers(tenant, page).await?)
    }
}
