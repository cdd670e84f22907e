//! The sweep of abandoned payout batches: a batch recorded item by item is sealed by its
//! request once every item is recorded, and only a sealed batch completes. A request that
//! ends first (the process killed, the HTTP timeout) leaves its batch unsealed; this sweep seals
//! it once it is older than any request may run (`Payouts::seal_abandoned`), so it completes
//! with its recorded transfers. The seal is conditional in the database: several processes
//! may sweep at once.

use super::Report;
use crate::domain::Timestamp;
use crate::service::payouts::Payouts;
use crate::service::ServiceError;

/// How often the sweep looks: abandoned batches are rare, and old by the time it finds them.
pub const SWEEP_EVERY: std::time::Duration = std::time::Duration::from_secs(60);

pub async fn run_once(payouts: &Payouts, now: Timestamp) -> Result<Report, ServiceError> {
    let sealed = payouts.seal_abandoned(now).await?;
    Ok(Report {
        examined: sealed.len(),
        settled: 0,
        unfinished: false,
    })
}
