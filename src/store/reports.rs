//! The reads behind the merchant's reports: the ledger statement and the settlement report.

use async_trait::async_trait;

use super::StoreError;
use crate::domain::{Day, PageRequest, PostingPage, ReportScope, SettlementRow, StatementFilter, Tenant};

/// Reports a merchant reconciles with. Each method is one statement, so what it reads is one
/// snapshot of the database on either backend.
#[async_trait]
pub trait ReportStore: Send + Sync + 'static {
    /// The tenant's postings on `available` and `reserved` within `filter`, in statement order
    /// (posting time, then id, ascending), after `page.after`, at most `page.limit`; with the
    /// balances that every earlier posting of the tenant adds up to (the page's opening).
    async fn ledger_postings(
        &self,
        tenant: &Tenant,
        filter: &StatementFilter,
        page: &PageRequest,
    ) -> Result<PostingPage, StoreError>;

    /// One row per operator, direction and status of the transactions of `scope` on `day`:
    /// final ones by the time of their final transition, pending ones by their creation.
    async fn settlement_rows(&self, scope: &ReportScope, day: Day) -> Result<Vec<SettlementRow>, StoreError>;
}
