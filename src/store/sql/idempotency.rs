//! The `IdempotencyStore` methods for every [`Backend`]. The claim, keeping a key's answer and
//! letting a key go ride in the batch writer's transactions (`writer::keys`, where their
//! statements are), beside the payments' writes: concurrent keyed requests share commits, each
//! with its own outcome.

use super::writer::KeyWrite;
use super::Args;
use super::{Backend, RowsAffected, SqlDb};
use crate::domain::{IdempotencyKey, KeptAnswer, Tenant, Timestamp};
use crate::store::idempotency::{ClaimOutcome, IdempotencyStore, KeyClaim};
use crate::store::StoreError;

#[async_trait::async_trait]
impl<S, DB> IdempotencyStore for S
where
    S: Backend<Db = DB>,
    DB: SqlDb,
{
    async fn claim_idempotency_key(&self, claim: &KeyClaim) -> Result<ClaimOutcome, StoreError> {
        self.batcher().write(claim.clone()).await
    }

    async fn keep_idempotent_answer(
        &self,
        tenant: &Tenant,
        key: &IdempotencyKey,
        token: &str,
        answer: &KeptAnswer,
    ) -> Result<bool, StoreError> {
        let write = KeyWrite {
            tenant: tenant.clone(),
            key: key.clone(),
            token: token.to_owned(),
            answer: Some(answer.clone()),
        };
        self.batcher().write(write).await
    }

    async fn release_idempotency_key(
        &self,
        tenant: &Tenant,
        key: &IdempotencyKey,
        token: &str,
    ) -> Result<bool, StoreError> {
        let write = KeyWrite {
            tenant: tenant.clone(),
            key: key.clone(),
            token: token.to_owned(),
            answer: None,
        };
        self.batcher().write(write).await
    }

    async fn purge_idempotency_keys(&self, now: Timestamp, limit: u32) -> Result<u64, StoreError> {
        let purged = sqlx::query::<DB>(S::PURGE_IDEMPOTENCY_KEYS)
            .arg(now.millis())
            .arg(i64::from(limit))
            .execute(DB::pool(self.writer()))
            .await?;
        Ok(purged.rows_affected())
    }
}
