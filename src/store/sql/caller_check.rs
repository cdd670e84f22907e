//! The caller's credential, checked inside a batch's transaction: a creation made with a
//! revoked credential (or one that is no longer its tenant's) is refused with `Revoked`, by the
//! same commit that would have written it. So the request need not read its credential before
//! every payment, and a rotation still takes effect at once, in every process.

use std::collections::HashMap;

use sqlx::Transaction;

use super::{placeholders, SqlDb};
use super::{Args, Get};
use crate::domain::Tenant;
use crate::store::StoreError;

/// Each of `callers` (a credential id and the tenant it was used for) whose credential is
/// active and is that tenant's: one statement for a whole batch.
pub(super) async fn active_callers<DB: SqlDb>(
    tx: &mut Transaction<'_, DB>,
    callers: &[(&str, &Tenant)],
) -> Result<Vec<bool>, StoreError> {
    let mut ids: Vec<&str> = callers.iter().map(|(id, _)| *id).collect();
    ids.sort_unstable();
    ids.dedup();
    let mut active: HashMap<String, (String, String)> = HashMap::with_capacity(ids.len());
    // A batch holds at most MOMO_WRITE_BATCH_MAX (10,000) writes, under either database's limit
    // of parameters per statement (SQLite 32,766, PostgreSQL 65,535).
    let sql = format!(
        "SELECT id, merchant_id, environment FROM credentials WHERE revoked_at IS NULL AND id IN {}",
        placeholders::<DB>(1, ids.len())
    );
    let mut query = sqlx::query(&sql);
    for id in &ids {
        query = query.arg(id.to_string());
    }
    for row in query.fetch_all(DB::on(&mut **tx)).await? {
        active.insert(row.col("id")?, (row.col("merchant_id")?, row.col("environment")?));
    }
    Ok(callers
        .iter()
        .map(|(id, tenant)| {
            active.get(*id).is_some_and(|(merchant, environment)| {
                *merchant == tenant.merchant_id.as_str() && environment == tenant.environment.as_str()
            })
        })
        .collect())
}
