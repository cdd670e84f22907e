//! The `PaymentStore` methods for every [`Backend`]. Every state change is one database
//! transaction; races are settled by the `transactions` unique key and by `UPDATE ... WHERE
//! status = 'PENDING'`, overdrafts by a conditional balance update.

use sqlx::{ColumnIndex, Encode, Executor, Row, Type};

use super::customers::{payer_row, PAYER_COLUMNS, PAYER_ON_CONFLICT};
use super::row_values::{ColumnType, Columns, RowValues};
use super::settle_set::{insert_audits, insert_events};
use super::steps::WriteSteps;
use super::transactions::{self, Bind};
use super::writes::{Write, Written};
use super::{Backend, Column, RowsAffected, SqlDb};
use crate::domain::ledger::Posting;
use crate::domain::{Cause, Cursor, Customer, Kind, PageRequest, Status, Tenant, Timestamp, Transaction};
use crate::store::handoff::EventLease;
use crate::store::lookup_batch::Lookup;
use crate::store::names;
use crate::store::{
    rows, Balance, CheckedLookup, LedgerCheck, PaymentStore, ProcessStoreStats, Settlement, StoreError, StoreStats,
    TransactionFilter, TransactionRecord,
};

#[async_trait::async_trait]
impl<S, DB> PaymentStore for S
where
    S: Backend<Db = DB>,
    DB: SqlDb,
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    for<'q> &'q str: Encode<'q, DB> + Type<DB>,
    for<'q> Option<&'q str>: Encode<'q, DB> + Type<DB>,
    String: Column<DB>,
    i64: Column<DB>,
    Option<i64>: Column<DB>,
    &'static str: ColumnIndex<DB::Row>,
{
    async fn insert_pending(
        &self,
        payer: &Customer,
        t: &Transaction,
        entry: &[Posting],
        first_check: Timestamp,
        credential_id: Option<&str>,
    ) -> Result<Customer, StoreError> {
        let write = Write::InsertPending {
            payer: Box::new(payer.clone()),
            transaction: Box::new(t.clone()),
            entry: entry.to_vec(),
            first_check,
            credential_id: credential_id.map(str::to_owned),
        };
        match self.batcher().write(write).await? {
            Written::Inserted(customer) => Ok(*customer),
            Written::Settled(_) | Written::Key(_) | Written::Claim(_) => Err(StoreError::Corrupt(
                "the writer answered an insert with a settlement".into(),
            )),
        }
    }

    async fn settle(&self, s: &Settlement) -> Result<bool, StoreError> {
        crate::domain::transaction::check_transition(Status::Pending, s.outcome.status)
            .map_err(|e| StoreError::Corrupt(e.to_string()))?;
        match self.batcher().write(Write::Settle(Box::new(s.clone()))).await? {
            Written::Settled(changed) => Ok(changed),
            Written::Inserted(_) | Written::Key(_) | Written::Claim(_) => Err(StoreError::Corrupt(
                "the writer answered a settlement with an insert".into(),
            )),
        }
    }

    async fn transaction(&self, tenant: &Tenant, id_or_ref: &str) -> Result<Option<TransactionRecord>, StoreError> {
        // Two indexed lookups, the merchant's id first: an OR of the two columns would
        // keep PostgreSQL from using either unique index.
        for column in ["transaction_id", "ref"] {
            let sql = format!(
                "{} WHERE t.merchant_id = $1 AND t.environment = $2 AND t.{column} = $3",
                transactions::TRANSACTION_SELECT
            );
            let row = sqlx::query(&sql)
                .bind(&tenant.merchant_id.0)
                .bind(tenant.environment.as_str())
                .bind(id_or_ref)
                .fetch_optional(self.reader())
                .await?;
            if let Some(row) = row {
                return rows::transaction_record(&row).map(Some);
            }
        }
        Ok(None)
    }

    async fn transaction_checked(
        &self,
        tenant: &Tenant,
        credential_id: &str,
        id_or_ref: &str,
    ) -> Result<CheckedLookup, StoreError> {
        let lookup = Lookup {
            tenant: tenant.clone(),
            credential_id: credential_id.to_owned(),
            id_or_ref: id_or_ref.to_owned(),
        };
        self.lookups().lookup(lookup).await
    }

    async fn transaction_by_ref(&self, reference: &str) -> Result<Option<TransactionRecord>, StoreError> {
        let sql = format!("{} WHERE t.ref = $1", transactions::TRANSACTION_SELECT);
        let row = sqlx::query(&sql).bind(reference).fetch_optional(self.reader()).await?;
        row.as_ref().map(rows::transaction_record).transpose()
    }

    async fn claim_resend(&self, transaction_id: &str, at: Timestamp) -> Result<bool, StoreError> {
        let claimed = sqlx::query(
            "UPDATE transactions SET resent_at = $1 WHERE id = $2 AND resent_at IS NULL AND status = 'PENDING'",
        )
        .bind(at.millis())
        .bind(transaction_id)
        .execute(self.writer())
        .await?;
        Ok(claimed.rows_affected() == 1)
    }

    async fn set_launch_url(&self, transaction_id: &str, url: &str) -> Result<(), StoreError> {
        sqlx::query("UPDATE transactions SET launch_url = $1 WHERE id = $2")
            .bind(url)
            .bind(transaction_id)
            .execute(self.writer())
            .await?;
        Ok(())
    }

    async fn transaction_by_checkout_token(&self, token: &str) -> Result<Option<TransactionRecord>, StoreError> {
        let sql = format!("{} WHERE t.checkout_token = $1", transactions::TRANSACTION_SELECT);
        let row = sqlx::query(&sql).bind(token).fetch_optional(self.reader()).await?;
        row.as_ref().map(rows::transaction_record).transpose()
    }

    async fn transactions(
        &self,
        tenant: &Tenant,
        filter: &TransactionFilter,
        page: &PageRequest,
    ) -> Result<Vec<TransactionRecord>, StoreError> {
        let (conditions, binds) = transactions::list_conditions(filter, page);
        let sql = format!(
            "{}{conditions} ORDER BY t.created_at DESC, t.id DESC LIMIT {}",
            transactions::TRANSACTION_SELECT,
            page.limit
        );
        let mut query = sqlx::query(&sql)
            .bind(&tenant.merchant_id.0)
            .bind(tenant.environment.as_str());
        for bind in binds {
            query = match bind {
                Bind::Text(text) => query.bind(text),
                Bind::Int(int) => query.bind(int),
            };
        }
        let rows = query.fetch_all(self.reader()).await?;
        rows.iter().map(rows::transaction_record).collect()
    }

    async fn pending_transactions(
        &self,
        created_before: Timestamp,
        kind: Option<Kind>,
        after: Option<&Cursor>,
        limit: u32,
    ) -> Result<Vec<TransactionRecord>, StoreError> {
        let sql = format!(
            "{} WHERE t.status = 'PENDING' AND t.created_at <= $1 AND ($2 = '' OR t.kind = $2) \
             AND (t.created_at, t.id) > ($3, $4) \
             ORDER BY t.created_at, t.id LIMIT {limit}",
            transactions::TRANSACTION_SELECT
        );
        let rows = sqlx::query(&sql)
            .bind(created_before.millis())
            .bind(kind.map(names::kind).unwrap_or(""))
            .bind(after.map(|c| c.created_at.millis()).unwrap_or(i64::MIN))
            .bind(after.map(|c| c.id.as_str()).unwrap_or(""))
            .fetch_all(self.reader())
            .await?;
        rows.iter().map(rows::transaction_record).collect()
    }

    async fn claim_due_checks(
        &self,
        now: Timestamp,
        created_before: Timestamp,
        kind: Option<Kind>,
        lease_until: Timestamp,
        limit: u32,
    ) -> Result<Vec<TransactionRecord>, StoreError> {
        let token = uuid::Uuid::new_v4().to_string();
        let claimed = sqlx::query(S::CLAIM_DUE_CHECKS)
            .bind(lease_until.millis())
            .bind(&token)
            .bind(created_before.millis())
            .bind(now.millis())
            .bind(limit as i64)
            .bind(kind.map(names::kind).unwrap_or(""))
            .execute(self.writer())
            .await?;
        if claimed.rows_affected() == 0 {
            return Ok(Vec::new());
        }
        let sql = format!(
            "{} WHERE t.check_token = $1 ORDER BY t.created_at, t.id",
            transactions::TRANSACTION_SELECT
        );
        // From the writer: the claim just committed there.
        let rows = sqlx::query(&sql).bind(&token).fetch_all(self.writer()).await?;
        rows.iter().map(rows::transaction_record).collect()
    }

    async fn schedule_check(&self, transaction_id: &str, at: Timestamp) -> Result<(), StoreError> {
        sqlx::query("UPDATE transactions SET next_check_at = $1 WHERE id = $2 AND status = 'PENDING'")
            .bind(at.millis())
            .bind(transaction_id)
            .execute(self.writer())
            .await?;
        Ok(())
    }

    async fn balance(&self, tenant: &Tenant) -> Result<Balance, StoreError> {
        let row = sqlx::query(
            "SELECT b.available + (SELECT CAST(COALESCE(SUM(c.amount), 0) AS BIGINT) FROM balance_credits c \
             WHERE c.merchant_id = b.merchant_id AND c.environment = b.environment) AS available, b.reserved \
             FROM balances b WHERE b.merchant_id = $1 AND b.environment = $2",
        )
        .bind(&tenant.merchant_id.0)
        .bind(tenant.environment.as_str())
        .fetch_optional(self.reader())
        .await?
        .ok_or(StoreError::NotFound)?;
        Ok(Balance {
            available: row.try_get("available")?,
            reserved: row.try_get("reserved")?,
        })
    }

    async fn credit(&self, tenant: &Tenant, amount: i64, at: Timestamp) -> Result<(), StoreError> {
        let mut tx = self.writer().begin().await?;
        // A credit cannot overdraw, so a balance update that matches no row means the
        // tenant has no balance at all: it does not exist.
        tx.apply_entry(tenant, None, &crate::domain::ledger::credit(amount), at, None)
            .await
            .map_err(|e| match e {
                StoreError::InsufficientFunds => StoreError::NotFound,
                other => other,
            })?;
        tx.commit().await?;
        Ok(())
    }

    async fn stats(&self, review_before: Timestamp) -> Result<StoreStats, StoreError> {
        let pending = sqlx::query(
            "SELECT COUNT(*) AS n, COALESCE(MIN(created_at), 0) AS oldest FROM transactions WHERE status = 'PENDING'",
        )
        .fetch_one(self.reader())
        .await?;
        let review = sqlx::query(
            "SELECT COUNT(*) AS n FROM transactions \
             WHERE status = 'PENDING' AND kind = 'transfer' AND created_at <= $1",
        )
        .bind(review_before.millis())
        .fetch_one(self.reader())
        .await?;
        let outbox = sqlx::query(
            "SELECT COUNT(*) AS n, COALESCE(MIN(created_at), 0) AS oldest FROM outbox_events WHERE state = 'pending'",
        )
        .fetch_one(self.reader())
        .await?;
        let count = |row: &DB::Row| -> Result<(i64, Option<Timestamp>), StoreError> {
            let n: i64 = row.try_get("n")?;
            let oldest: i64 = row.try_get("oldest")?;
            Ok((n, (n > 0).then_some(Timestamp(oldest))))
        };
        let (pending_transactions, oldest_pending) = count(&pending)?;
        let (outbox_backlog, oldest_outbox) = count(&outbox)?;
        Ok(StoreStats {
            pending_transactions,
            oldest_pending,
            transfers_needing_review: review.try_get("n")?,
            outbox_backlog,
            oldest_outbox,
        })
    }

    fn process_stats(&self) -> ProcessStoreStats {
        let (pool_size, pool_idle) = self.pool_stats();
        ProcessStoreStats {
            pool_size,
            pool_idle,
            writes: self.batcher().stats(),
        }
    }

    async fn check_ledger(&self) -> Result<LedgerCheck, StoreError> {
        let sum = sqlx::query("SELECT CAST(COALESCE(SUM(amount), 0) AS BIGINT) AS total FROM ledger_postings")
            .fetch_one(self.reader())
            .await?;
        let inconsistent = sqlx::query(
            "SELECT COUNT(*) AS n FROM balances b WHERE b.available < 0 OR b.reserved < 0 \
             OR b.available + (SELECT CAST(COALESCE(SUM(c.amount), 0) AS BIGINT) FROM balance_credits c \
             WHERE c.merchant_id = b.merchant_id AND c.environment = b.environment) <> (SELECT CAST(COALESCE(SUM(p.amount), 0) AS BIGINT) FROM ledger_postings p \
             WHERE p.merchant_id = b.merchant_id AND p.environment = b.environment AND p.account = 'available') \
             OR b.reserved <> (SELECT CAST(COALESCE(SUM(p.amount), 0) AS BIGINT) FROM ledger_postings p \
             WHERE p.merchant_id = b.merchant_id AND p.environment = b.environment AND p.account = 'reserved')",
        )
        .fetch_one(self.reader())
        .await?;
        let events = sqlx::query(
            "SELECT COUNT(*) AS n FROM transactions t WHERE \
             (t.status <> 'PENDING' AND (SELECT COUNT(*) FROM outbox_events e WHERE e.transaction_id = t.id) <> 1) \
             OR (t.status = 'PENDING' AND EXISTS (SELECT 1 FROM outbox_events e WHERE e.transaction_id = t.id))",
        )
        .fetch_one(self.reader())
        .await?;
        Ok(LedgerCheck {
            postings_sum: sum.try_get("total")?,
            inconsistent_balances: inconsistent.try_get("n")?,
            final_without_one_event: events.try_get("n")?,
        })
    }
}

/// Inserts a `PENDING` transaction with its payer, first transition and reservation, inside
/// the caller's transaction (a batch's savepoint).
pub(super) async fn insert_pending_in<DB>(
    tx: &mut sqlx::Transaction<'_, DB>,
    payer: &Customer,
    t: &Transaction,
    entry: &[Posting],
    first_check: Timestamp,
    credit_slot: Option<i64>,
) -> Result<Customer, StoreError>
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
    let mut values = RowValues::new(PAYER_COLUMNS, 1);
    payer_row(&mut values, payer);
    let upsert = values.insert_into::<DB>("customers", &PAYER_ON_CONFLICT);
    let row = values.bind(sqlx::query(&upsert))?.fetch_one(&mut **tx).await?;
    let customer = rows::customer(&row)?;
    let mut values = RowValues::new(INSERTED_COLUMNS, 1);
    transaction_row(&mut values, t, &customer.id, first_check);
    let sql = values.insert_into::<DB>("transactions", "");
    values.bind(sqlx::query(&sql))?.execute(&mut **tx).await?;
    tx.insert_transition(&t.id, None, Status::Pending, Cause::Created, None, t.created_at)
        .await?;
    tx.apply_entry(&t.tenant, Some(&t.id), entry, t.created_at, credit_slot)
        .await?;
    Ok(customer)
}

/// Moves a `PENDING` transaction to its final state with its transition, postings, outbox
/// event and audit, inside the caller's transaction; `false` when it was no longer pending.
/// The event is written with `lease` when the dispatcher takes it straight from the batch
/// (`handoff`).
pub(super) async fn settle_in<DB>(
    tx: &mut sqlx::Transaction<'_, DB>,
    s: &Settlement,
    credit_slot: Option<i64>,
    lease: Option<&EventLease>,
) -> Result<bool, StoreError>
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
    let t = &s.transaction;
    let changed = sqlx::query(
        "UPDATE transactions SET status = $1, updated_at = $2, failure_code = $3, failure_reason = $4 \
             WHERE id = $5 AND status = 'PENDING'",
    )
    .bind(names::status(s.outcome.status))
    .bind(s.updated_at.map(|t| t.millis()))
    .bind(s.outcome.code.map(names::failure_code))
    .bind(s.outcome.reason.as_deref())
    .bind(&t.id)
    .execute(&mut **tx)
    .await?;
    if changed.rows_affected() == 0 {
        return Ok(false);
    }
    let detail = s.outcome.code.map(names::failure_code).or(s.outcome.reason.as_deref());
    tx.insert_transition(
        &t.id,
        Some(Status::Pending),
        s.outcome.status,
        s.outcome.cause,
        detail,
        s.at,
    )
    .await?;
    tx.apply_entry(&t.tenant, Some(&t.id), &s.entry, s.at, credit_slot)
        .await?;
    insert_events(tx, &[s], lease).await?;
    insert_audits(tx, &[s]).await?;
    Ok(true)
}

/// The columns a creation writes, in `transaction_row` order.
pub(super) const INSERTED_COLUMNS: &Columns = {
    use ColumnType::{Int, Text};
    &[
        ("id", Text),
        ("ref", Text),
        ("merchant_id", Text),
        ("environment", Text),
        ("transaction_id", Text),
        ("kind", Text),
        ("operator", Text),
        ("phone", Text),
        ("phone_as_sent", Text),
        ("amount", Int),
        ("fees", Int),
        ("amount_receive", Int),
        ("amount_total", Int),
        ("status", Text),
        ("customer_id", Text),
        ("name", Text),
        ("email", Text),
        ("success_url", Text),
        ("error_url", Text),
        ("created_at", Int),
        ("checkout_token", Text),
        ("next_check_at", Int),
        ("operator_alias", Text),
    ]
};

/// A new transaction's row of `INSERTED_COLUMNS`.
pub(super) fn transaction_row(values: &mut RowValues, t: &Transaction, customer_id: &str, first_check: Timestamp) {
    values
        .text(t.id.as_str())
        .text(t.reference.as_str())
        .text(t.tenant.merchant_id.0.as_str())
        .text(t.tenant.environment.as_str())
        .text(t.transaction_id.as_str())
        .text(names::kind(t.kind))
        .text(t.operator.name())
        .text(t.phone.as_str())
        .text(t.phone_as_sent.as_str())
        .int(t.amounts.amount)
        .int(t.amounts.fees)
        .int(t.amounts.amount_receive)
        .int(t.amounts.amount_total)
        .text(names::status(t.status))
        .text(customer_id)
        .text(t.name.as_str())
        .text(t.email.as_deref())
        .text(t.success_url.as_deref())
        .text(t.error_url.as_deref())
        .int(t.created_at.millis())
        .text(t.checkout_token.as_deref())
        .int(first_check.millis())
        .text(t.operator_alias.as_deref());
}
