//! What the dashboard's sessions cost the database: a cookie that names no session writes
//! nothing, and a session's last-seen time is written at most once a minute. Both are shown
//! while another connection holds what a write needs (SQLite's write lock, PostgreSQL's lock on
//! the sessions table): a page that needed to write would wait, one that does not answers at
//! once.

use std::time::Duration;

use reqwest::StatusCode;
use sqlx::{Connection, Row};

use crate::support::dashboard_client::{Browser, Page};
use crate::support::helpers::TestApp;
use momo_test_support::both_backends;
use momo_test_support::Backend;

both_backends!(
    TestApp::spawn =>
    a_made_up_session_cookie_never_writes,
    a_session_writes_its_last_seen_time_at_most_once_a_minute,
);

/// Longer than any page takes unhindered, far shorter than a write waits for a lock.
const AT_ONCE: Duration = Duration::from_secs(3);

/// A connection of the test's own to the app's database.
enum Db {
    Sqlite(sqlx::SqliteConnection),
    Postgres(sqlx::PgConnection),
}

impl Db {
    async fn open(app: &TestApp) -> Db {
        match app.backend {
            Backend::Sqlite => Db::Sqlite(sqlx::SqliteConnection::connect(&app.database_url).await.unwrap()),
            Backend::Postgres => Db::Postgres(sqlx::PgConnection::connect(&app.database_url).await.unwrap()),
        }
    }

    async fn run(&mut self, statement: &str) {
        match self {
            Db::Sqlite(c) => sqlx::query(statement).execute(c).await.map(drop),
            Db::Postgres(c) => sqlx::query(statement).execute(c).await.map(drop),
        }
        .unwrap_or_else(|e| panic!("{statement}: {e}"));
    }

    /// Takes what writing a session needs, until [`Db::release`].
    async fn hold_the_write_lock(&mut self) {
        match self {
            Db::Sqlite(_) => self.run("BEGIN IMMEDIATE").await,
            Db::Postgres(_) => {
                self.run("BEGIN").await;
                self.run("LOCK TABLE dashboard_sessions IN EXCLUSIVE MODE").await;
            }
        }
    }

    async fn release(&mut self) {
        self.run("ROLLBACK").await;
    }

    /// The last-seen times of every session.
    async fn last_seen(&mut self) -> Vec<i64> {
        let query = "SELECT last_seen_at FROM dashboard_sessions ORDER BY token_hash";
        match self {
            Db::Sqlite(c) => sqlx::query(query)
                .fetch_all(c)
                .await
                .unwrap()
                .iter()
                .map(|r| r.get(0))
                .collect(),
            Db::Postgres(c) => sqlx::query(query)
                .fetch_all(c)
                .await
                .unwrap()
                .iter()
                .map(|r| r.get(0))
                .collect(),
        }
    }
}

/// `GET path`, which must answer within [`AT_ONCE`].
async fn at_once(browser: &mut Browser<'_>, path: &str) -> Page {
    tokio::time::timeout(AT_ONCE, browser.get(path))
        .await
        .unwrap_or_else(|_| panic!("{path} waited: it wrote"))
}

/// Cookies that name no session, of every shape, while nothing can be written: each is sent
/// to sign in at once, and the sessions table is as it was.
async fn a_made_up_session_cookie_never_writes(app: TestApp) {
    let mut signed_in = Browser::new(&app);
    signed_in.sign_in(&app.merchant.sandbox).await;
    let mut db = Db::open(&app).await;
    let before = db.last_seen().await;
    db.hold_the_write_lock().await;
    for made_up in ["made-up", "x", &"A".repeat(43), &"A".repeat(300)] {
        let mut browser = Browser::new(&app);
        browser.cookies.insert("momo_session".into(), made_up.to_owned());
        for path in ["/dashboard", "/dashboard/transactions"] {
            let page = at_once(&mut browser, path).await;
            assert_eq!(page.status, StatusCode::SEE_OTHER, "{made_up}: {path}");
            assert_eq!(page.location(), Some("/dashboard/login"), "{made_up}: {path}");
        }
    }
    db.release().await;
    assert_eq!(db.last_seen().await, before, "no session touched");
}

/// A session last seen two minutes ago: its next page writes the last-seen time, and the pages
/// after it within the minute do not, even while nothing can be written.
async fn a_session_writes_its_last_seen_time_at_most_once_a_minute(app: TestApp) {
    let mut browser = Browser::new(&app);
    browser.sign_in(&app.merchant.sandbox).await;
    let mut db = Db::open(&app).await;
    db.run("UPDATE dashboard_sessions SET last_seen_at = last_seen_at - 120000")
        .await;
    let long_ago = db.last_seen().await;
    assert_eq!(long_ago.len(), 1, "one session");
    assert_eq!(at_once(&mut browser, "/dashboard").await.status, StatusCode::OK);
    let seen = db.last_seen().await;
    assert!(seen[0] >= long_ago[0] + 120_000, "written: {long_ago:?} then {seen:?}");
    db.hold_the_write_lock().await;
    for path in ["/dashboard", "/dashboard/transactions", "/dashboard/customers"] {
        assert_eq!(at_once(&mut browser, path).await.status, StatusCode::OK, "{path}");
    }
    db.release().await;
    assert_eq!(db.last_seen().await, seen, "written once");
}
