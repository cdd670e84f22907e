//! Steps that several write transactions share, as methods of the transaction: recording a
//! credential, applying a ledger entry to the balance, recording a state transition.

use std::future::Future;

use sqlx::{Encode, Executor, Transaction, Type};

use super::balance_locks::CREDIT_SLOT;
use super::{Column, RowsAffected, SqlDb};
use crate::domain::ledger::Posting;
use crate::domain::{Cause, Credential, Status, Tenant, Timestamp};
use crate::store::{names, rows, StoreError};

/// Writes made inside a caller's transaction, which commits or rolls them back with the rest.
pub(in crate::store) trait WriteSteps {
    fn insert_credential(&mut self, c: &Credential) -> impl Future<Output = Result<(), StoreError>> + Send;

    /// Writes a ledger entry and moves the balance with it: an entry that only credits goes to
    /// `credit_slot` when the batch holds one (`balance_locks`), any other to the balance row.
    /// `InsufficientFunds` when the move would take the available or reserved balance below
    /// zero (or the tenant has none).
    fn apply_entry(
        &mut self,
        tenant: &Tenant,
        transaction_id: Option<&str>,
        entry: &[Posting],
        at: Timestamp,
        credit_slot: Option<i64>,
    ) -> impl Future<Output = Result<(), StoreError>> + Send;

    /// The audit trail of a transaction's states.
    fn insert_transition(
        &mut self,
        transaction_id: &str,
        from: Option<Status>,
        to: Status,
        cause: Cause,
        detail: Option<&str>,
        at: Timestamp,
    ) -> impl Future<Output = Result<(), StoreError>> + Send;
}

impl<DB> WriteSteps for Transaction<'_, DB>
where
    DB: SqlDb,
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    for<'q> &'q str: Encode<'q, DB> + Type<DB>,
    for<'q> Option<&'q str>: Encode<'q, DB> + Type<DB>,
    String: Column<DB>,
    i64: Column<DB>,
{
    async fn insert_credential(&mut self, c: &Credential) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO credentials (id, merchant_id, environment, api_key, secret_hash, created_at) \
             VALUES ($1, $2, $3, $4, $5, $6)",
        )
        .bind(&c.id)
        .bind(&c.merchant_id.0)
        .bind(c.environment.as_str())
        .bind(&c.api_key)
        .bind(rows::hex_encode(&c.secret_hash))
        .bind(c.created_at.millis())
        .execute(&mut **self)
        .await?;
        Ok(())
    }

    async fn apply_entry(
        &mut self,
        tenant: &Tenant,
        transaction_id: Option<&str>,
        entry: &[Posting],
        at: Timestamp,
        credit_slot: Option<i64>,
    ) -> Result<(), StoreError> {
        if entry.is_empty() {
            return Ok(());
        }
        let (available, reserved) = crate::domain::ledger::balance_delta(entry);
        if let (Some(slot), true) = (credit_slot, crate::domain::ledger::only_credits(entry)) {
            sqlx::query(CREDIT_SLOT)
                .bind(&tenant.merchant_id.0)
                .bind(tenant.environment.as_str())
                .bind(slot)
                .bind(available)
                .execute(&mut **self)
                .await?;
        } else if available != 0 || reserved != 0 {
            let moved = sqlx::query(
                "UPDATE balances SET available = available + $1, reserved = reserved + $2 \
                 WHERE merchant_id = $3 AND environment = $4 AND available + $1 >= 0 AND reserved + $2 >= 0",
            )
            .bind(available)
            .bind(reserved)
            .bind(&tenant.merchant_id.0)
            .bind(tenant.environment.as_str())
            .execute(&mut **self)
            .await?;
            if moved.rows_affected() == 0 {
                return Err(StoreError::InsufficientFunds);
            }
        }
        // One statement for the whole entry: each statement is a round trip to the database
        // thread, and an entry has two or three postings.
        let entry_id = crate::domain::ids::new_record_id().to_string();
        let rows: Vec<String> = (0..entry.len())
            .map(|i| {
                let n = 6 + i * 3;
                format!("($1, $2, $3, $4, $5, ${}, ${}, ${})", n, n + 1, n + 2)
            })
            .collect();
        let sql = format!(
            "INSERT INTO ledger_postings \
             (entry_id, merchant_id, environment, transaction_id, created_at, id, account, amount) VALUES {}",
            rows.join(", ")
        );
        let mut query = sqlx::query(&sql)
            .bind(&entry_id)
            .bind(&tenant.merchant_id.0)
            .bind(tenant.environment.as_str())
            .bind(transaction_id)
            .bind(at.millis());
        for posting in entry {
            query = query
                .bind(crate::domain::ids::new_record_id().to_string())
                .bind(posting.account.as_str())
                .bind(posting.amount);
        }
        query.execute(&mut **self).await?;
        Ok(())
    }

    async fn insert_transition(
        &mut self,
        transaction_id: &str,
        from: Option<Status>,
        to: Status,
        cause: Cause,
        detail: Option<&str>,
        at: Timestamp,
    ) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO transaction_transitions (id, transaction_id, from_status, to_status, cause, detail, at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7)",
        )
        .bind(crate::domain::ids::new_record_id().to_string())
        .bind(transaction_id)
        .bind(from.map(names::status))
        .bind(names::status(to))
        .bind(names::cause(cause))
        .bind(detail)
        .bind(at.millis())
        .execute(&mut **self)
        .await?;
        Ok(())
    }
}
