//! The `PayoutStore` methods for every [`Backend`]: the same SQL on both databases.

use super::balance_locks::{lock_balances, BalanceUse};
use super::batch_rows::{self, batch_of, BATCH_COLUMNS};
use super::pages::newest_first;
use super::writer::{insert_all, Creation};
use super::{Args, Backend, Get, SqlDb};
use crate::domain::{BatchId, Customer, PageRequest, PayoutBatch, Tenant, Timestamp, TransactionRecord};
use crate::store::payouts::{queued_check, BatchEventBody, BatchItem, NewBatch, PayoutStore, QueuedClaim, Seal};
use crate::store::{rows, StoreError};

/// Transfers a batch must have recorded for its insert to count as bulk (`Backend::after_bulk_insert`).
const BULK: usize = 1_000;

/// Inserts `batch`'s row, as it starts.
async fn insert_row<DB: SqlDb>(tx: &mut sqlx::Transaction<'_, DB>, batch: &NewBatch) -> Result<(), StoreError> {
    sqlx::query(
        "INSERT INTO payout_batches (id, merchant_id, environment, label, all_or_nothing, submitted, created_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7)",
    )
    .arg(batch.id.as_str())
    .arg(batch.tenant.merchant_id.as_str())
    .arg(batch.tenant.environment.as_str())
    .arg(batch.label.as_deref())
    .arg(i64::from(batch.all_or_nothing))
    .arg(batch.submitted)
    .arg(batch.created_at.millis())
    .execute(DB::on(&mut **tx))
    .await?;
    Ok(())
}

/// Refuses `batch` with `OverLimit` when its tenant would pass one of its caps with `adding`
/// more queued transfers; the tenant stays locked until `tx` ends, so two batches of one
/// merchant cannot both pass on the same count. A batch recorded item by item inserts its
/// transfers after this commits: the items it has yet to insert (its `submitted` less those
/// it has) count as queued until it is sealed, so two such batches cannot both pass the cap.
async fn within_limits<S: Backend<Db = DB>, DB: SqlDb>(
    tx: &mut sqlx::Transaction<'_, DB>,
    batch: &NewBatch,
    adding: i64,
) -> Result<(), StoreError> {
    let (merchant, environment) = (batch.tenant.merchant_id.as_str(), batch.tenant.environment.as_str());
    sqlx::query(S::LOCK_TENANT)
        .arg(merchant)
        .arg(environment)
        .fetch_optional(DB::on(&mut **tx))
        .await?;
    let row = sqlx::query(
        "SELECT (SELECT COUNT(*) FROM payout_batches WHERE merchant_id = $1 AND environment = $2 \
           AND sealed_at IS NULL) AS running, \
         (SELECT COUNT(*) FROM transactions WHERE merchant_id = $1 AND environment = $2 \
           AND queued_at IS NOT NULL) AS queued, \
         (SELECT CAST(COALESCE(SUM(b.submitted - (SELECT COUNT(*) FROM transactions t WHERE t.batch_id = b.id)), 0) \
           AS BIGINT) FROM payout_batches b WHERE b.merchant_id = $1 AND b.environment = $2 \
           AND b.sealed_at IS NULL) AS recording",
    )
    .arg(merchant)
    .arg(environment)
    .fetch_one(DB::on(&mut **tx))
    .await?;
    let (running, queued, recording): (i64, i64, i64) =
        (row.col("running")?, row.col("queued")?, row.col("recording")?);
    let queued = queued + recording;
    let limits = batch.limits;
    if running >= limits.at_once {
        return Err(StoreError::OverLimit(format!(
            "{running} payout batches of this merchant are being recorded, the most at once: \
             retry once one of them has answered"
        )));
    }
    if queued + adding > limits.queued_max {
        return Err(StoreError::OverLimit(format!(
            "{queued} transfers of this merchant are queued or being recorded, and {adding} more would pass \
             the cap of {}: \
             retry once some are sent, or send a smaller batch",
            limits.queued_max
        )));
    }
    Ok(())
}

/// Seals batch `id` with `seal`'s counts, and completes it when nothing of it is open.
async fn seal_in<DB: SqlDb>(
    tx: &mut sqlx::Transaction<'_, DB>,
    id: &BatchId,
    seal: Seal,
) -> Result<PayoutBatch, StoreError> {
    let sql = format!(
        "UPDATE payout_batches SET sealed_at = $1, refused = $2, duplicates = $3 \
         WHERE id = $4 AND sealed_at IS NULL RETURNING {BATCH_COLUMNS}"
    );
    let row = sqlx::query(&sql)
        .arg(seal.at.millis())
        .arg(seal.refused)
        .arg(seal.duplicates)
        .arg(id.as_str())
        .fetch_optional(DB::on(&mut **tx))
        .await?
        .ok_or_else(|| StoreError::Corrupt(format!("batch {id} is sealed already or gone")))?;
    let batch = batch_of::<DB>(&row)?;
    if batch.pending > 0 {
        return Ok(batch);
    }
    // Every item final already (or none accepted): the batch completes with its seal, its
    // event on one of its transfers' rows when it has one.
    let item: Option<String> = sqlx::query("SELECT id FROM transactions WHERE batch_id = $1 LIMIT 1")
        .arg(id.as_str())
        .fetch_optional(DB::on(&mut **tx))
        .await?
        .map(|row| row.col("id"))
        .transpose()?;
    let completed = match item {
        Some(item) => batch_rows::complete(tx, id.as_str(), &item, seal.at, seal.event_body).await?,
        None => {
            let sql = format!("UPDATE payout_batches SET completed_at = $1 WHERE id = $2 RETURNING {BATCH_COLUMNS}");
            let row = sqlx::query(&sql)
                .arg(seal.at.millis())
                .arg(id.as_str())
                .fetch_one(DB::on(&mut **tx))
                .await?;
            Some(batch_of::<DB>(&row)?)
        }
    };
    Ok(completed.unwrap_or(batch))
}

#[async_trait::async_trait]
impl<S: Backend<Db = DB>, DB: SqlDb> PayoutStore for S {
    async fn insert_batch(&self, batch: &NewBatch) -> Result<(), StoreError> {
        let mut tx = self.writer().begin().await?;
        within_limits::<S, DB>(&mut tx, batch, batch.submitted).await?;
        insert_row(&mut tx, batch).await?;
        tx.commit().await?;
        Ok(())
    }

    async fn insert_batch_whole(
        &self,
        batch: &NewBatch,
        items: &[BatchItem],
        seal: Seal,
    ) -> Result<Vec<Customer>, StoreError> {
        let mut tx = self.writer().begin().await?;
        within_limits::<S, DB>(&mut tx, batch, items.len() as i64).await?;
        let tenant = (
            batch.tenant.merchant_id.as_str(),
            batch.tenant.environment.as_str(),
            BalanceUse::Debits,
        );
        let plan = lock_balances(&mut tx, S::LOCKING, 0, &[tenant]).await?;
        insert_row(&mut tx, batch).await?;
        let creations: Vec<Creation> = items
            .iter()
            .map(|i| Creation {
                payer: &i.payer,
                transaction: &i.transaction,
                entry: &i.entry,
                first_check: queued_check(),
            })
            .collect();
        // Any failure drops the transaction, so nothing of the batch is written.
        let customers = insert_all(&mut tx, &creations, &plan).await?;
        seal_in(&mut tx, &batch.id, seal).await?;
        tx.commit().await?;
        if items.len() >= BULK {
            self.after_bulk_insert();
        }
        Ok(customers)
    }

    async fn transactions_by_ids(&self, tenant: &Tenant, ids: &[&str]) -> Result<Vec<TransactionRecord>, StoreError> {
        let mut found = Vec::new();
        // Within every database's limit of parameters per statement.
        for chunk in ids.chunks(500) {
            // The tenant's two parameters, then one per id, in each database's form.
            let all = super::placeholders::<DB>(1, chunk.len() + 2);
            let marks: Vec<&str> = all.trim_matches(['(', ')']).split(", ").collect();
            let sql = format!(
                "{} WHERE t.merchant_id = {} AND t.environment = {} AND t.transaction_id IN ({})",
                *super::transactions::TRANSACTION_SELECT,
                marks[0],
                marks[1],
                marks[2..].join(", ")
            );
            let mut query = sqlx::query(&sql)
                .arg(tenant.merchant_id.as_str())
                .arg(tenant.environment.as_str());
            for id in chunk {
                query = query.arg(*id);
            }
            let rows = query.fetch_all(DB::pool(self.reader())).await?;
            for row in &rows {
                found.push(rows::transaction_record(row)?);
            }
        }
        Ok(found)
    }

    async fn seal_batch(&self, id: &BatchId, seal: Seal) -> Result<PayoutBatch, StoreError> {
        let mut tx = self.writer().begin().await?;
        let batch = seal_in(&mut tx, id, seal).await?;
        tx.commit().await?;
        if batch.accepted.count >= BULK as u64 {
            self.after_bulk_insert();
        }
        Ok(batch)
    }

    async fn seal_abandoned(
        &self,
        created_before: Timestamp,
        at: Timestamp,
        event_body: BatchEventBody,
    ) -> Result<Vec<PayoutBatch>, StoreError> {
        let ids: Vec<String> = sqlx::query(
            "SELECT id FROM payout_batches WHERE sealed_at IS NULL AND created_at < $1 ORDER BY created_at LIMIT 100",
        )
        .arg(created_before.millis())
        .fetch_all(DB::pool(self.writer()))
        .await?
        .iter()
        .map(|row| row.col("id"))
        .collect::<Result<_, _>>()?;
        let mut sealed = Vec::with_capacity(ids.len());
        for id in ids {
            let mut tx = self.writer().begin().await?;
            // Counted under the row's lock, so no late item slips between the count and the seal;
            // none when another process sealed it first.
            let refused: Option<i64> = sqlx::query(
                "UPDATE payout_batches SET refused = submitted - accepted WHERE id = $1 AND sealed_at IS NULL \
                 RETURNING refused",
            )
            .arg(id.as_str())
            .fetch_optional(DB::on(&mut *tx))
            .await?
            .map(|row| row.col("refused"))
            .transpose()?;
            let Some(refused) = refused else { continue };
            let seal = Seal {
                refused,
                duplicates: 0,
                at,
                event_body,
            };
            sealed.push(seal_in(&mut tx, &BatchId::from_stored(id), seal).await?);
            tx.commit().await?;
        }
        Ok(sealed)
    }

    async fn batch(&self, tenant: &Tenant, id: &BatchId) -> Result<Option<PayoutBatch>, StoreError> {
        let sql = format!(
            "SELECT {BATCH_COLUMNS} FROM payout_batches WHERE id = $1 AND merchant_id = $2 AND environment = $3"
        );
        let row = sqlx::query(&sql)
            .arg(id.as_str())
            .arg(tenant.merchant_id.as_str())
            .arg(tenant.environment.as_str())
            .fetch_optional(DB::pool(self.reader()))
            .await?;
        row.as_ref().map(batch_of::<DB>).transpose()
    }

    async fn batches(&self, tenant: &Tenant, page: &PageRequest) -> Result<Vec<PayoutBatch>, StoreError> {
        let from = format!("{BATCH_COLUMNS} FROM payout_batches");
        newest_first(self.reader(), &from, "created_at", tenant, page, batch_of::<DB>).await
    }

    async fn tenants_with_open_batches(&self) -> Result<Vec<Tenant>, StoreError> {
        // 'Production' sorts before 'Sandbox'.
        let rows = sqlx::query(
            "SELECT DISTINCT environment, merchant_id FROM payout_batches WHERE completed_at IS NULL \
             ORDER BY environment, merchant_id",
        )
        .fetch_all(DB::pool(self.reader()))
        .await?;
        rows.iter().map(rows::tenant).collect()
    }

    async fn claim_queued(&self, claim: QueuedClaim<'_>) -> Result<Vec<TransactionRecord>, StoreError> {
        let QueuedClaim {
            tenant,
            operator,
            first_check,
            limit,
        } = claim;
        let token = uuid::Uuid::new_v4().to_string();
        let claimed = sqlx::query(S::CLAIM_QUEUED)
            .arg(first_check.millis())
            .arg(&token)
            .arg(operator.name())
            .arg(i64::from(limit))
            .arg(tenant.merchant_id.as_str())
            .arg(tenant.environment.as_str())
            .execute(DB::pool(self.writer()))
            .await?;
        if super::RowsAffected::rows_affected(&claimed) == 0 {
            return Ok(Vec::new());
        }
        super::transactions::claimed_by(self.writer(), &token).await
    }

    async fn queued_for(&self, tenant: &Tenant) -> Result<i64, StoreError> {
        let row = sqlx::query(
            "SELECT COUNT(*) AS n FROM transactions WHERE merchant_id = $1 AND environment = $2 AND queued_at IS NOT NULL",
        )
        .arg(tenant.merchant_id.as_str())
        .arg(tenant.environment.as_str())
        .fetch_one(DB::pool(self.reader()))
        .await?;
        Ok(row.col("n")?)
    }

    async fn queued(&self) -> Result<i64, StoreError> {
        let row = sqlx::query("SELECT COUNT(*) AS n FROM transactions WHERE queued_at IS NOT NULL")
            .fetch_one(DB::pool(self.reader()))
            .await?;
        Ok(row.col("n")?)
    }
}
