//! The batched lookup on SQLite: the lookups as one JSON array, one `json_each` row each, on
//! the store's pool of readers.

use std::sync::LazyLock;

use async_trait::async_trait;
use sqlx::SqlitePool;

use super::{answers, BatchRead, BatchResult, Lookup};
use crate::store::sql::transactions::TRANSACTION_COLUMNS;
use crate::store::StoreError;

/// One row per lookup, `n` its position in the array (from 1); each element of the array is
/// `[merchant_id, environment, id_or_ref, credential_id]`. Per lookup: the credential by its
/// key, then the transaction by the tenant's transaction id or else by reference (each a probe
/// of its unique index; `COALESCE` asks for the reference only when the id found nothing), with
/// its customer by key. The left joins give every lookup its row.
static BATCH_LOOKUP: LazyLock<String> = LazyLock::new(|| {
    let columns = TRANSACTION_COLUMNS.as_str();
    format!(
        "SELECT q.key + 1 AS n, \
           (SELECT cr.revoked_at IS NULL AND cr.merchant_id = q.value ->> 0 AND cr.environment = q.value ->> 1 \
              FROM credentials cr WHERE cr.id = q.value ->> 3) AS credential_active, \
           {columns} \
         FROM json_each(?) AS q \
         LEFT JOIN transactions t ON t.id = COALESCE( \
           (SELECT id FROM transactions \
             WHERE merchant_id = q.value ->> 0 AND environment = q.value ->> 1 AND transaction_id = q.value ->> 2), \
           (SELECT id FROM transactions \
             WHERE merchant_id = q.value ->> 0 AND environment = q.value ->> 1 AND ref = q.value ->> 2)) \
         LEFT JOIN customers c ON c.id = t.customer_id"
    )
});

pub(super) struct SqliteBatchRead {
    pub pool: SqlitePool,
}

#[async_trait]
impl BatchRead for SqliteBatchRead {
    async fn read(&self, lookups: &[Lookup]) -> BatchResult {
        let array: Vec<[&str; 4]> = lookups
            .iter()
            .map(|l| {
                [
                    l.tenant.merchant_id.as_str(),
                    l.tenant.environment.as_str(),
                    l.id_or_ref.as_str(),
                    l.credential_id.as_str(),
                ]
            })
            .collect();
        let array = serde_json::to_string(&array)
            .map_err(|e| StoreError::Refused(format!("a lookup batch could not be written as JSON: {e}")))?;
        let found = sqlx::query(&BATCH_LOOKUP).bind(array).fetch_all(&self.pool).await?;
        answers(lookups.len(), &found)
    }

    /// The pool of readers is the store's: the store closes it.
    async fn close(&self) {}
}
