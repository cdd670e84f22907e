//! The multi-row statements that a batch's set-based writes share (`writer::settle`,
//! `writer::create`): transitions, balance moves and postings for many transactions at once.

use std::collections::BTreeMap;

use sqlx::Transaction;

use super::balance_locks::{BalancePlan, CREDIT_SLOT};
use super::row_values::ColumnType::{Int, Text};
use super::row_values::{Columns, RowValues};
use super::Args;
use super::{RowsAffected, SqlDb};
use crate::domain::ledger::{self, Posting};
use crate::domain::{Cause, Francs, Status, Tenant, Timestamp};
use crate::store::{names, StoreError};

/// Rows per statement: at most 23 binds a row, well under both databases' bind limits.
pub(super) const CHUNK: usize = 128;

const TRANSITION_COLUMNS: &Columns = &[
    ("id", Text),
    ("transaction_id", Text),
    ("from_status", Text),
    ("to_status", Text),
    ("cause", Text),
    ("detail", Text),
    ("at", Int),
];

const POSTING_COLUMNS: &Columns = &[
    ("entry_id", Text),
    ("merchant_id", Text),
    ("environment", Text),
    ("transaction_id", Text),
    ("created_at", Int),
    ("id", Text),
    ("account", Text),
    ("amount", Int),
];

/// A state change to record.
pub(super) struct TransitionRow<'a> {
    pub transaction_id: &'a str,
    pub from: Option<Status>,
    pub to: Status,
    pub cause: Cause,
    pub detail: Option<&'a str>,
    pub at: Timestamp,
}

/// A ledger entry to write and move its tenant's balance by: a transaction's, or a top-up's
/// (no transaction).
pub(in crate::store) struct EntryRow<'a> {
    pub tenant: &'a Tenant,
    pub transaction_id: Option<&'a str>,
    pub at: Timestamp,
    pub entry: &'a [Posting],
}

pub(super) async fn insert_transitions<DB: SqlDb>(
    tx: &mut Transaction<'_, DB>,
    rows: &[TransitionRow<'_>],
) -> Result<(), StoreError> {
    for chunk in rows.chunks(CHUNK) {
        let mut values = RowValues::new(TRANSITION_COLUMNS, chunk.len());
        for row in chunk {
            values
                .string(crate::domain::ids::new_record_id().to_string())
                .text(row.transaction_id)
                .text(row.from.map(names::status))
                .text(names::status(row.to))
                .text(names::cause(row.cause))
                .text(row.detail)
                .int(row.at.millis());
        }
        let sql = values.insert_into::<DB>("transaction_transitions", "");
        values.bind(sqlx::query(&sql))?.execute(DB::on(&mut **tx)).await?;
    }
    Ok(())
}

/// Writes `rows`' ledger entries and moves their tenants' balances by them: the one way a
/// posting is written, for a batch's set of transactions or a single top-up.
pub(in crate::store) async fn write_entries<DB: SqlDb>(
    tx: &mut Transaction<'_, DB>,
    rows: &[EntryRow<'_>],
    plan: &BalancePlan,
) -> Result<(), StoreError> {
    move_balances(tx, rows, plan).await?;
    insert_postings(tx, rows).await
}

/// One move per tenant: the sum of its entries. Every entry of one set moves its tenant's
/// balance the same way (settlements only add to the available balance or release a
/// reservation; creations only reserve), so the sum goes below zero when one of its steps
/// would, and `InsufficientFunds` sends the batch to the pass where each write stands alone.
async fn move_balances<DB: SqlDb>(
    tx: &mut Transaction<'_, DB>,
    rows: &[EntryRow<'_>],
    plan: &BalancePlan,
) -> Result<(), StoreError> {
    let mut moves: BTreeMap<(&str, &str), (Francs, Francs)> = BTreeMap::new();
    for row in rows {
        let (available, reserved) = ledger::balance_delta(row.entry);
        let sum = moves
            .entry((row.tenant.merchant_id.as_str(), row.tenant.environment.as_str()))
            .or_default();
        *sum = (sum.0 + available, sum.1 + reserved);
    }
    for ((merchant, environment), (available, reserved)) in moves {
        if available == Francs::ZERO && reserved == Francs::ZERO {
            continue;
        }
        match plan.credit_slot(merchant, environment) {
            // The plan gives a slot only to a tenant none of whose writes can debit.
            Some(slot) if reserved == Francs::ZERO && available.is_positive() => {
                sqlx::query(CREDIT_SLOT)
                    .arg(merchant)
                    .arg(environment)
                    .arg(slot)
                    .arg(available)
                    .execute(DB::on(&mut **tx))
                    .await?;
            }
            _ => {
                let changed = sqlx::query(
                    "UPDATE balances SET available = available + $1, reserved = reserved + $2 \
                     WHERE merchant_id = $3 AND environment = $4 AND available + $1 >= 0 AND reserved + $2 >= 0",
                )
                .arg(available)
                .arg(reserved)
                .arg(merchant)
                .arg(environment)
                .execute(DB::on(&mut **tx))
                .await?;
                if changed.rows_affected() == 0 {
                    return Err(StoreError::InsufficientFunds);
                }
            }
        }
    }
    Ok(())
}

async fn insert_postings<DB: SqlDb>(tx: &mut Transaction<'_, DB>, rows: &[EntryRow<'_>]) -> Result<(), StoreError> {
    let postings: Vec<(String, &EntryRow, &Posting)> = rows
        .iter()
        .flat_map(|row| {
            let entry_id = crate::domain::ids::new_record_id().to_string();
            row.entry.iter().map(move |p| (entry_id.clone(), row, p))
        })
        .collect();
    for chunk in postings.chunks(CHUNK) {
        let mut values = RowValues::new(POSTING_COLUMNS, chunk.len());
        for (entry_id, row, posting) in chunk {
            values
                .text(entry_id.as_str())
                .text(row.tenant.merchant_id.as_str())
                .text(row.tenant.environment.as_str())
                .text(row.transaction_id)
                .int(row.at.millis())
                .string(crate::domain::ids::new_record_id().to_string())
                .text(posting.account.as_str())
                .int(posting.amount.get());
        }
        let sql = values.insert_into::<DB>("ledger_postings", "");
        values.bind(sqlx::query(&sql))?.execute(DB::on(&mut **tx)).await?;
    }
    Ok(())
}
