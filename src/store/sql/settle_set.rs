//! The settlements of a batch, set-based: one `UPDATE … FROM (VALUES …) RETURNING` moves every
//! transaction that is still `PENDING`, and one multi-row `INSERT` each writes their
//! transitions, postings and outbox events, with one balance move per tenant. A batch of a
//! hundred settlements is then six statements instead of five hundred, each of them a round
//! trip to the database (on SQLite, a hand-over to its thread). The same SQL runs on SQLite
//! (3.35 and later) and PostgreSQL.
//!
//! It is the first pass of a batch: anything that fails here (a balance that would go below
//! zero, which a settlement cannot cause when the ledger is sound) fails the pass, and the
//! batch runs again one savepoint per write, where each failure stays its own.

use std::collections::{BTreeMap, HashSet};

use sqlx::{ColumnIndex, Encode, Executor, Row, Transaction, Type};

use super::balance_locks::{BalancePlan, CREDIT_SLOT};
use super::{placeholders, Column, RowsAffected, SqlDb};
use crate::domain::ledger;
use crate::store::{names, Settlement, StoreError};

/// Rows per statement: at most 8 binds a row, well under both databases' bind limits.
const CHUNK: usize = 128;

/// Settles each of `settlements` (no transaction twice) that is still `PENDING`: `true` for
/// those it moved.
pub(super) async fn settle_all<DB>(
    tx: &mut Transaction<'_, DB>,
    settlements: &[&Settlement],
    plan: &BalancePlan,
) -> Result<Vec<bool>, StoreError>
where
    DB: SqlDb,
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    for<'q> &'q str: Encode<'q, DB> + Type<DB>,
    for<'q> Option<&'q str>: Encode<'q, DB> + Type<DB>,
    String: Column<DB>,
    i64: Column<DB>,
    Option<i64>: Column<DB>,
    &'static str: ColumnIndex<DB::Row>,
{
    let mut moved: HashSet<&str> = HashSet::with_capacity(settlements.len());
    for chunk in settlements.chunks(CHUNK) {
        let sql = format!(
            "WITH v(id, status, updated_at, failure_code, failure_reason) AS (VALUES {}) \
             UPDATE transactions SET status = v.status, updated_at = v.updated_at, \
             failure_code = v.failure_code, failure_reason = v.failure_reason \
             FROM v WHERE transactions.id = v.id AND transactions.status = 'PENDING' \
             RETURNING transactions.id",
            placeholders(chunk.len(), 5)
        );
        let mut query = sqlx::query(&sql);
        for s in chunk {
            query = query
                .bind(s.transaction.id.as_str())
                .bind(names::status(s.outcome.status))
                .bind(s.updated_at.map(|t| t.millis()))
                .bind(s.outcome.code.map(names::failure_code))
                .bind(s.outcome.reason.as_deref());
        }
        for row in query.fetch_all(&mut **tx).await? {
            let id: String = row.try_get("id")?;
            if let Some(s) = chunk.iter().find(|s| s.transaction.id == id) {
                moved.insert(s.transaction.id.as_str());
            }
        }
    }
    let done: Vec<&Settlement> = settlements
        .iter()
        .copied()
        .filter(|s| moved.contains(s.transaction.id.as_str()))
        .collect();
    insert_transitions(tx, &done).await?;
    move_balances(tx, &done, plan).await?;
    insert_postings(tx, &done).await?;
    insert_events(tx, &done).await?;
    for s in done.iter().filter(|s| s.audit.is_some()) {
        sqlx::query("INSERT INTO admin_audit (id, action, transaction_id, detail, at) VALUES ($1, $2, $3, $4, $5)")
            .bind(uuid::Uuid::new_v4().to_string())
            .bind("transactions resolve")
            .bind(s.transaction.id.as_str())
            .bind(s.audit.as_deref())
            .bind(s.at.millis())
            .execute(&mut **tx)
            .await?;
    }
    Ok(settlements
        .iter()
        .map(|s| moved.contains(s.transaction.id.as_str()))
        .collect())
}

async fn insert_transitions<DB>(tx: &mut Transaction<'_, DB>, done: &[&Settlement]) -> Result<(), StoreError>
where
    DB: SqlDb,
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    for<'q> &'q str: Encode<'q, DB> + Type<DB>,
    for<'q> Option<&'q str>: Encode<'q, DB> + Type<DB>,
    String: Column<DB>,
    i64: Column<DB>,
{
    for chunk in done.chunks(CHUNK) {
        let sql = format!(
            "INSERT INTO transaction_transitions (id, transaction_id, from_status, to_status, cause, detail, at) \
             VALUES {}",
            placeholders(chunk.len(), 7)
        );
        let mut query = sqlx::query(&sql);
        for s in chunk {
            let detail = s.outcome.code.map(names::failure_code).or(s.outcome.reason.as_deref());
            query = query
                .bind(uuid::Uuid::new_v4().to_string())
                .bind(s.transaction.id.as_str())
                .bind(names::status(crate::domain::Status::Pending))
                .bind(names::status(s.outcome.status))
                .bind(names::cause(s.outcome.cause))
                .bind(detail)
                .bind(s.at.millis());
        }
        query.execute(&mut **tx).await?;
    }
    Ok(())
}

/// One move per tenant: the sum of its settlements' entries. A settlement only adds to the
/// available balance or releases a reservation, so the sum is below zero exactly when one of
/// its steps would be.
async fn move_balances<DB>(
    tx: &mut Transaction<'_, DB>,
    done: &[&Settlement],
    plan: &BalancePlan,
) -> Result<(), StoreError>
where
    DB: SqlDb,
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    for<'q> &'q str: Encode<'q, DB> + Type<DB>,
    i64: Column<DB>,
{
    let mut moves: BTreeMap<(&str, &str), (i64, i64)> = BTreeMap::new();
    for s in done {
        let (available, reserved) = ledger::balance_delta(&s.entry);
        let tenant = &s.transaction.tenant;
        let sum = moves
            .entry((tenant.merchant_id.0.as_str(), tenant.environment.as_str()))
            .or_default();
        *sum = (sum.0 + available, sum.1 + reserved);
    }
    for ((merchant, environment), (available, reserved)) in moves {
        if available == 0 && reserved == 0 {
            continue;
        }
        match plan.credit_slot(merchant, environment) {
            // The plan gives a slot only to a tenant none of whose writes can debit.
            Some(slot) if reserved == 0 && available > 0 => {
                sqlx::query(CREDIT_SLOT)
                    .bind(merchant)
                    .bind(environment)
                    .bind(slot)
                    .bind(available)
                    .execute(&mut **tx)
                    .await?;
            }
            _ => {
                let changed = sqlx::query(
                    "UPDATE balances SET available = available + $1, reserved = reserved + $2 \
                     WHERE merchant_id = $3 AND environment = $4 AND available + $1 >= 0 AND reserved + $2 >= 0",
                )
                .bind(available)
                .bind(reserved)
                .bind(merchant)
                .bind(environment)
                .execute(&mut **tx)
                .await?;
                if changed.rows_affected() == 0 {
                    return Err(StoreError::InsufficientFunds);
                }
            }
        }
    }
    Ok(())
}

async fn insert_postings<DB>(tx: &mut Transaction<'_, DB>, done: &[&Settlement]) -> Result<(), StoreError>
where
    DB: SqlDb,
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    for<'q> &'q str: Encode<'q, DB> + Type<DB>,
    String: Column<DB>,
    i64: Column<DB>,
{
    let rows: Vec<(String, &Settlement, &ledger::Posting)> = done
        .iter()
        .flat_map(|s| {
            let entry_id = uuid::Uuid::new_v4().to_string();
            s.entry.iter().map(move |p| (entry_id.clone(), *s, p))
        })
        .collect();
    for chunk in rows.chunks(CHUNK) {
        let sql = format!(
            "INSERT INTO ledger_postings \
             (entry_id, merchant_id, environment, transaction_id, created_at, id, account, amount) VALUES {}",
            placeholders(chunk.len(), 8)
        );
        let mut query = sqlx::query(&sql);
        for (entry_id, s, posting) in chunk {
            let tenant = &s.transaction.tenant;
            query = query
                .bind(entry_id.as_str())
                .bind(tenant.merchant_id.0.as_str())
                .bind(tenant.environment.as_str())
                .bind(s.transaction.id.as_str())
                .bind(s.at.millis())
                .bind(uuid::Uuid::new_v4().to_string())
                .bind(posting.account.as_str())
                .bind(posting.amount);
        }
        query.execute(&mut **tx).await?;
    }
    Ok(())
}

async fn insert_events<DB>(tx: &mut Transaction<'_, DB>, done: &[&Settlement]) -> Result<(), StoreError>
where
    DB: SqlDb,
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    for<'q> &'q str: Encode<'q, DB> + Type<DB>,
    String: Column<DB>,
    i64: Column<DB>,
{
    for chunk in done.chunks(CHUNK) {
        let sql = format!(
            "INSERT INTO outbox_events (id, merchant_id, environment, transaction_id, to_status, payload, \
             next_attempt_at, created_at) VALUES {}",
            placeholders(chunk.len(), 8)
        );
        let mut query = sqlx::query(&sql);
        for s in chunk {
            let tenant = &s.transaction.tenant;
            query = query
                .bind(s.event_id.as_str())
                .bind(tenant.merchant_id.0.as_str())
                .bind(tenant.environment.as_str())
                .bind(s.transaction.id.as_str())
                .bind(names::status(s.outcome.status))
                .bind(s.event_payload.as_str())
                .bind(s.at.millis())
                .bind(s.at.millis());
        }
        query.execute(&mut **tx).await?;
    }
    Ok(())
}
