//! A `PENDING` transaction created ([`Create`]), with its payer, its reservation and its first
//! check: the batch writers' creations, set-based: one multi-row upsert of their payers, one multi-row
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

use super::super::balance_locks::{BalancePlan, BalanceUse};
use super::super::caller_check::active_callers;
use super::super::customers::{payer_row, PAYER_COLUMNS, PAYER_ON_CONFLICT};
use super::super::kinds;
use super::super::row_values::RowValues;
use super::super::set_steps::{insert_transitions, write_entries, EntryRow, TransitionRow, CHUNK};
use super::super::transaction_row::{transaction_row, INSERTED_COLUMNS};
use super::super::{Get, SqlDb};
use super::item::{entry_use, payment_order, BatchItem};
use crate::domain::ledger::Posting;
use crate::domain::{Cause, Customer, Status, Tenant, Timestamp, Transaction as Payment};
use crate::store::handoff::EventLease;
use crate::store::{rows, StoreError};

/// A `PENDING` transaction to create, with its payer, its reservation and its first check.
#[derive(Debug)]
pub(in crate::store) struct Create {
    pub payer: Customer,
    pub transaction: Payment,
    pub entry: Vec<Posting>,
    pub first_check: Timestamp,
    /// The caller's credential, checked in the batch's transaction (`caller_check`); none for
    /// an in-process caller.
    pub credential_id: Option<String>,
}

impl BatchItem for Create {
    type Answer = Customer;

    fn tenant(&self) -> &Tenant {
        &self.transaction.tenant
    }

    fn order_key(&self) -> (&str, &str, &str, &str) {
        payment_order(&self.transaction)
    }

    fn balance_use(&self) -> Option<BalanceUse> {
        entry_use(&self.entry)
    }

    fn payer(&self) -> Option<(&str, &str, &str)> {
        Some(payer_key(&self.payer))
    }

    /// The creations' callers checked (`caller_check`: a revoked caller is rare, and the second
    /// pass refuses it alone), then the creations in one set; one set each when a payer comes
    /// twice, as each creation answers with its payer as its own upsert left it.
    async fn run_set<'a, DB: SqlDb>(
        items: &'a [Create],
        tx: &'a mut Transaction<'_, DB>,
        plan: &'a BalancePlan,
        _lease: Option<&'a EventLease>,
    ) -> Result<Vec<Customer>, StoreError> {
        let callers: Vec<(&str, &Tenant)> = items
            .iter()
            .filter_map(|c| Some((c.credential_id.as_deref()?, &c.transaction.tenant)))
            .collect();
        if !callers.is_empty() && active_callers(tx, &callers).await?.contains(&false) {
            return Err(StoreError::Revoked);
        }
        let creations: Vec<Creation> = items.iter().map(Create::creation).collect();
        let mut payers: Vec<(&str, &str, &str)> = items.iter().map(|c| payer_key(&c.payer)).collect();
        payers.sort_unstable();
        payers.dedup();
        if payers.len() == creations.len() {
            return insert_all(tx, &creations, plan).await;
        }
        let mut created = Vec::with_capacity(creations.len());
        for c in creations.chunks(1) {
            created.extend(insert_all(tx, c, plan).await?);
        }
        Ok(created)
    }
}

impl Create {
    fn creation(&self) -> Creation<'_> {
        Creation {
            payer: &self.payer,
            transaction: &self.transaction,
            entry: &self.entry,
            first_check: self.first_check,
        }
    }
}

/// A `PENDING` transaction to create, borrowed: a batch's [`Create`], or a payout batch's
/// transfer recorded in the batch's own transaction (`payouts`).
pub(in crate::store) struct Creation<'a> {
    pub payer: &'a Customer,
    pub transaction: &'a Payment,
    pub entry: &'a [Posting],
    pub first_check: Timestamp,
}

/// A payer's key: (merchant, environment, phone).
fn payer_key(c: &Customer) -> (&str, &str, &str) {
    (
        c.tenant.merchant_id.as_str(),
        c.tenant.environment.as_str(),
        c.phone.as_str(),
    )
}

/// Creates every one of `creations`, or none: each one's payer as stored.
pub(in crate::store) async fn insert_all<DB: SqlDb>(
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
        let mut values = RowValues::new(&INSERTED_COLUMNS, chunk.len());
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
    let created: Vec<&Payment> = creations.iter().map(|c| c.transaction).collect();
    kinds::hold(tx, &created).await?;
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
