//! The `PaymentStore` methods for every [`Backend`]. Every state change is one database
//! transaction; races are settled by the `transactions` unique key and by `UPDATE ... WHERE
//! status = 'PENDING'`, overdrafts by a conditional balance update.

use super::balance_locks::BalancePlan;
use super::carriers;
use super::kinds;
use super::ledger_check;
use super::set_steps::{write_entries, EntryRow};
use super::transactions::{self, tenant_statement, TRANSACTION_SELECT};
use super::writer::Create;
use super::{Args, Get};
use super::{Backend, RowsAffected, SqlDb};
use crate::domain::ledger::Posting;
use crate::domain::{
    Carrier, Cursor, Customer, Francs, PageRequest, Reference, Status, Tenant, Timestamp, Transaction, TransactionKey,
    TransactionRef,
};
use crate::store::lookup_batch::Lookup;
use crate::store::{
    rows, Balance, CarrierChange, CheckedLookup, DueChecks, LedgerCheck, Missing, PaymentStore, PendingPage,
    ProcessStoreStats, SendMark, Settlement, StoreError, StoreStats, TransactionFilter, TransactionRecord,
    FAILING_AFTER_ATTEMPTS,
};

/// The payments a person must look at (`PaymentStore::needing_review`, the review metric):
/// pending transfers and refunds sent at or before `$1`.
const NEEDING_REVIEW: &str = "t.status = 'PENDING' AND t.kind IN ('transfer', 'refund') AND t.queued_at IS NULL \
     AND COALESCE(t.sent_at, t.created_at) <= $1";

#[async_trait::async_trait]
impl<S: Backend<Db = DB>, DB: SqlDb> PaymentStore for S {
    async fn insert_pending(
        &self,
        payer: &Customer,
        t: &Transaction,
        entry: &[Posting],
        first_check: Timestamp,
        credential_id: Option<&str>,
    ) -> Result<Customer, StoreError> {
        let create = Create {
            payer: payer.clone(),
            transaction: t.clone(),
            entry: entry.to_vec(),
            first_check,
            credential_id: credential_id.map(str::to_owned),
        };
        self.batcher().write(create).await
    }

    async fn settle(&self, s: &Settlement) -> Result<bool, StoreError> {
        crate::domain::transaction::check_transition(Status::Pending, s.outcome.status)
            .map_err(|e| StoreError::Corrupt(e.to_string()))?;
        if s.transaction.purpose.batch().is_some() {
            return self.batcher().write_for_payout_batch(s.clone()).await;
        }
        self.batcher().write(s.clone()).await
    }

    async fn transaction(
        &self,
        tenant: &Tenant,
        id_or_ref: &TransactionRef,
    ) -> Result<Option<TransactionRecord>, StoreError> {
        // Two indexed lookups, the merchant's id first: an OR of the two columns would
        // keep PostgreSQL from using either unique index.
        for column in ["transaction_id", "ref"] {
            let sql = format!(
                "{} WHERE t.merchant_id = $1 AND t.environment = $2 AND t.{column} = $3",
                *TRANSACTION_SELECT
            );
            let row = sqlx::query(&sql)
                .arg(tenant.merchant_id.as_str())
                .arg(tenant.environment.as_str())
                .arg(id_or_ref.as_str())
                .fetch_optional(DB::pool(self.reader()))
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
        id_or_ref: &TransactionRef,
    ) -> Result<CheckedLookup, StoreError> {
        let lookup = Lookup {
            tenant: tenant.clone(),
            credential_id: credential_id.to_owned(),
            id_or_ref: id_or_ref.clone(),
        };
        self.lookups().lookup(lookup).await
    }

    async fn transaction_by_ref(&self, reference: &Reference) -> Result<Option<TransactionRecord>, StoreError> {
        let sql = format!("{} WHERE t.ref = $1", *TRANSACTION_SELECT);
        let row = sqlx::query(&sql)
            .arg(reference.as_str())
            .fetch_optional(DB::pool(self.reader()))
            .await?;
        row.as_ref().map(rows::transaction_record).transpose()
    }

    async fn mark_sent(&self, transaction_id: &TransactionKey, at: Timestamp) -> Result<SendMark, StoreError> {
        let taken = sqlx::query(
            "UPDATE transactions SET sent_at = $1 WHERE id = $2 AND status = 'PENDING' AND sent_at IS NULL",
        )
        .arg(at.millis())
        .arg(transaction_id)
        .execute(DB::pool(self.writer()))
        .await?;
        if taken.rows_affected() == 1 {
            return Ok(SendMark::Taken);
        }
        // From the writer: whoever took the mark committed it there.
        let row = sqlx::query("SELECT status, sent_at FROM transactions WHERE id = $1")
            .arg(transaction_id)
            .fetch_optional(DB::pool(self.writer()))
            .await?;
        let Some(row) = row else {
            return Err(StoreError::Corrupt(format!(
                "transfer {transaction_id} to mark as sent is gone"
            )));
        };
        let status: String = row.col("status")?;
        let sent_at: Option<i64> = row.col("sent_at")?;
        Ok(match (status.as_str(), sent_at) {
            ("PENDING", Some(at)) => SendMark::SentAt(Timestamp(at)),
            _ => SendMark::Final,
        })
    }

    async fn claim_resend(
        &self,
        transaction_id: &TransactionKey,
        read: &Carrier,
        at: Timestamp,
    ) -> Result<Missing<()>, StoreError> {
        carriers::claim_resend(self, transaction_id, read, at).await
    }

    async fn missing_since(
        &self,
        transaction_id: &TransactionKey,
        read: &Carrier,
        at: Timestamp,
    ) -> Result<Missing<Timestamp>, StoreError> {
        carriers::missing_since(self, transaction_id, read, at).await
    }

    async fn record_carrier(
        &self,
        transaction_id: &TransactionKey,
        change: CarrierChange<'_>,
    ) -> Result<bool, StoreError> {
        carriers::record_carrier(self, transaction_id, change).await
    }

    async fn set_launch_url(&self, transaction_id: &TransactionKey, url: &str) -> Result<(), StoreError> {
        sqlx::query("UPDATE transactions SET launch_url = $1 WHERE id = $2")
            .arg(url)
            .arg(transaction_id)
            .execute(DB::pool(self.writer()))
            .await?;
        Ok(())
    }

    async fn transaction_by_checkout_token(&self, token: &str) -> Result<Option<TransactionRecord>, StoreError> {
        let sql = format!("{} WHERE t.checkout_token = $1", *TRANSACTION_SELECT);
        let row = sqlx::query(&sql)
            .arg(token)
            .fetch_optional(DB::pool(self.reader()))
            .await?;
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
            *TRANSACTION_SELECT, page.limit
        );
        let rows = tenant_statement::<DB>(&sql, tenant, binds)
            .fetch_all(DB::pool(self.reader()))
            .await?;
        rows.iter().map(rows::transaction_record).collect()
    }

    async fn pending_transactions(&self, page: PendingPage<'_>) -> Result<Vec<TransactionRecord>, StoreError> {
        let PendingPage {
            created_before,
            kind,
            after,
            limit,
        } = page;
        let sql = format!(
            "{} WHERE t.status = 'PENDING' AND t.queued_at IS NULL AND t.created_at <= $1 AND ($2 = '' OR t.kind = $2) \
             AND (t.created_at, t.id) > ($3, $4) \
             ORDER BY t.created_at, t.id LIMIT {limit}",
            *TRANSACTION_SELECT
        );
        let rows = sqlx::query(&sql)
            .arg(created_before.millis())
            .arg(kind.map(kinds::stored_name).unwrap_or(""))
            .arg(after.map(|c| c.created_at.millis()).unwrap_or(i64::MIN))
            .arg(after.map(|c| c.id.as_str()).unwrap_or(""))
            .fetch_all(DB::pool(self.reader()))
            .await?;
        rows.iter().map(rows::transaction_record).collect()
    }

    async fn needing_review(
        &self,
        sent_before: Timestamp,
        after: Option<&Cursor>,
        limit: u32,
    ) -> Result<Vec<TransactionRecord>, StoreError> {
        let sql = format!(
            "{} WHERE {NEEDING_REVIEW} AND (t.created_at, t.id) > ($2, $3) ORDER BY t.created_at, t.id LIMIT {limit}",
            *TRANSACTION_SELECT
        );
        let rows = sqlx::query(&sql)
            .arg(sent_before.millis())
            .arg(after.map(|c| c.created_at.millis()).unwrap_or(i64::MIN))
            .arg(after.map(|c| c.id.as_str()).unwrap_or(""))
            .fetch_all(DB::pool(self.reader()))
            .await?;
        rows.iter().map(rows::transaction_record).collect()
    }

    async fn claim_due_checks(&self, claim: DueChecks) -> Result<Vec<TransactionRecord>, StoreError> {
        let DueChecks {
            now,
            created_before,
            kind,
            lease_until,
            limit,
        } = claim;
        let token = uuid::Uuid::new_v4().to_string();
        let claimed = sqlx::query(S::CLAIM_DUE_CHECKS)
            .arg(lease_until.millis())
            .arg(&token)
            .arg(created_before.millis())
            .arg(now.millis())
            .arg(limit as i64)
            .arg(kind.map(kinds::stored_name).unwrap_or(""))
            .execute(DB::pool(self.writer()))
            .await?;
        if claimed.rows_affected() == 0 {
            return Ok(Vec::new());
        }
        transactions::claimed_by(self.writer(), &token).await
    }

    async fn schedule_check(&self, transaction_id: &TransactionKey, at: Timestamp) -> Result<(), StoreError> {
        sqlx::query("UPDATE transactions SET next_check_at = $1 WHERE id = $2 AND status = 'PENDING'")
            .arg(at.millis())
            .arg(transaction_id)
            .execute(DB::pool(self.writer()))
            .await?;
        Ok(())
    }

    async fn balance(&self, tenant: &Tenant) -> Result<Balance, StoreError> {
        let row = sqlx::query(
            "SELECT b.available + (SELECT CAST(COALESCE(SUM(c.amount), 0) AS BIGINT) FROM balance_credits c \
             WHERE c.merchant_id = b.merchant_id AND c.environment = b.environment) AS available, b.reserved \
             FROM balances b WHERE b.merchant_id = $1 AND b.environment = $2",
        )
        .arg(tenant.merchant_id.as_str())
        .arg(tenant.environment.as_str())
        .fetch_optional(DB::pool(self.reader()))
        .await?
        .ok_or(StoreError::NotFound)?;
        Ok(Balance {
            available: row.col("available")?,
            reserved: row.col("reserved")?,
        })
    }

    async fn credit(&self, tenant: &Tenant, amount: Francs, at: Timestamp) -> Result<(), StoreError> {
        let mut tx = self.writer().begin().await?;
        // A credit cannot overdraw, so a balance update that matches no row means the
        // tenant has no balance at all: it does not exist.
        let entry = crate::domain::ledger::credit(amount);
        let row = EntryRow {
            tenant,
            transaction_id: None,
            at,
            entry: &entry,
        };
        write_entries(&mut tx, &[row], &BalancePlan::balance_row())
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
        .fetch_one(DB::pool(self.reader()))
        .await?;
        let review = sqlx::query(&format!(
            "SELECT COUNT(*) AS n FROM transactions t WHERE {NEEDING_REVIEW}"
        ))
        .arg(review_before.millis())
        .fetch_one(DB::pool(self.reader()))
        .await?;
        // One pass over the pending events: the backlog, its oldest, and the merchant
        // environments with an event failed `FAILING_AFTER_ATTEMPTS` times or more.
        let outbox = sqlx::query(
            "SELECT COUNT(*) AS n, COALESCE(MIN(created_at), 0) AS oldest, \
             COUNT(DISTINCT CASE WHEN attempts >= $1 THEN merchant_id || '/' || environment END) AS failing \
             FROM outbox_events WHERE state = 'pending'",
        )
        .arg(FAILING_AFTER_ATTEMPTS)
        .fetch_one(DB::pool(self.reader()))
        .await?;
        let count = |row: &DB::Row| -> Result<(i64, Option<Timestamp>), StoreError> {
            let n: i64 = row.col("n")?;
            let oldest: i64 = row.col("oldest")?;
            Ok((n, (n > 0).then_some(Timestamp(oldest))))
        };
        let (pending_transactions, oldest_pending) = count(&pending)?;
        let (outbox_backlog, oldest_outbox) = count(&outbox)?;
        Ok(StoreStats {
            pending_transactions,
            oldest_pending,
            transfers_needing_review: review.col("n")?,
            outbox_backlog,
            oldest_outbox,
            webhook_endpoints_failing: outbox.col("failing")?,
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
        ledger_check::check_ledger::<DB>(self.reader()).await
    }
}
