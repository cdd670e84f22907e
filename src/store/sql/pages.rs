//! A tenant's records, newest first, one page at a time: the keyset read the lists of
//! records a merchant creates share (links, payout batches, recipient lookups).

use sqlx::Pool;

use super::{Args, SqlDb};
use crate::domain::{PageRequest, Tenant};
use crate::store::StoreError;

/// The tenant's rows of `from` (`"{columns} FROM {table}"`), newest first by the time column
/// `at` then by id, the page after `page.after`. The cursor compares the id only within its
/// own millisecond, and an empty id (the first page) compares none.
pub(super) async fn newest_first<DB: SqlDb, T>(
    pool: &Pool<DB>,
    from: &str,
    at: &str,
    tenant: &Tenant,
    page: &PageRequest,
    read: fn(&DB::Row) -> Result<T, StoreError>,
) -> Result<Vec<T>, StoreError> {
    let (after_at, after_id) = match &page.after {
        Some(c) => (c.created_at.millis(), c.id.clone()),
        None => (i64::MAX, String::new()),
    };
    let sql = format!(
        "SELECT {from} WHERE merchant_id = $1 AND environment = $2 \
           AND ({at} < $3 OR ({at} = $3 AND ($4 = '' OR id < $4))) \
         ORDER BY {at} DESC, id DESC LIMIT $5"
    );
    let rows = sqlx::query(&sql)
        .arg(tenant.merchant_id.as_str())
        .arg(tenant.environment.as_str())
        .arg(after_at)
        .arg(after_id)
        .arg(i64::from(page.limit))
        .fetch_all(DB::pool(pool))
        .await?;
    rows.iter().map(read).collect()
}
