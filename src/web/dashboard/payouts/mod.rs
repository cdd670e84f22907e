//! Payout batches in the dashboard (docs/dashboard.md, docs/payouts.md): the tenant's batches
//! and the form that uploads a CSV (`list.rs`), the preview of what the file would pay and
//! refuse, with its confirmation (`preview.rs`), and a batch's page with its counts and its
//! transfers, which refreshes itself until the batch completes (`page.rs`). Everything goes
//! through the `Payouts` use cases, as the API's `/v1|v2/payout-batches` and `momo-gateway
//! payouts batch` do.

pub mod list;
pub mod page;
pub mod preview;

use crate::domain::{BatchStatus, PayoutBatch};

use super::i18n::Text;

/// `/dashboard/payouts/{id}`.
pub fn path(batch: &PayoutBatch) -> String {
    format!("/dashboard/payouts/{}", batch.id)
}

/// A batch's `data-status` and its words.
pub fn status(t: &Text, batch: &PayoutBatch) -> (&'static str, &'static str) {
    match batch.status() {
        BatchStatus::Processing => ("processing", t.batch_processing),
        BatchStatus::Completed => ("completed", t.batch_completed),
    }
}
