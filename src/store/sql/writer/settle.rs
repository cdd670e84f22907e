//! A payment settled ([`Settlement`]): the batch writers' settlements, set-based: one `UPDATE … FROM (rows) RETURNING` moves every
//! transaction that is still `PENDING`, and one multi-row `INSERT` each writes their
//! transitions, postings and outbox events, with one balance move per tenant. A batch of a
//! hundred settlements is then six statements instead of five hundred, each of them a round
//! trip to the database (on SQLite, a hand-over to its thread). The same SQL runs on SQLite
//! (3.35 and later) and PostgreSQL, with the rows in each one's form (`row_values`).
//!
//! It is the first pass of a batch: anything that fails here (a balance that would go below
//! zero, which a settlement cannot cause when the ledger is sound) fails the pass, and the
//! batch runs again one savepoint per write, where each failure stays its own.

use std::collections::HashSet;

use sqlx::Transaction;

use super::super::balance_locks::{BalancePlan, BalanceUse};
use super::super::kinds;
use super::super::row_values::ColumnType::{Int, Text};
use super::super::row_values::{Columns, RowValues};
use super::super::set_steps::{insert_transitions, write_entries, EntryRow, TransitionRow, CHUNK};
use super::super::{Args, Get, SqlDb};
use super::item::{entry_use, payment_order, Answer, BatchItem};
use crate::domain::{Status, Tenant};
use crate::store::handoff::{EventLease, Reserved};
use crate::store::{names, Settlement, StoreError};

impl BatchItem for Settlement {
    type Answer = bool;

    const HANDS_OVER_EVENTS: bool = true;

    fn tenant(&self) -> &Tenant {
        &self.transaction.tenant
    }

    fn order_key(&self) -> (&str, &str, &str, &str) {
        payment_order(&self.transaction)
    }

    fn balance_use(&self) -> Option<BalanceUse> {
        entry_use(&self.entry)
    }

    /// The settlements in one set; one set each when a transaction is settled twice in the
    /// batch (a callback and a check crossing), as one set would not say which of the two
    /// moved it.
    async fn run_set<'a, DB: SqlDb>(
        items: &'a [Settlement],
        tx: &'a mut Transaction<'_, DB>,
        plan: &'a BalancePlan,
        lease: Option<&'a EventLease>,
    ) -> Result<Vec<bool>, StoreError> {
        let settlements: Vec<&Settlement> = items.iter().collect();
        let mut ids: Vec<&str> = settlements.iter().map(|s| s.transaction.id.as_str()).collect();
        ids.sort_unstable();
        ids.dedup();
        if ids.len() == settlements.len() {
            return settle_all(tx, &settlements, plan, lease).await;
        }
        let mut moved = Vec::with_capacity(settlements.len());
        for s in settlements.chunks(1) {
            moved.extend(settle_all(tx, s, plan, lease).await?);
        }
        Ok(moved)
    }

    /// A settlement that moved its payment wrote its event with the batch's lease.
    fn hand_over(self, answer: &Answer<bool>, handed: &mut Reserved<'_>) {
        if matches!(answer, Ok(true)) {
            handed.send(self.event_id, self.transaction.tenant, self.event_payload);
        }
    }
}

/// A settlement's new state, joined to its transaction by `id`, and the status it leaves
/// (`PENDING`), compared as a column rather than as a constant: a constant `status = 'PENDING'`
/// matches the partial indexes of pending transactions, and where the statistics have not yet
/// seen many of them (a payout batch just recorded, a table autovacuum has not analyzed) the
/// planner would read every pending transaction through one of those indexes and hash-join
/// them, instead of finding the batch's few by their primary key.
const SETTLED_COLUMNS: &Columns = &[
    ("id", Text),
    ("from_status", Text),
    ("status", Text),
    ("updated_at", Int),
    ("failure_code", Text),
    ("failure_reason", Text),
];

const EVENT_COLUMNS: &Columns = &[
    ("id", Text),
    ("merchant_id", Text),
    ("environment", Text),
    ("transaction_id", Text),
    ("to_status", Text),
    ("payload", Text),
    ("next_attempt_at", Int),
    ("created_at", Int),
    ("lease_until", Int),
    ("lease_token", Text),
];

/// Settles each of `settlements` (no transaction twice) that is still `PENDING`: `true` for
/// those it moved. Their events are written with `lease` when the dispatcher takes them
/// straight from the batch (`handoff`).
async fn settle_all<DB: SqlDb>(
    tx: &mut Transaction<'_, DB>,
    settlements: &[&Settlement],
    plan: &BalancePlan,
    lease: Option<&EventLease>,
) -> Result<Vec<bool>, StoreError> {
    let mut moved: HashSet<&str> = HashSet::with_capacity(settlements.len());
    for chunk in settlements.chunks(CHUNK) {
        let mut values = RowValues::joined(SETTLED_COLUMNS, chunk.len());
        for s in chunk {
            values
                .text(s.transaction.id.as_str())
                .text(names::status(Status::Pending))
                .text(names::status(s.outcome.status))
                .int(s.updated_at.map(|t| t.millis()))
                .text(s.outcome.code.map(names::failure_code))
                .text(s.outcome.reason.as_deref());
        }
        let sql = format!(
            "{} \
             UPDATE transactions SET status = v.status, updated_at = v.updated_at, \
             failure_code = v.failure_code, failure_reason = v.failure_reason, queued_at = NULL \
             FROM v WHERE transactions.id = v.id AND transactions.status = v.from_status \
             RETURNING transactions.id",
            values.as_v::<DB>()
        );
        for row in values.bind(sqlx::query(&sql))?.fetch_all(DB::on(&mut **tx)).await? {
            let id: String = row.col("id")?;
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
    let transitions: Vec<TransitionRow> = done
        .iter()
        .map(|s| TransitionRow {
            transaction_id: &s.transaction.id,
            from: Some(Status::Pending),
            to: s.outcome.status,
            cause: s.outcome.cause,
            detail: s.outcome.code.map(names::failure_code).or(s.outcome.reason.as_deref()),
            at: s.at,
        })
        .collect();
    insert_transitions(tx, &transitions).await?;
    let entries: Vec<EntryRow> = done
        .iter()
        .map(|s| EntryRow {
            tenant: &s.transaction.tenant,
            transaction_id: Some(&s.transaction.id),
            at: s.at,
            entry: &s.entry,
        })
        .collect();
    write_entries(tx, &entries, plan).await?;
    insert_events(tx, &done, lease).await?;
    kinds::settle(tx, &done).await?;
    insert_audits(tx, &done).await?;
    Ok(settlements
        .iter()
        .map(|s| moved.contains(s.transaction.id.as_str()))
        .collect())
}

/// The outbox events of `done`'s settlements, leased with `lease` when it is given (the
/// dispatcher takes them straight from the batch), else due at once for the claims.
async fn insert_events<DB: SqlDb>(
    tx: &mut Transaction<'_, DB>,
    done: &[&Settlement],
    lease: Option<&EventLease>,
) -> Result<(), StoreError> {
    let token = lease.map(|l| l.token.as_str());
    for chunk in done.chunks(CHUNK) {
        let mut values = RowValues::new(EVENT_COLUMNS, chunk.len());
        for s in chunk {
            let tenant = &s.transaction.tenant;
            values
                .text(s.event_id.as_str())
                .text(tenant.merchant_id.as_str())
                .text(tenant.environment.as_str())
                .text(s.transaction.id.as_str())
                .text(names::status(s.outcome.status))
                .text(s.event_payload.as_str())
                .int(lease.map_or(s.at, |l| l.until).millis())
                .int(s.at.millis())
                .int(lease.map(|l| l.until.millis()))
                .text(token);
        }
        let sql = values.insert_into::<DB>("outbox_events", "");
        values.bind(sqlx::query(&sql))?.execute(DB::on(&mut **tx)).await?;
    }
    Ok(())
}

/// The audit rows of `done`'s settlements that a person made (`transactions resolve`). They
/// are rare, so one statement each.
async fn insert_audits<DB: SqlDb>(tx: &mut Transaction<'_, DB>, done: &[&Settlement]) -> Result<(), StoreError> {
    for s in done {
        let Some(audit) = s.audit.as_deref() else { continue };
        sqlx::query("INSERT INTO admin_audit (id, action, transaction_id, detail, at) VALUES ($1, $2, $3, $4, $5)")
            .arg(crate::domain::ids::new_record_id().to_string())
            .arg("transactions resolve")
            .arg(s.transaction.id.as_str())
            .arg(audit)
            .arg(s.at.millis())
            .execute(DB::on(&mut **tx))
            .await?;
    }
    Ok(())
}
