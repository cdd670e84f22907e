//! Payment links: the `LinkStore`. A link's counts (`held`, `paid`, `collected`) are moved by
//! the payments made through it, in their own database transactions (`sql::kinds::collection`); this
//! store makes, reads and deactivates links.

use async_trait::async_trait;

use super::StoreError;
use crate::domain::{LinkId, PageRequest, PaymentLink, Tenant, Timestamp};

#[async_trait]
pub trait LinkStore: Send + Sync + 'static {
    /// Records a new link. `Conflict` when its id is taken.
    async fn insert_link(&self, link: &PaymentLink) -> Result<(), StoreError>;

    /// The tenant's link.
    async fn link(&self, tenant: &Tenant, id: &LinkId) -> Result<Option<PaymentLink>, StoreError>;

    /// A link by its id alone: its payer's page knows no tenant.
    async fn link_by_id(&self, id: &LinkId) -> Result<Option<PaymentLink>, StoreError>;

    /// The tenant's links, newest first.
    async fn links(&self, tenant: &Tenant, page: &PageRequest) -> Result<Vec<PaymentLink>, StoreError>;

    /// Deactivates the tenant's link at `at`: no payment starts through it afterwards, in any
    /// process. The link as it is then; `None` when the tenant has no such link. Deactivating
    /// it again changes nothing.
    async fn deactivate_link(
        &self,
        tenant: &Tenant,
        id: &LinkId,
        at: Timestamp,
    ) -> Result<Option<PaymentLink>, StoreError>;
}
