//! The `PaymentStore` methods, whose SQL is the same text on both databases, instantiated for
//! each backend by [`impl_payment_store`]. Every state change is one database transaction;
//! races are settled by the `transactions` unique key and by `UPDATE ... WHERE status =
//! 'PENDING'`, overdrafts by a conditional balance update.

/// The columns of a transaction and its customer, as `rows::transaction_record` reads them.
pub(super) const TRANSACTION_SELECT: &str = "SELECT t.id, t.ref, t.merchant_id, t.environment, t.transaction_id, \
    t.kind, t.operator, t.phone, t.phone_as_sent, t.amount, t.fees, t.amount_receive, t.amount_total, t.status, \
    t.customer_id, t.name, t.email, t.failure_code, t.failure_reason, t.success_url, t.error_url, t.created_at, \
    t.updated_at, c.first_name AS c_first_name, c.last_name AS c_last_name, c.email AS c_email, c.phone AS c_phone, \
    c.country_code AS c_country_code, c.city AS c_city, c.street_address AS c_street_address, \
    c.created_at AS c_created_at \
    FROM transactions t JOIN customers c ON c.id = t.customer_id";

/// A value bound to a dynamically built query.
pub(super) enum Bind {
    Text(String),
    Int(i64),
}

/// The WHERE clause of a transaction list, and its values from `$3` on (`$1`, `$2` are the tenant).
pub(super) fn list_conditions(
    filter: &super::TransactionFilter,
    page: &crate::domain::PageRequest,
) -> (String, Vec<Bind>) {
    let mut sql = String::from(" WHERE t.merchant_id = $1 AND t.environment = $2");
    let mut binds = Vec::new();
    let mut add = |condition: &str, values: Vec<Bind>, binds: &mut Vec<Bind>| {
        let mut text = condition.to_owned();
        for (i, value) in values.into_iter().enumerate() {
            text = text.replace(&format!("?{}", i + 1), &format!("${}", binds.len() + 3));
            binds.push(value);
        }
        sql.push_str(&text);
    };
    if let Some(status) = filter.status {
        add(
            " AND t.status = ?1",
            vec![Bind::Text(status.as_str().to_owned())],
            &mut binds,
        );
    }
    if let Some(kind) = filter.kind {
        add(
            " AND t.kind = ?1",
            vec![Bind::Text(kind.as_str().to_owned())],
            &mut binds,
        );
    }
    if let Some(operator) = filter.operator {
        add(
            " AND t.operator = ?1",
            vec![Bind::Text(operator.name().to_owned())],
            &mut binds,
        );
    }
    if let Some(phone) = &filter.phone {
        add(
            " AND t.phone = ?1",
            vec![Bind::Text(phone.as_str().to_owned())],
            &mut binds,
        );
    }
    if let Some(from) = filter.from {
        add(" AND t.created_at >= ?1", vec![Bind::Int(from.millis())], &mut binds);
    }
    if let Some(to) = filter.to {
        add(" AND t.created_at < ?1", vec![Bind::Int(to.millis())], &mut binds);
    }
    if let Some(after) = &page.after {
        add(
            " AND (t.created_at, t.id) < (?1, ?2)",
            vec![Bind::Int(after.created_at.millis()), Bind::Text(after.id.clone())],
            &mut binds,
        );
    }
    (sql, binds)
}

/// Expands to `impl PaymentStore for $store`, the same for both backends.
macro_rules! impl_payment_store {
    ($store:ty, $db:ty) => {
        #[async_trait::async_trait]
        impl PaymentStore for $store {
            async fn insert_pending(&self, payer: &Customer, t: &Transaction, entry: &[Posting]) -> Result<Customer, StoreError> {
                let mut tx = self.writer().begin().await?;
                let row = bind_customer(sqlx::query(UPSERT_PAYER), payer).fetch_one(&mut *tx).await?;
                let customer = rows::customer(&row)?;
                sqlx::query(
                    "INSERT INTO transactions (id, ref, merchant_id, environment, transaction_id, kind, operator, phone, \
                     phone_as_sent, amount, fees, amount_receive, amount_total, status, customer_id, name, email, \
                     success_url, error_url, created_at) \
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20)",
                )
                .bind(&t.id)
                .bind(&t.reference)
                .bind(&t.tenant.merchant_id.0)
                .bind(t.tenant.environment.as_str())
                .bind(&t.transaction_id)
                .bind(t.kind.as_str())
                .bind(t.operator.name())
                .bind(t.phone.as_str())
                .bind(&t.phone_as_sent)
                .bind(t.amounts.amount)
                .bind(t.amounts.fees)
                .bind(t.amounts.amount_receive)
                .bind(t.amounts.amount_total)
                .bind(t.status.as_str())
                .bind(&customer.id)
                .bind(&t.name)
                .bind(t.email.as_deref())
                .bind(t.success_url.as_deref())
                .bind(t.error_url.as_deref())
                .bind(t.created_at.millis())
                .execute(&mut *tx)
                .await?;
                tx.insert_transition(&t.id, None, Status::Pending, Cause::Created, None, t.created_at).await?;
                tx.apply_entry(&t.tenant, Some(&t.id), entry, t.created_at).await?;
                tx.commit().await?;
                Ok(customer)
            }

            async fn settle(&self, s: &Settlement) -> Result<bool, StoreError> {
                let t = &s.transaction;
                crate::domain::transaction::check_transition(Status::Pending, s.outcome.status)
                    .map_err(|e| StoreError::Corrupt(e.to_string()))?;
                let mut tx = self.writer().begin().await?;
                let changed = sqlx::query(
                    "UPDATE transactions SET status = $1, updated_at = $2, failure_code = $3, failure_reason = $4 \
                     WHERE id = $5 AND status = 'PENDING'",
                )
                .bind(s.outcome.status.as_str())
                .bind(s.updated_at.map(|t| t.millis()))
                .bind(s.outcome.code.as_deref())
                .bind(s.outcome.reason.as_deref())
                .bind(&t.id)
                .execute(&mut *tx)
                .await?;
                if changed.rows_affected() == 0 {
                    return Ok(false);
                }
                let detail = s.outcome.code.as_deref().or(s.outcome.reason.as_deref());
                tx.insert_transition(&t.id, Some(Status::Pending), s.outcome.status, s.outcome.cause, detail, s.at)
                    .await?;
                tx.apply_entry(&t.tenant, Some(&t.id), &s.entry, s.at).await?;
                sqlx::query(
                    "INSERT INTO outbox_events (id, merchant_id, environment, transaction_id, to_status, payload, \
                     next_attempt_at, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $7)",
                )
                .bind(&s.event_id)
                .bind(&t.tenant.merchant_id.0)
                .bind(t.tenant.environment.as_str())
                .bind(&t.id)
                .bind(s.outcome.status.as_str())
                .bind(&s.event_payload)
                .bind(s.at.millis())
                .execute(&mut *tx)
                .await?;
                if let Some(audit) = &s.audit {
                    sqlx::query("INSERT INTO admin_audit (id, action, transaction_id, detail, at) VALUES ($1, $2, $3, $4, $5)")
                        .bind(uuid::Uuid::new_v4().to_string())
                        .bind("transactions resolve")
                        .bind(&t.id)
                        .bind(audit)
                        .bind(s.at.millis())
                        .execute(&mut *tx)
                        .await?;
                }
                tx.commit().await?;
                Ok(true)
            }

            async fn transaction(&self, tenant: &Tenant, id_or_ref: &str) -> Result<Option<TransactionRecord>, StoreError> {
                // Two indexed lookups, the merchant's id first: an OR of the two columns would
                // keep PostgreSQL from using either unique index.
                for column in ["transaction_id", "ref"] {
                    let sql = format!(
                        "{} WHERE t.merchant_id = $1 AND t.environment = $2 AND t.{column} = $3",
                        sql_payments::TRANSACTION_SELECT
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

            async fn transaction_by_ref(&self, reference: &str) -> Result<Option<TransactionRecord>, StoreError> {
                let sql = format!("{} WHERE t.ref = $1", sql_payments::TRANSACTION_SELECT);
                let row = sqlx::query(&sql).bind(reference).fetch_optional(self.reader()).await?;
                row.as_ref().map(rows::transaction_record).transpose()
            }

            async fn transactions(
                &self,
                tenant: &Tenant,
                filter: &TransactionFilter,
                page: &PageRequest,
            ) -> Result<Vec<TransactionRecord>, StoreError> {
                let (conditions, binds) = sql_payments::list_conditions(filter, page);
                let sql = format!(
                    "{}{conditions} ORDER BY t.created_at DESC, t.id DESC LIMIT {}",
                    sql_payments::TRANSACTION_SELECT,
                    page.limit
                );
                let mut query = sqlx::query(&sql).bind(&tenant.merchant_id.0).bind(tenant.environment.as_str());
                for bind in binds {
                    query = match bind {
                        sql_payments::Bind::Text(text) => query.bind(text),
                        sql_payments::Bind::Int(int) => query.bind(int),
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
                    sql_payments::TRANSACTION_SELECT
                );
                let rows = sqlx::query(&sql)
                    .bind(created_before.millis())
                    .bind(kind.map(|k| k.as_str()).unwrap_or(""))
                    .bind(after.map(|c| c.created_at.millis()).unwrap_or(i64::MIN))
                    .bind(after.map(|c| c.id.as_str()).unwrap_or(""))
                    .fetch_all(self.reader())
                    .await?;
                rows.iter().map(rows::transaction_record).collect()
            }

            async fn due_for_check(
                &self,
                now: Timestamp,
                created_before: Timestamp,
                after: Option<&Cursor>,
                limit: u32,
            ) -> Result<Vec<TransactionRecord>, StoreError> {
                let sql = format!(
                    "{} WHERE t.status = 'PENDING' AND t.created_at <= $1 AND (t.created_at, t.id) > ($3, $4) \
                     AND (t.next_check_at IS NULL OR t.next_check_at <= $2) ORDER BY t.created_at, t.id LIMIT {limit}",
                    sql_payments::TRANSACTION_SELECT
                );
                let rows = sqlx::query(&sql)
                    .bind(created_before.millis())
                    .bind(now.millis())
                    .bind(after.map(|c| c.created_at.millis()).unwrap_or(i64::MIN))
                    .bind(after.map(|c| c.id.as_str()).unwrap_or(""))
                    .fetch_all(self.reader())
                    .await?;
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
                let row = sqlx::query("SELECT available, reserved FROM balances WHERE merchant_id = $1 AND environment = $2")
                    .bind(&tenant.merchant_id.0)
                    .bind(tenant.environment.as_str())
                    .fetch_optional(self.reader())
                    .await?
                    .ok_or(StoreError::NotFound)?;
                Ok(Balance { available: row.try_get("available")?, reserved: row.try_get("reserved")? })
            }

            async fn credit(&self, tenant: &Tenant, amount: i64, at: Timestamp) -> Result<(), StoreError> {
                let mut tx = self.writer().begin().await?;
                // A credit cannot overdraw, so a balance update that matches no row means the
                // tenant has no balance at all: it does not exist.
                tx.apply_entry(tenant, None, &crate::domain::ledger::credit(amount), at).await.map_err(|e| match e {
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
                    "SELECT COUNT(*) AS n FROM transactions WHERE status = 'PENDING' AND kind = 'transfer' AND created_at <= $1",
                )
                .bind(review_before.millis())
                .fetch_one(self.reader())
                .await?;
                let outbox = sqlx::query(
                    "SELECT COUNT(*) AS n, COALESCE(MIN(created_at), 0) AS oldest FROM outbox_events WHERE state = 'pending'",
                )
                .fetch_one(self.reader())
                .await?;
                let (pool_size, pool_idle) = self.pool_stats();
                let count = |row: &<$db as sqlx::Database>::Row| -> Result<(i64, Option<Timestamp>), StoreError> {
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
                    pool_size,
                    pool_idle,
                })
            }

            async fn check_ledger(&self) -> Result<LedgerCheck, StoreError> {
                let sum = sqlx::query("SELECT CAST(COALESCE(SUM(amount), 0) AS BIGINT) AS total FROM ledger_postings")
                    .fetch_one(self.reader())
                    .await?;
                let inconsistent = sqlx::query(
                    "SELECT COUNT(*) AS n FROM balances b WHERE b.available < 0 OR b.reserved < 0 \
                     OR b.available <> (SELECT CAST(COALESCE(SUM(p.amount), 0) AS BIGINT) FROM ledger_postings p \
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
    };
}

pub(super) use impl_payment_store;
