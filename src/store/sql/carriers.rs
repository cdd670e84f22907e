//! Which connector and token carry a pending payment, changed and read only by compare-and-set:
//! a fallback moves it from the carrier it was read with, a resend is claimed and "not
//! received" noted only on the carrier a status check asked (`PaymentStore::record_carrier`,
//! `claim_resend`, `missing_since`).

use super::{Args, Backend, Get, RowsAffected, SqlDb};
use crate::domain::{Carrier, Timestamp, TransactionKey};
use crate::store::{CarrierChange, Missing, StoreError};

/// The carrier a caller read, as a condition on a pending transaction's row: its connector
/// (`$3`) and token (`$4`), empty for none.
const CARRIED_AS: &str = "COALESCE(connector, '') = $3 AND COALESCE(operator_token, '') = $4";

/// The carrier of transaction `id` as its writer holds it now; `None` once it is final.
async fn carried_now<S: Backend<Db = DB>, DB: SqlDb>(
    store: &S,
    id: &TransactionKey,
) -> Result<Option<Carrier>, StoreError> {
    let row = sqlx::query("SELECT status, connector, operator_token FROM transactions WHERE id = $1")
        .arg(id)
        .fetch_optional(DB::pool(store.writer()))
        .await?;
    let Some(row) = row else { return Ok(None) };
    let status: String = row.col("status")?;
    if status != "PENDING" {
        return Ok(None);
    }
    Ok(Some(Carrier {
        connector: row.col("connector")?,
        token: row.col("operator_token")?,
    }))
}

pub(super) async fn claim_resend<S: Backend<Db = DB>, DB: SqlDb>(
    store: &S,
    transaction_id: &TransactionKey,
    read: &Carrier,
    at: Timestamp,
) -> Result<Missing<()>, StoreError> {
    let claimed = sqlx::query(&format!(
        "UPDATE transactions SET missing_since = $1 WHERE id = $2 AND missing_since IS NULL \
         AND status = 'PENDING' AND {CARRIED_AS}"
    ))
    .arg(at.millis())
    .arg(transaction_id)
    .arg(read.connector.as_deref().unwrap_or(""))
    .arg(read.token.as_deref().unwrap_or(""))
    .execute(DB::pool(store.writer()))
    .await?;
    if claimed.rows_affected() == 1 {
        return Ok(Missing::Marked(()));
    }
    Ok(match carried_now(store, transaction_id).await? {
        Some(now) if now != *read => Missing::Moved,
        _ => Missing::Spent,
    })
}

pub(super) async fn missing_since<S: Backend<Db = DB>, DB: SqlDb>(
    store: &S,
    transaction_id: &TransactionKey,
    read: &Carrier,
    at: Timestamp,
) -> Result<Missing<Timestamp>, StoreError> {
    let row = sqlx::query(&format!(
        "UPDATE transactions SET missing_since = COALESCE(missing_since, $1) \
         WHERE id = $2 AND status = 'PENDING' AND {CARRIED_AS} RETURNING missing_since"
    ))
    .arg(at.millis())
    .arg(transaction_id)
    .arg(read.connector.as_deref().unwrap_or(""))
    .arg(read.token.as_deref().unwrap_or(""))
    .fetch_optional(DB::pool(store.writer()))
    .await?;
    if let Some(row) = row {
        return Ok(Missing::Marked(Timestamp(row.col("missing_since")?)));
    }
    Ok(match carried_now(store, transaction_id).await? {
        Some(_) => Missing::Moved,
        None => Missing::Spent,
    })
}

pub(super) async fn record_carrier<S: Backend<Db = DB>, DB: SqlDb>(
    store: &S,
    transaction_id: &TransactionKey,
    change: CarrierChange<'_>,
) -> Result<bool, StoreError> {
    // A compare-and-set on the carrier: two senders never both move a payment.
    let recorded = sqlx::query(
        "UPDATE transactions SET connector = $1, operator_token = COALESCE($2, operator_token) \
         WHERE id = $3 AND status = 'PENDING' AND operator_token IS NULL \
         AND COALESCE(connector, '') = $4 AND ($1 = $4 OR missing_since IS NULL)",
    )
    .arg(change.connector)
    .arg(change.token)
    .arg(transaction_id)
    .arg(change.expected.unwrap_or(""))
    .execute(DB::pool(store.writer()))
    .await?;
    Ok(recorded.rows_affected() == 1)
}
