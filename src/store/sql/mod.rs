//! The SQL both databases share, written once as code generic over the sqlx driver.
//!
//! The statements are the same text on SQLite and PostgreSQL (SQLite accepts `$1`
//! placeholders), so each store trait is implemented once, for every [`Backend`]: a store that
//! hands out its pools. `SqliteStore` and `PostgresStore` implement `Backend`; what differs
//! between them (pools, the outbox claim) stays in their own modules.
//!
//! Generic code names one bound, `DB: SqlDb` (`driver`): the driver executes, binds and reads
//! for it, so no function repeats what the driver must be able to do.

pub(super) mod attempts;
pub(super) mod balance_locks;
pub(super) mod batch_rows;
pub(super) mod caller_check;
mod carriers;
pub(super) mod customers;
pub(super) mod dashboard;
pub(super) mod driver;
pub(super) mod idempotency;
pub(super) mod kinds;
mod ledger_check;
mod links;
pub(super) mod merchants;
mod pages;
pub(super) mod payments;
mod payouts;
mod recipients;
pub(super) mod reports;
pub(super) mod row_values;
pub(super) mod sessions;
pub(super) mod set_steps;
pub(super) mod steps;
pub(super) mod transaction_row;
pub(super) mod transactions;
pub(super) mod webhooks;
pub(super) mod writer;
pub(super) mod writer_home;

use sqlx::{Database, Pool};

pub(super) use driver::{Args, Col, Get, RowsAffected, SqlDb};

/// A database's pools, as the shared SQL uses them.
pub(super) trait Backend: Send + Sync + 'static {
    type Db: SqlDb;

    /// Claims due outbox events: sets `lease_until = $1, lease_token = $2` on at most `$4`
    /// pending events due at `$3` whose lease is free or expired, and returns their `id,
    /// merchant_id, environment, payload, attempts, lease_token, next_attempt_at` (one
    /// statement: `lease_token` has no index, so reading the claimed rows back by it would scan
    /// the outbox). Several dispatchers must never claim the same event at once.
    const CLAIM_DUE_EVENTS: &'static str;

    /// Claims due status checks: sets `next_check_at = $1, check_token = $2` on at most `$5`
    /// pending transactions created at or before `$3`, of kind `$6` (any if empty), whose next
    /// check is due at `$4`, the longest due first, through the index of due checks
    /// (`transactions_due`). Several reconcilers must never claim the same transaction at once.
    const CLAIM_DUE_CHECKS: &'static str;

    /// Claims queued payout transfers: sets `queued_at = NULL, next_check_at = $1, check_token =
    /// $2` on at most `$4` transfers of operator `$3` of merchant `$5` in environment `$6` still
    /// queued, the longest queued first, through `transactions_queued`. Several senders must never claim one at once. A queued
    /// transfer is pending: every settlement clears `queued_at` (`writer::settle`), so the statement
    /// asks nothing of `status`, whose constant test would let the planner read every pending
    /// transaction through `transactions_due` instead of the queue's own index.
    const CLAIM_QUEUED: &'static str;

    /// Locks tenant `$1`, `$2` (its `merchant_environments` row) until the transaction ends, so
    /// that counts made under it hold until its writes commit (the payout caps).
    const LOCK_TENANT: &'static str;

    /// How the writers share a tenant's balance (`balance_locks`).
    const LOCKING: balance_locks::BalanceLocking;

    /// Deletes at most `$2` idempotency keys expired at `$1` (`expires_at <= $1`), through the
    /// index on `expires_at`, but only keys done with: answered, or whose in-flight lease lapsed
    /// (the key time to live may be shorter than the lease; a running request keeps its key).
    /// Several purgers must not wait on one another's rows.
    const PURGE_IDEMPOTENCY_KEYS: &'static str;

    /// Where reads go.
    fn reader(&self) -> &Pool<Self::Db>;

    /// Where writes and write transactions go.
    fn writer(&self) -> &Pool<Self::Db>;

    /// Where the batch writers write: the writer pool, or on PostgreSQL a pool of their own,
    /// whose connections open on the writers' thread (`writer_home`).
    fn batch_writer(&self) -> &Pool<Self::Db>;

    /// The batch writers of the hot writes (creations and settlements).
    fn batcher(&self) -> &writer::Batcher;

    /// The batch readers of status lookups.
    fn lookups(&self) -> &super::lookup_batch::LookupBatcher;

    /// Open and idle connections of the pools.
    fn pool_stats(&self) -> (u32, u32);

    /// After a bulk insert (a payout batch of thousands): refreshes the planner's statistics
    /// of the tables it grew, in the background, where the database's planner needs them
    /// (PostgreSQL). Until autovacuum's next pass, statistics taken before the batch describe a
    /// tenant with few transactions and few pending ones, and plans made from them read the
    /// whole tenant to find a batch's ids. None by default.
    fn after_bulk_insert(&self) {}
}

/// `($1, $2), ($3, $4)` for `rows` rows of `columns` placeholders: the `VALUES` of a multi-row
/// statement, whose other parts take no parameter. On SQLite `(?, ?), (?, ?)`: SQLite keeps
/// `$N` parameters as names in a list it searches linearly, both when it prepares a statement
/// and when sqlx binds each parameter (`sqlite3_bind_parameter_name`), so a statement of 3,000
/// numbered parameters cost millions of string comparisons; anonymous ones are not in the list.
pub(super) fn placeholders<DB: Database>(rows: usize, columns: usize) -> String {
    let anonymous = DB::NAME == <sqlx::Sqlite as Database>::NAME;
    let mut sql = String::with_capacity(rows * columns * 6);
    for r in 0..rows {
        sql.push_str(if r == 0 { "(" } else { ", (" });
        for c in 1..=columns {
            if c > 1 {
                sql.push_str(", ");
            }
            if anonymous {
                sql.push('?');
            } else {
                sql.push('$');
                sql.push_str(&(r * columns + c).to_string());
            }
        }
        sql.push(')');
    }
    sql
}

#[cfg(test)]
mod tests {
    #[test]
    fn placeholders_number_every_row_on() {
        assert_eq!(
            super::placeholders::<sqlx::Postgres>(2, 3),
            "($1, $2, $3), ($4, $5, $6)"
        );
        assert_eq!(super::placeholders::<sqlx::Sqlite>(2, 3), "(?, ?, ?), (?, ?, ?)");
    }
}
