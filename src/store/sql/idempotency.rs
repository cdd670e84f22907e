//! The `IdempotencyStore` methods for every [`Backend`]. The claim, keeping a key's answer and
//! letting a key go ride in the batch writer's transactions (`writer::keys`, where their
//! statements are), beside the payments' writes: concurrent keyed requests share commits, each
//! with its own outcome.

use super::writer::KeyWrite;
use super::Args;
use super::{Backend, RowsAffected, SqlDb};
use crate::domain::{KeptAnswer, Timestamp};
use crate::store::idempotency::{ClaimOutcome, HeldKey, IdempotencyStore, KeyClaim};
use crate::store::StoreError;

#[async_trait::async_trait]
impl<S: Backend<Db = DB>, DB: SqlDb> IdempotencyStore for S {
    async fn claim_idempotency_key(&self, claim: &KeyClaim) -> Result<ClaimOutcome, StoreError> {
        self.batcher().write(claim.clone()).await
    }

    async fn keep_idempotent_answer(&self, held: &HeldKey, answer: &KeptAnswer) -> Result<bool, StoreError> {
        self.batcher().write(KeyWrite::of(held, Some(answer.clone()))).await
    }

    async fn release_idempotency_key(&self, held: &HeldKey) -> Result<bool, StoreError> {
        self.batcher().write(KeyWrite::of(held, None)).await
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
