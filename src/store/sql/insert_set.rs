//! The creations of a batch, set-based: one multi-row upsert of their payers, one multi-row
//! `INSERT … ON CONFLICT DO NOTHING RETURNING` of the transactions, one of their first
//! transitions, and one reservation per tenant with its postings. A batch of a hundred
//! `PENDING` collections is three statements instead of three hundred. The same SQL runs on
//! SQLite (3.35 and later) and PostgreSQL, with the rows in each one's form (`row_values`).
//!
//! It is the first pass of a batch and all or nothing: a transaction id that is already taken
//! (the `RETURNING` leaves it out) or a reservation that does not fit fails the pass, and the
//! batch runs again one savepoint per write, where the duplicate gets its own 409 and leaves
//! its payer as it was.

use std::collections::HashMap;

use sqlx::Transaction;

use super::balance_locks::BalancePlan;
use super::customers::{payer_row, PAYER_COLUMNS, PAYER_ON_CONFLICT};
use super::row_values::RowValues;
use super::set_steps::{insert_transitions, write_entries, EntryRow, TransitionRow, CHUNK};
use super::transaction_row::{transaction_row, INSERTED_COLUMNS};
use super::Get;
use super::SqlDb;
use super::{batch_steps, link_steps, refund_steps};
use crate::domain::ledger::Posting;
use crate::domain::{Cause, Customer, Status, Timestamp, Transaction as Payment};
use crate::store::{rows, StoreError};

/// A `PENDING` transaction to create.
pub(super) struct Creation<'a> {
    pub payer: &'a Customer,
    pub transaction: &'a Payment,
    pub entry: &'a [Posting],
    pub first_check: Timestamp,
}

/// A payer's key: (merchant, environment, phone).
pub(super) fn payer_key(c: &Customer) -> (&str, &str, &str) {
    (
        c.tenant.merchant_id.as_str(),
        c.tenant.environment.as_str(),
        c.phone.as_str(),
    )
}

/// Creates every one of `creations`, or none: each one's payer as stored.
pub(super) async fn insert_all<DB: SqlDb>(
    tx: &mut Transaction<'_, DB>,
    creations: &[Creation<'_>],
    plan: &BalancePlan,
) -> Result<Vec<Customer>, StoreError> {
    let payers = upsert_payers(tx, creations).await?;
    let mut customers = Vec::with_capacity(creations.len());
    for c in creations {
        let (merchant, environment, phone) = payer_key(c.payer);
        let stored = payers
            .get(&(merchant.to_owned(), environment.to_owned(), phone.to_owned()))
            .ok_or_else(|| StoreError::Corrupt("a payer's upsert returned no row".into()))?;
        customers.push(stored.clone());
    }
    for (chunk, chunk_customers) in creations.chunks(CHUNK).zip(customers.chunks(CHUNK)) {
        let mut values = RowValues::new(INSERTED_COLUMNS, chunk.len());
        for (c, customer) in chunk.iter().zip(chunk_customers) {
            transaction_row(&mut values, c.transaction, &customer.id, c.first_check);
        }
        let sql = values.insert_into::<DB>("transactions", "ON CONFLICT DO NOTHING RETURNING id");
        let inserted = values.bind(sqlx::query(&sql))?.fetch_all(DB::on(&mut **tx)).await?;
        if inserted.len() != chunk.len() {
            return Err(StoreError::Conflict {
                constraint: "a transaction id of the batch is taken".into(),
            });
        }
    }
    let transitions: Vec<TransitionRow> = creations
        .iter()
        .map(|c| TransitionRow {
            transaction_id: &c.transaction.id,
            from: None,
            to: Status::Pending,
            cause: Cause::Created,
            detail: None,
            at: c.transaction.created_at,
        })
        .collect();
    insert_transitions(tx, &transitions).await?;
    refund_steps::hold(tx, creations).await?;
    link_steps::hold(tx, creations).await?;
    batch_steps::hold(tx, creations).await?;
    let entries: Vec<EntryRow> = creations
        .iter()
        .filter(|c| !c.entry.is_empty())
        .map(|c| EntryRow {
            tenant: &c.transaction.tenant,
            transaction_id: Some(&c.transaction.id),
            at: c.transaction.created_at,
            entry: c.entry,
        })
        .collect();
    write_entries(tx, &entries, plan).await?;
    Ok(customers)
}

/// The payers, upserted as a lone creation upserts its own, by (merchant, environment, phone).
async fn upsert_payers<DB: SqlDb>(
    tx: &mut Transaction<'_, DB>,
    creations: &[Creation<'_>],
) -> Result<HashMap<(String, String, String), Customer>, StoreError> {
    let mut payers = HashMap::with_capacity(creations.len());
    // One row per payer, the last given: a statement may not upsert one row twice, and a payout
    // batch may pay one number twice.
    let mut last_of: HashMap<(&str, &str, &str), usize> = HashMap::with_capacity(creations.len());
    for (i, c) in creations.iter().enumerate() {
        last_of.insert(payer_key(c.payer), i);
    }
    let distinct: Vec<&Creation> = creations
        .iter()
        .enumerate()
        .filter(|(i, c)| last_of.get(&payer_key(c.payer)) == Some(i))
        .map(|(_, c)| c)
        .collect();
    for chunk in distinct.chunks(CHUNK) {
        let mut values = RowValues::new(PAYER_COLUMNS, chunk.len());
        for c in chunk {
            payer_row(&mut values, c.payer);
        }
        let sql = values.insert_into::<DB>("customers", &PAYER_ON_CONFLICT);
        for row in values.bind(sqlx::query(&sql))?.fetch_all(DB::on(&mut **tx)).await? {
            let customer = rows::customer(&row)?;
            let key = (
                customer.tenant.merchant_id.to_string(),
                customer.tenant.environment.as_str().to_owned(),
                row.col::<String>("phone")?,
            );
            payers.insert(key, customer);
        }
    }
    Ok(payers)
}
