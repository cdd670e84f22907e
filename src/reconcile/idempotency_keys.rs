//! The purge of expired idempotency keys (`MOMO_IDEMPOTENCY_KEY_TTL_S` after their first
//! request): batches of deletes through the index on `expires_at`, so a day of keys never
//! becomes one long statement. Several processes may purge at once: on PostgreSQL each skips
//! the rows another is deleting.

use super::Report;
use crate::domain::Timestamp;
use crate::service::{Idempotency, ServiceError};

/// How often the server purges: a claim already treats an expired key as free, so
/// the purge only keeps the table small.
pub const PURGE_EVERY: std::time::Duration = std::time::Duration::from_secs(60);

/// Deletes every key expired at `now`. The report's `examined` counts the keys deleted; it
/// settles nothing.
pub async fn run_once(idempotency: &Idempotency, now: Timestamp) -> Result<Report, ServiceError> {
    let purged = idempotency.purge_idempotency_keys(now).await?;
    if purged > 0 {
        tracing::debug!(purged, "expired idempotency keys purged");
    }
    Ok(Report {
        examined: usize::try_from(purged).unwrap_or(usize::MAX),
        settled: 0,
        unfinished: false,
    })
}
