//! The recipient check's records: the `RecipientStore`. Whether a merchant environment may ask
//! it, its daily quota, and the lookups it made.

use async_trait::async_trait;

use super::StoreError;
use crate::domain::{PageRequest, RecipientLookup, Tenant};

#[async_trait]
pub trait RecipientStore: Send + Sync + 'static {
    /// Whether the tenant may ask the recipient check, as set; `None` when never set (the
    /// environment's default applies). `NotFound` when there is no such tenant.
    async fn recipient_check_allowed(&self, tenant: &Tenant) -> Result<Option<bool>, StoreError>;

    /// Sets whether the tenant may ask the recipient check. `NotFound` when there is no such
    /// tenant.
    async fn set_recipient_check_allowed(&self, tenant: &Tenant, allowed: bool) -> Result<(), StoreError>;

    /// Counts one lookup against the tenant's `quota` for UTC day `day` (days since the epoch):
    /// `false`, counting nothing, when the quota is used up. One conditional statement, so
    /// lookups at once in several processes never pass it.
    async fn take_recipient_check(&self, tenant: &Tenant, day: i64, quota: i64) -> Result<bool, StoreError>;

    /// Records a lookup made.
    async fn record_lookup(&self, lookup: &RecipientLookup) -> Result<(), StoreError>;

    /// The tenant's lookups, newest first.
    async fn lookups(&self, tenant: &Tenant, page: &PageRequest) -> Result<Vec<RecipientLookup>, StoreError>;
}
