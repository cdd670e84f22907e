//! `/metrics` while the database does not answer: the process's own series stay, the
//! database's gauges are left out, and `momo_database_up` says which.

use std::time::{Duration, Instant};

use reqwest::StatusCode;
use sqlx::Connection;

use crate::support::helpers::{answer, TestApp};
use crate::support::requests::{collect_v1, post};
use momo_test_support::both_backends;
use momo_test_support::Backend;

both_backends!(TestApp::spawn_with(read_at_every_scrape) => metrics_answer_without_the_database_and_say_so);

/// Each scrape reads the database, so the next one sees what changed under it.
fn read_at_every_scrape(c: &mut momo_gateway::config::Config) {
    c.metrics.database_refresh = Duration::ZERO;
}

/// Runs one statement on the app's database from a connection of its own.
async fn run_sql(app: &TestApp, statement: &str) {
    match app.backend {
        Backend::Sqlite => {
            let mut conn = sqlx::SqliteConnection::connect(&app.database_url).await.unwrap();
            sqlx::query(statement).execute(&mut conn).await.unwrap();
        }
        Backend::Postgres => {
            let mut conn = sqlx::PgConnection::connect(&app.database_url).await.unwrap();
            sqlx::query(statement).execute(&mut conn).await.unwrap();
        }
    }
}

async fn scrape(app: &TestApp) -> String {
    // Bounded, so a scrape that hangs fails the test rather than holding it.
    let response = app
        .get("/metrics")
        .timeout(Duration::from_secs(15))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK, "/metrics answers");
    response.text().await.unwrap()
}

fn has_line(text: &str, line: &str) -> bool {
    text.lines().any(|l| l == line)
}

/// The database's figures cannot be read (their table is gone from under the running
/// server): `/metrics` still answers 200, with `momo_database_up 0`, no database gauge, and
/// the process's counters; once the table is back, the gauges are too.
async fn metrics_answer_without_the_database_and_say_so(app: TestApp) {
    let token = app.sandbox_token().await;
    post(
        &app,
        &token,
        "/v1/collecte/mobile-money",
        &collect_v1("before", "0701020302", "GAMMA_MONEY_CI", "1000"),
    )
    .await;
    let before = scrape(&app).await;
    assert!(has_line(&before, "momo_database_up 1"), "{before}");
    assert!(has_line(&before, "momo_pending_transactions 1"), "{before}");

    run_sql(&app, "ALTER TABLE outbox_events RENAME TO outbox_events_gone").await;
    let during = scrape(&app).await;
    assert!(has_line(&during, "momo_database_up 0"), "{during}");
    for gone in [
        "momo_pending_transactions",
        "momo_oldest_pending_transaction_age_seconds",
        "momo_transfers_needing_review",
        "momo_outbox_backlog",
        "momo_outbox_oldest_age_seconds",
    ] {
        assert!(!during.contains(gone), "no {gone} while it cannot be read:\n{during}");
    }
    for kept in [
        "momo_transactions_total{operator=\"GAMMA\",type=\"collecte\",outcome=\"PENDING\"} 1",
        "momo_write_batches_total{outcome=\"failed\"} 0",
        "momo_build_info{version=",
        "momo_db_pool_connections ",
        "process_cpu_seconds_total ",
    ] {
        assert!(during.contains(kept), "{kept:?} while the database is away:\n{during}");
    }
    let openmetrics = app
        .get("/metrics")
        .header("Accept", "application/openmetrics-text")
        .send()
        .await
        .unwrap();
    assert_eq!(openmetrics.status(), StatusCode::OK);
    assert!(
        openmetrics.text().await.unwrap().ends_with("# EOF\n"),
        "a complete exposition"
    );

    run_sql(&app, "ALTER TABLE outbox_events_gone RENAME TO outbox_events").await;
    let after = scrape(&app).await;
    assert!(has_line(&after, "momo_database_up 1"), "{after}");
    assert!(has_line(&after, "momo_pending_transactions 1"), "{after}");
}

/// A database that does not answer in time (a lock held on a table the figures read) costs a
/// scrape its database gauges after a bounded wait, not the scrape. PostgreSQL only: SQLite's
/// readers are never blocked by another connection's lock.
#[tokio::test]
async fn a_scrape_waits_a_bounded_time_for_the_database() {
    let Some(app) = TestApp::spawn_with(Backend::Postgres, read_at_every_scrape).await else {
        return;
    };
    let mut locker = sqlx::PgConnection::connect(&app.database_url).await.unwrap();
    let mut held = locker.begin().await.unwrap();
    sqlx::query("LOCK TABLE outbox_events IN ACCESS EXCLUSIVE MODE")
        .execute(&mut *held)
        .await
        .unwrap();
    let started = Instant::now();
    let during = scrape(&app).await;
    let waited = started.elapsed();
    assert!(has_line(&during, "momo_database_up 0"), "{during}");
    assert!(!during.contains("momo_outbox_backlog"), "{during}");
    assert!(
        waited >= Duration::from_secs(2) && waited < Duration::from_secs(8),
        "the scrape waited about 3 s for the database, not {waited:?}"
    );
    held.rollback().await.unwrap();
    let after = scrape(&app).await;
    assert!(has_line(&after, "momo_database_up 1"), "{after}");
    // The health of the API itself did not depend on the scrape.
    assert_eq!(answer(app.get("/health")).await.status, StatusCode::OK);
}
