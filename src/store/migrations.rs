//! Migrations, embedded in the binary: the same numbering and meaning for both databases.
//!
//! Written out rather than `sqlx::migrate!`, for two reasons: the macro needs sqlx's `macros`
//! feature, which adds sqlx's proc-macro crates (and what they build of sqlx for the host) to
//! every build, for what is a list of files; and this list
//! is shared, so a migration added for one database and not the other does not compile, which
//! two `migrate!("migrations/…")` calls would not catch. What the macro gives otherwise
//! (embedding, checksums, the `_sqlx_migrations` table) is sqlx's own `Migrator`, used here.

use std::borrow::Cow;

use sqlx::migrate::{Migration, MigrationType, Migrator};

/// The migrations' names, in order: migration `i + 1` is `NAMES[i]` on both databases.
/// `migrator` takes exactly as many SQL files as names, so a migration added to one list but
/// not to the others does not compile.
const NAMES: [&str; 26] = [
    "0001_foundation",
    "0002_payments",
    "0003_webhooks",
    "0004_reconcile_backoff",
    "0005_checkout_token",
    "0006_launch_url",
    "0007_resent_at",
    "0008_check_token",
    "0009_due_checks",
    "0010_credit_slots",
    "0011_operator_alias",
    "0012_webhook_secret_rotation",
    "0013_idempotency_keys",
    "0014_dashboard_sessions",
    "0015_reports_indexes",
    "0016_refund_kind",
    "0017_refunds",
    "0018_refund_reason",
    "0019_payment_links",
    "0020_payout_batches",
    "0021_unsealed_batches",
    "0022_fewer_index_entries",
    "0023_missing_since",
    "0024_payout_sending",
    "0025_recipient_checks",
    "0026_carrier",
];

/// The SQL of each migration, `include_str!` taking only a literal path.
const SQLITE: [&str; 26] = [
    include_str!("../../migrations/sqlite/0001_foundation.sql"),
    include_str!("../../migrations/sqlite/0002_payments.sql"),
    include_str!("../../migrations/sqlite/0003_webhooks.sql"),
    include_str!("../../migrations/sqlite/0004_reconcile_backoff.sql"),
    include_str!("../../migrations/sqlite/0005_checkout_token.sql"),
    include_str!("../../migrations/sqlite/0006_launch_url.sql"),
    include_str!("../../migrations/sqlite/0007_resent_at.sql"),
    include_str!("../../migrations/sqlite/0008_check_token.sql"),
    include_str!("../../migrations/sqlite/0009_due_checks.sql"),
    include_str!("../../migrations/sqlite/0010_credit_slots.sql"),
    include_str!("../../migrations/sqlite/0011_operator_alias.sql"),
    include_str!("../../migrations/sqlite/0012_webhook_secret_rotation.sql"),
    include_str!("../../migrations/sqlite/0013_idempotency_keys.sql"),
    include_str!("../../migrations/sqlite/0014_dashboard_sessions.sql"),
    include_str!("../../migrations/sqlite/0015_reports_indexes.sql"),
    include_str!("../../migrations/sqlite/0016_refund_kind.sql"),
    include_str!("../../migrations/sqlite/0017_refunds.sql"),
    include_str!("../../migrations/sqlite/0018_refund_reason.sql"),
    include_str!("../../migrations/sqlite/0019_payment_links.sql"),
    include_str!("../../migrations/sqlite/0020_payout_batches.sql"),
    include_str!("../../migrations/sqlite/0021_unsealed_batches.sql"),
    include_str!("../../migrations/sqlite/0022_fewer_index_entries.sql"),
    include_str!("../../migrations/sqlite/0023_missing_since.sql"),
    include_str!("../../migrations/sqlite/0024_payout_sending.sql"),
    include_str!("../../migrations/sqlite/0025_recipient_checks.sql"),
    include_str!("../../migrations/sqlite/0026_carrier.sql"),
];

const POSTGRES: [&str; 26] = [
    include_str!("../../migrations/postgres/0001_foundation.sql"),
    include_str!("../../migrations/postgres/0002_payments.sql"),
    include_str!("../../migrations/postgres/0003_webhooks.sql"),
    include_str!("../../migrations/postgres/0004_reconcile_backoff.sql"),
    include_str!("../../migrations/postgres/0005_checkout_token.sql"),
    include_str!("../../migrations/postgres/0006_launch_url.sql"),
    include_str!("../../migrations/postgres/0007_resent_at.sql"),
    include_str!("../../migrations/postgres/0008_check_token.sql"),
    include_str!("../../migrations/postgres/0009_due_checks.sql"),
    include_str!("../../migrations/postgres/0010_credit_slots.sql"),
    include_str!("../../migrations/postgres/0011_operator_alias.sql"),
    include_str!("../../migrations/postgres/0012_webhook_secret_rotation.sql"),
    include_str!("../../migrations/postgres/0013_idempotency_keys.sql"),
    include_str!("../../migrations/postgres/0014_dashboard_sessions.sql"),
    include_str!("../../migrations/postgres/0015_reports_indexes.sql"),
    include_str!("../../migrations/postgres/0016_refund_kind.sql"),
    include_str!("../../migrations/postgres/0017_refunds.sql"),
    include_str!("../../migrations/postgres/0018_refund_reason.sql"),
    include_str!("../../migrations/postgres/0019_payment_links.sql"),
    include_str!("../../migrations/postgres/0020_payout_batches.sql"),
    include_str!("../../migrations/postgres/0021_unsealed_batches.sql"),
    include_str!("../../migrations/postgres/0022_fewer_index_entries.sql"),
    include_str!("../../migrations/postgres/0023_missing_since.sql"),
    include_str!("../../migrations/postgres/0024_payout_sending.sql"),
    include_str!("../../migrations/postgres/0025_recipient_checks.sql"),
    include_str!("../../migrations/postgres/0026_carrier.sql"),
];

pub fn sqlite() -> Migrator {
    migrator(&SQLITE)
}

pub fn postgres() -> Migrator {
    migrator(&POSTGRES)
}

fn migrator(sql: &[&'static str; NAMES.len()]) -> Migrator {
    let migrations = (1..).zip(NAMES).zip(sql).map(|((version, name), sql)| {
        Migration::new(
            version,
            Cow::Borrowed(name),
            MigrationType::Simple,
            Cow::Borrowed(*sql),
            false,
        )
    });
    Migrator {
        migrations: Cow::Owned(migrations.collect()),
        ..Migrator::DEFAULT
    }
}
