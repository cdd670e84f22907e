//! How a batch moves its tenants' balances without making one merchant's writers a queue.
//!
//! With one balance row per merchant environment, every batch that credits a merchant waits
//! for the last one to commit: PostgreSQL's writers, however many, then commit one merchant's
//! collections one batch at a time. A credit cannot overdraw, so it need not wait: each writer
//! adds its credits to its own row of `balance_credits` (its slot), and only a batch that can
//! take available money out (a transfer's or refund's reservation) locks the balance row,
//! folding every committed slot into it first. A debit is thus checked against all the money
//! that has committed, and the balance row alone never goes below zero; a credit still in
//! flight when a debit folds is simply not counted yet, which can only make that debit more
//! careful. A batch that only takes reservations back (transfers and refunds settled, as a
//! payout batch drains) locks the balance row without folding: it checks nothing against the
//! slots, so it leaves them, and the writers crediting them, alone.
//!
//! Lock order, so that batches never wait on each other in a circle: at its start a batch
//! locks, tenant by tenant in key order, either the balance row and then the slots it folds
//! (in slot order), or the balance row alone, or its own slot row; its items then lock payers and transactions in the
//! order of tenant, payer and id. SQLite's single writer connection serializes every write, so
//! there it credits the balance row directly and locks nothing.

use sqlx::Transaction;

use super::SqlDb;
use super::{Args, Get};
use crate::store::StoreError;

/// How the writers of a store share a tenant's balance.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::store) enum BalanceLocking {
    /// One writer connection serializes every write (SQLite): every move goes to the balance
    /// row, and nothing needs locking first.
    Serial,
    /// Several writers, of one process or of several (PostgreSQL): credits go to the writer's
    /// slot; a batch that can debit locks the balance row and folds the slots into it.
    CreditSlots,
}

/// What a batch does with one tenant's balance, from the least to the most it needs locked
/// (a batch whose writes use a balance in several ways needs the most of them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(in crate::store) enum BalanceUse {
    /// Its writes only add to the available balance.
    Credits,
    /// Its writes take reservations back (a transfer or refund settled), and may add to the
    /// available balance, but take nothing from it: the balance row is locked, and the credits
    /// waiting in the slots need not be counted, as nothing is checked against them.
    Releases,
    /// At least one of its writes can take available money out.
    Debits,
}

/// Adds `$4` to slot `$3` of a tenant (`$1`, `$2`), creating the slot's row on its first credit.
/// With `$4 = 0` it only takes the row's lock.
pub(in crate::store) const CREDIT_SLOT: &str =
    "INSERT INTO balance_credits (merchant_id, environment, slot, amount) VALUES ($1, $2, $3, $4) \
     ON CONFLICT (merchant_id, environment, slot) DO UPDATE SET amount = balance_credits.amount + excluded.amount";

/// The balances a batch has locked: which tenants' credits go to the writer's slot.
pub(in crate::store) struct BalancePlan {
    slot: i64,
    slotted: Vec<(String, String)>,
}

impl BalancePlan {
    /// The slot a tenant's credits go to in this batch; `None` for the balance row.
    pub fn credit_slot(&self, merchant_id: &str, environment: &str) -> Option<i64> {
        self.slotted
            .iter()
            .any(|(m, e)| m == merchant_id && e == environment)
            .then_some(self.slot)
    }

    /// A plan for a write outside the batches, which locks nothing first: every move goes
    /// to the balance row.
    pub fn balance_row() -> BalancePlan {
        BalancePlan {
            slot: 0,
            slotted: Vec::new(),
        }
    }
}

/// Locks what a batch of writer `slot` needs of each tenant's balance, `tenants` in key order.
pub(in crate::store) async fn lock_balances<DB: SqlDb>(
    tx: &mut Transaction<'_, DB>,
    locking: BalanceLocking,
    slot: i64,
    tenants: &[(&str, &str, BalanceUse)],
) -> Result<BalancePlan, StoreError> {
    let mut plan = BalancePlan {
        slot,
        slotted: Vec::new(),
    };
    if locking == BalanceLocking::Serial {
        return Ok(plan);
    }
    for &(merchant, environment, usage) in tenants {
        match usage {
            BalanceUse::Debits => fold_credits(tx, merchant, environment).await?,
            BalanceUse::Releases => lock_balance_row(tx, merchant, environment).await?,
            BalanceUse::Credits => {
                sqlx::query(CREDIT_SLOT)
                    .arg(merchant)
                    .arg(environment)
                    .arg(slot)
                    .arg(0i64)
                    .execute(DB::on(&mut **tx))
                    .await?;
                plan.slotted.push((merchant.to_owned(), environment.to_owned()));
            }
        }
    }
    Ok(plan)
}

/// Locks a tenant's balance row, first of everything the batch locks.
async fn lock_balance_row<DB: SqlDb>(
    tx: &mut Transaction<'_, DB>,
    merchant: &str,
    environment: &str,
) -> Result<(), StoreError> {
    // `NO KEY`: a credit's first use of its slot checks its foreign key to this row with a key
    // share lock, which `FOR UPDATE` would make wait on this batch while it waits on that slot.
    sqlx::query("SELECT 1 FROM balances WHERE merchant_id = $1 AND environment = $2 FOR NO KEY UPDATE")
        .arg(merchant)
        .arg(environment)
        .execute(DB::on(&mut **tx))
        .await?;
    Ok(())
}

/// Locks a tenant's balance row and moves its committed credits from their slots into it.
async fn fold_credits<DB: SqlDb>(
    tx: &mut Transaction<'_, DB>,
    merchant: &str,
    environment: &str,
) -> Result<(), StoreError> {
    lock_balance_row(tx, merchant, environment).await?;
    // `FOR UPDATE` answers each slot as its last credit committed it.
    let slots = sqlx::query(
        "SELECT slot, amount FROM balance_credits WHERE merchant_id = $1 AND environment = $2 AND amount > 0 \
         ORDER BY slot FOR UPDATE",
    )
    .arg(merchant)
    .arg(environment)
    .fetch_all(DB::on(&mut **tx))
    .await?;
    let mut folded = 0i64;
    for row in &slots {
        let (slot, amount): (i64, i64) = (row.col("slot")?, row.col("amount")?);
        // Minus what was read, never "= 0": only what this batch counted leaves the slot.
        sqlx::query(
            "UPDATE balance_credits SET amount = amount - $1 WHERE merchant_id = $2 AND environment = $3 AND slot = $4",
        )
        .arg(amount)
        .arg(merchant)
        .arg(environment)
        .arg(slot)
        .execute(DB::on(&mut **tx))
        .await?;
        folded = folded
            .checked_add(amount)
            .ok_or_else(|| StoreError::Corrupt("the credits of one balance overflow".into()))?;
    }
    if folded > 0 {
        sqlx::query("UPDATE balances SET available = available + $1 WHERE merchant_id = $2 AND environment = $3")
            .arg(folded)
            .arg(merchant)
            .arg(environment)
            .execute(DB::on(&mut **tx))
            .await?;
    }
    Ok(())
}

/// Locks the existing payer rows of a batch's creations (`payers` sorted, in key order) for the
/// rest of the batch, where the database has several writers. The pass that runs each write in
/// a savepoint needs it: rolling a savepoint back releases the row locks taken inside it, so
/// without this a batch could let go of a payer, take a transaction id, then wait for the payer
/// again, while another batch holds that payer and waits for the id.
pub(in crate::store) async fn lock_payers<DB: SqlDb>(
    tx: &mut Transaction<'_, DB>,
    locking: BalanceLocking,
    payers: &[(&str, &str, &str)],
) -> Result<(), StoreError> {
    if locking == BalanceLocking::Serial {
        return Ok(());
    }
    for &(merchant, environment, phone) in payers {
        sqlx::query(
            "SELECT 1 FROM customers WHERE merchant_id = $1 AND environment = $2 AND payer_phone = $3 FOR UPDATE",
        )
        .arg(merchant)
        .arg(environment)
        .arg(phone)
        .execute(DB::on(&mut **tx))
        .await?;
    }
    Ok(())
}
