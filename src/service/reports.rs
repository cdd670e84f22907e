//! The reports a merchant reconciles with: the ledger statement (postings with running
//! balances) and the daily settlement report. Rules in `domain::statement` and
//! `domain::settlement`; docs/reports.md for the merchant's side.

use std::sync::Arc;

use super::ServiceError;
use crate::domain::statement::statement_lines;
use crate::domain::{
    Day, MerchantId, PageRequest, ReportScope, SettlementReport, StatementFilter, StatementLine, Tenant, Timestamp,
};
use crate::store::{MerchantStore, ReportStore};

/// How many postings the command line reads at a time while it prints a whole statement.
const STATEMENT_BATCH: u32 = 1000;

/// The reports: the ledger's postings, and the merchants' names to know a merchant exists.
#[derive(Clone)]
pub struct Reports {
    store: Arc<dyn ReportStore>,
    merchants: Arc<dyn MerchantStore>,
}

impl Reports {
    pub(super) fn new(store: Arc<dyn ReportStore>, merchants: Arc<dyn MerchantStore>) -> Reports {
        Reports { store, merchants }
    }

    /// One page of the tenant's statement: at most `page.limit` lines after `page.after`, with
    /// running balances that count every earlier posting, on this page or not.
    pub async fn statement(
        &self,
        tenant: &Tenant,
        filter: &StatementFilter,
        page: &PageRequest,
    ) -> Result<Vec<StatementLine>, ServiceError> {
        let postings = self.store.ledger_postings(tenant, filter, page).await?;
        Ok(statement_lines(postings))
    }

    /// The tenant's whole statement within `filter` (the command line), read page by page.
    /// `NotFound` when the merchant does not exist.
    pub async fn full_statement(
        &self,
        tenant: &Tenant,
        filter: &StatementFilter,
    ) -> Result<Vec<StatementLine>, ServiceError> {
        self.known_merchant(&tenant.merchant_id).await?;
        let mut lines: Vec<StatementLine> = Vec::new();
        loop {
            let page = PageRequest {
                limit: STATEMENT_BATCH,
                after: lines.last().map(|l| l.posting.cursor()),
            };
            let batch = self.statement(tenant, filter, &page).await?;
            let done = batch.len() < STATEMENT_BATCH as usize;
            lines.extend(batch);
            if done {
                return Ok(lines);
            }
        }
    }

    /// The settlement report of `day` for `scope`, read at `now` (complete or not). `NotFound`
    /// when the scope names a merchant that does not exist (a report of nothing would look like
    /// a quiet day).
    pub async fn settlement_report(
        &self,
        scope: &ReportScope,
        day: Day,
        now: Timestamp,
    ) -> Result<SettlementReport, ServiceError> {
        if let Some(merchant) = &scope.merchant {
            self.known_merchant(merchant).await?;
        }
        let rows = self.store.settlement_rows(scope, day).await?;
        Ok(SettlementReport::new(day, scope.clone(), rows, now))
    }

    async fn known_merchant(&self, id: &MerchantId) -> Result<(), ServiceError> {
        match self.merchants.merchant_name(id).await? {
            Some(_) => Ok(()),
            None => Err(ServiceError::NotFound("merchant")),
        }
    }
}
