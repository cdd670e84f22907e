//! An idempotency key's writes, batched beside the payments' so that concurrent keyed requests
//! share commits, each with its own outcome: the claim ([`KeyClaim`]: an insert that does
//! nothing on conflict with the primary key, then a conditional takeover of an expired key or
//! of a lapsed lease on the same request, then a read of who holds it, each one statement the
//! database settles, so concurrent claims never both win), and keeping a key's answer or
//! letting the key go ([`KeyWrite`], conditional on the claim's token). They run after the
//! payments' writes of their batch, one conditional statement each, which fails only with the
//! batch.

use sqlx::Transaction;

use super::super::balance_locks::BalancePlan;
use super::super::{Args, Get, RowsAffected, SqlDb};
use super::item::tenant_key;
use super::item::BatchItem;
use crate::domain::{IdempotencyKey, KeptAnswer, KeyHolder, Tenant};
use crate::store::handoff::EventLease;
use crate::store::idempotency::{ClaimOutcome, HeldKey, KeyClaim};
use crate::store::StoreError;

/// An idempotency key's write: its answer kept (`answer`) or the key let go (`None`), provided
/// the claim `token` still holds it and no answer is kept.
#[derive(Debug)]
pub(in crate::store) struct KeyWrite {
    pub tenant: Tenant,
    pub key: IdempotencyKey,
    pub token: String,
    pub answer: Option<KeptAnswer>,
}

impl KeyWrite {
    /// The write of `held`: its answer kept (`answer`) or the key let go (`None`).
    pub fn of(held: &HeldKey, answer: Option<KeptAnswer>) -> KeyWrite {
        KeyWrite {
            tenant: held.tenant.clone(),
            key: held.key.clone(),
            token: held.token.clone(),
            answer,
        }
    }
}

/// A write on one key: its tenant and key give its place in a batch (a key's write locks only
/// its key's row), and it runs as one statement that fails only with the batch (`$run`).
macro_rules! key_item {
    ($write:ty, $answer:ty, $run:ident) => {
        impl BatchItem for $write {
            type Answer = $answer;

            fn tenant(&self) -> &Tenant {
                &self.tenant
            }

            fn order_key(&self) -> (&str, &str, &str, &str) {
                let (merchant, environment) = tenant_key(&self.tenant);
                (merchant, environment, "", self.key.as_str())
            }

            async fn run_set<'a, DB: SqlDb>(
                items: &'a [$write],
                tx: &'a mut Transaction<'_, DB>,
                _plan: &'a BalancePlan,
                _lease: Option<&'a EventLease>,
            ) -> Result<Vec<$answer>, StoreError> {
                let mut answers = Vec::with_capacity(items.len());
                for item in items {
                    answers.push($run(tx, item).await?);
                }
                Ok(answers)
            }
        }
    };
}

key_item!(KeyWrite, bool, write_key_in);
key_item!(KeyClaim, ClaimOutcome, claim_in);

const INSERT: &str = "INSERT INTO idempotency_keys (merchant_id, environment, idempotency_key, fingerprint, \
    claim_token, locked_until, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) \
    ON CONFLICT (merchant_id, environment, idempotency_key) DO NOTHING";

/// An expired key is anyone's once it is done with: answered, or its lease lapsed (a key may
/// expire before its lease does, MOMO_IDEMPOTENCY_KEY_TTL_S being as short as 60 s and the
/// lease 90 s or more, and a request still running keeps its key). A lapsed lease is only the
/// same request's (a retry after a crash): another body still meets the key's first request,
/// and a 422.
const TAKE_OVER: &str = "UPDATE idempotency_keys SET fingerprint = $4, claim_token = $5, locked_until = $6, \
    created_at = $7, expires_at = $8, response_status = NULL, response_body = NULL \
    WHERE merchant_id = $1 AND environment = $2 AND idempotency_key = $3 \
    AND ((expires_at <= $7 AND (response_status IS NOT NULL OR locked_until <= $7)) \
    OR (response_status IS NULL AND locked_until <= $7 AND fingerprint = $4))";

const HOLDER: &str = "SELECT fingerprint, response_status, response_body FROM idempotency_keys \
    WHERE merchant_id = $1 AND environment = $2 AND idempotency_key = $3";

const KEEP: &str = "UPDATE idempotency_keys SET response_status = $5, response_body = $6 \
    WHERE merchant_id = $1 AND environment = $2 AND idempotency_key = $3 AND claim_token = $4 \
    AND response_status IS NULL";

const RELEASE: &str = "DELETE FROM idempotency_keys \
    WHERE merchant_id = $1 AND environment = $2 AND idempotency_key = $3 AND claim_token = $4 \
    AND response_status IS NULL";

/// Rounds of insert, takeover and read before giving up: a round fails only when the key was
/// purged or released between its statements, which another round settles.
const ROUNDS: usize = 3;

/// `sql` with the key's own columns bound: `$1` to `$3` of every statement on a key.
fn key_query<'q, DB: SqlDb>(
    sql: &'q str,
    tenant: &'q Tenant,
    key: &'q IdempotencyKey,
) -> sqlx::query::Query<'q, DB, <DB as sqlx::Database>::Arguments<'q>> {
    sqlx::query::<DB>(sql)
        .arg(tenant.merchant_id.as_str())
        .arg(tenant.environment.as_str())
        .arg(key.as_str())
}

/// Keeps a key's answer (`answer`) or lets the key go (`None`) in the batch's transaction,
/// provided the claim token still holds it and no answer is kept: `false` when it wrote nothing.
async fn write_key_in<DB: SqlDb>(tx: &mut Transaction<'_, DB>, write: &KeyWrite) -> Result<bool, StoreError> {
    let query = match &write.answer {
        Some(answer) => key_query::<DB>(KEEP, &write.tenant, &write.key)
            .arg(write.token.as_str())
            .arg(i64::from(answer.status))
            .arg(answer.body.as_str()),
        None => key_query::<DB>(RELEASE, &write.tenant, &write.key).arg(write.token.as_str()),
    };
    Ok(query.execute(DB::on(&mut **tx)).await?.rows_affected() == 1)
}

/// Claims a key in the batch's transaction: an insert, a takeover, a read of the holder, each
/// settled by the database (a concurrent claim's uncommitted row makes the insert wait for it).
async fn claim_in<DB: SqlDb>(tx: &mut Transaction<'_, DB>, claim: &KeyClaim) -> Result<ClaimOutcome, StoreError> {
    let bind = |sql: &'static str| {
        key_query::<DB>(sql, &claim.tenant, &claim.key)
            .arg(claim.fingerprint.as_str())
            .arg(claim.token.as_str())
            .arg(claim.locked_until.millis())
            .arg(claim.at.millis())
            .arg(claim.expires_at.millis())
    };
    for _ in 0..ROUNDS {
        if bind(INSERT).execute(DB::on(&mut **tx)).await?.rows_affected() == 1 {
            return Ok(ClaimOutcome::Claimed);
        }
        if bind(TAKE_OVER).execute(DB::on(&mut **tx)).await?.rows_affected() == 1 {
            return Ok(ClaimOutcome::Claimed);
        }
        let row = key_query::<DB>(HOLDER, &claim.tenant, &claim.key)
            .fetch_optional(DB::on(&mut **tx))
            .await?;
        if let Some(row) = row {
            let status: Option<i64> = row.col("response_status")?;
            let body: Option<String> = row.col("response_body")?;
            let answer = match (status, body) {
                (Some(status), Some(body)) => Some(KeptAnswer {
                    status: u16::try_from(status)
                        .map_err(|_| StoreError::Corrupt(format!("idempotent answer status {status}")))?,
                    body,
                }),
                _ => None,
            };
            return Ok(ClaimOutcome::Held(KeyHolder {
                fingerprint: row.col("fingerprint")?,
                answer,
            }));
        }
    }
    Err(StoreError::Unavailable(
        "an idempotency key kept changing hands while it was claimed".to_owned(),
    ))
}
