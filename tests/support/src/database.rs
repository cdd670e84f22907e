//! Test databases shared by the API, store and reliability suites: a fresh SQLite file, or
//! a fresh PostgreSQL database created for the test and dropped after it.
//!
//! PostgreSQL is found at `MOMO_TEST_POSTGRES_URL` (default: the local server as user
//! `postgres`). When it does not answer, the PostgreSQL tests fail under `CI=true` and are
//! skipped, with a banner on stderr, elsewhere. `ports` hands out loopback ports.

use std::io::Write;
use std::sync::OnceLock;
use std::time::Duration;

use sqlx::postgres::PgPoolOptions;
use sqlx::Connection;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

/// A database that exists for one test. Dropping it removes it.
pub struct TestDatabase {
    pub url: String,
    _dir: Option<tempfile::TempDir>,
    postgres_name: Option<String>,
}

const DEFAULT_POSTGRES_URL: &str = "postgres://postgres@127.0.0.1:5432/postgres";

fn admin_url() -> String {
    std::env::var("MOMO_TEST_POSTGRES_URL").unwrap_or_else(|_| DEFAULT_POSTGRES_URL.to_owned())
}

/// Whether this run is CI (`CI=true`): what tests would skip for a missing service, they fail instead.
pub fn in_ci() -> bool {
    std::env::var("CI").map(|v| v == "true" || v == "1").unwrap_or(false)
}

impl TestDatabase {
    /// A fresh database, or `None` when PostgreSQL is wanted but absent outside CI.
    pub async fn create(backend: Backend) -> Option<TestDatabase> {
        match backend {
            Backend::Sqlite => {
                let dir = tempfile::tempdir().expect("temporary directory");
                let url = format!("sqlite://{}/momo-test.db", dir.path().display());
                Some(TestDatabase {
                    url,
                    _dir: Some(dir),
                    postgres_name: None,
                })
            }
            Backend::Postgres => Self::create_postgres().await,
        }
    }

    async fn create_postgres() -> Option<TestDatabase> {
        let admin = admin_url();
        let connected = tokio::time::timeout(Duration::from_secs(5), sqlx::PgConnection::connect(&admin)).await;
        let mut conn = match connected {
            Ok(Ok(conn)) => conn,
            Ok(Err(e)) => return skip_or_fail(&admin, &e.to_string()),
            Err(_) => return skip_or_fail(&admin, "connection timed out"),
        };
        let name = format!("momo_test_{}", uuid::Uuid::new_v4().simple());
        sqlx::query(&format!("CREATE DATABASE {name}"))
            .execute(&mut conn)
            .await
            .expect("CREATE DATABASE for a test");
        let _ = conn.close().await;
        let base = admin.rsplit_once('/').map(|(b, _)| b).unwrap_or(&admin);
        Some(TestDatabase {
            url: format!("{base}/{name}"),
            _dir: None,
            postgres_name: Some(name),
        })
    }
}

fn skip_or_fail(url: &str, why: &str) -> Option<TestDatabase> {
    if in_ci() {
        panic!("PostgreSQL is required when CI=true, but {url} did not answer: {why}");
    }
    static BANNER: OnceLock<()> = OnceLock::new();
    BANNER.get_or_init(|| {
        // Written to the real stderr, past the test harness's capture, so it is seen.
        let _ = writeln!(
            std::io::stderr(),
            "\n*** PostgreSQL tests SKIPPED: {url} did not answer ({why}). \
             Set MOMO_TEST_POSTGRES_URL or start PostgreSQL; under CI=true they fail instead. ***\n"
        );
    });
    None
}

impl Drop for TestDatabase {
    fn drop(&mut self) {
        let Some(name) = self.postgres_name.take() else { return };
        let admin = admin_url();
        // Drop runs outside any runtime we may block on: use a thread with its own.
        let _ = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .ok()?;
            runtime.block_on(async {
                let pool = PgPoolOptions::new().max_connections(1).connect(&admin).await.ok()?;
                sqlx::query(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
                    .execute(&pool)
                    .await
                    .ok()?;
                pool.close().await;
                Some(())
            })
        })
        .join();
    }
}

/// Instantiates async test functions once per backend, as `name::sqlite` and `name::postgres`,
/// each given what a setup function made for that backend.
///
/// - `both_backends!(setup => a, b)`: `setup` is an `async fn(Backend) -> Option<T>` in scope
///   in the calling module (`TestApp::spawn`, `TestDatabase::create`, ...) and each test an
///   `async fn(T)`. `None` means PostgreSQL is absent outside CI: [`TestDatabase::create`] has
///   printed the skip banner (under `CI=true` it panicked instead), and the test ends there.
/// - `both_backends!(setup(arg) => a, b)`: the same with `setup(backend, arg)`, `arg` being an
///   item of the calling module (`TestApp::spawn_with(small_balance)`, say).
#[macro_export]
macro_rules! both_backends {
    // One test at a time: `setup` repeats inside each test's module.
    ($($setup:ident)::+ $(($arg:ident))? => $name:ident $(, $rest:ident)* $(,)?) => {
        mod $name {
            #[tokio::test]
            async fn sqlite() {
                let backend = $crate::Backend::Sqlite;
                if let Some(ready) = super::$($setup)::+(backend $(, super::$arg)?).await {
                    super::$name(ready).await
                }
            }

            #[tokio::test]
            async fn postgres() {
                let backend = $crate::Backend::Postgres;
                if let Some(ready) = super::$($setup)::+(backend $(, super::$arg)?).await {
                    super::$name(ready).await
                }
            }
        }

        $crate::both_backends!($($setup)::+ $(($arg))? => $($rest),*);
    };
    ($($setup:ident)::+ $(($arg:ident))? =>) => {};
}
