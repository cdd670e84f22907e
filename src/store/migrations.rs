//! Migrations, embedded in the binary: the same numbering and meaning for both databases.

use std::borrow::Cow;

use sqlx::migrate::{Migration, MigrationType, Migrator};

macro_rules! embedded {
    ($dir:literal, [$(($version:literal, $name:literal)),* $(,)?]) => {
        vec![$(Migration::new(
            $version,
            Cow::Borrowed($name),
            MigrationType::Simple,
            Cow::Borrowed(include_str!(concat!("../../migrations/", $dir, "/", $name, ".sql"))),
            false,
        )),*]
    };
}

pub fn sqlite() -> Migrator {
    Migrator {
        migrations: Cow::Owned(embedded!(
            "sqlite",
            [
                (1, "0001_foundation"),
                (2, "0002_payments"),
                (3, "0003_webhooks"),
                (4, "0004_reconcile_backoff")
            ]
        )),
        ..Migrator::DEFAULT
    }
}

pub fn postgres() -> Migrator {
    Migrator {
        migrations: Cow::Owned(embedded!(
            "postgres",
            [
                (1, "0001_foundation"),
                (2, "0002_payments"),
                (3, "0003_webhooks"),
                (4, "0004_reconcile_backoff")
            ]
        )),
        ..Migrator::DEFAULT
    }
}
