//! Steps that several write transactions share, as methods of the transaction: recording a
//! credential. (Ledger entries and state transitions have one writer each, for one row or a
//! batch's set: `set_steps`.)

use std::future::Future;

use sqlx::Transaction;

use super::{Args, SqlDb};
use crate::domain::Credential;
use crate::store::{rows, StoreError};

/// Writes made inside a caller's transaction, which commits or rolls them back with the rest.
pub(in crate::store) trait WriteSteps {
    fn insert_credential(&mut self, c: &Credential) -> impl Future<Output = Result<(), StoreError>> + Send;
}

impl<DB: SqlDb> WriteSteps for Transaction<'_, DB> {
    async fn insert_credential(&mut self, c: &Credential) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO credentials (id, merchant_id, environment, api_key, secret_hash, created_at) \
             VALUES ($1, $2, $3, $4, $5, $6)",
        )
        .arg(&c.id)
        .arg(c.merchant_id.as_str())
        .arg(c.environment.as_str())
        .arg(&c.api_key)
        .arg(rows::hex_encode(&c.secret_hash))
        .arg(c.created_at.millis())
        .execute(DB::on(&mut **self))
        .await?;
        Ok(())
    }
}
