//! PostgreSQL lost mid-load: the gateway process reaches its database through a proxy
//! ([`PgProxy`]), which cuts every connection and refuses new ones for
//! `MOMO_RELIABILITY_OUTAGE_S` seconds (default 10), as a stopped server would, then accepts
//! again. Requests in that window are answered 503 in their envelope (or wait for the database
//! and succeed), never 500; nothing is half-written; the same process serves again afterwards.

use std::time::{Duration, Instant};

use crate::harness::{self, env_count};
use crate::outage::{self, Window};
use crate::pg_proxy::{self, PgProxy};
use momo_test_support::process;
use momo_test_support::{Backend, TestDatabase};

fn settings() -> Vec<(&'static str, String)> {
    vec![
        ("MOMO_SIMULATOR_DELAY_MS", "300".to_owned()),
        ("MOMO_RECONCILE_INTERVAL_MS", "200".to_owned()),
        ("MOMO_RECONCILE_AFTER_MS", "500".to_owned()),
    ]
}

#[tokio::test]
async fn postgres_stopped_mid_load_answers_503_half_writes_nothing_and_recovers_without_a_restart() {
    let Some(db) = TestDatabase::create(Backend::Postgres).await else {
        return;
    };
    let started = Instant::now();
    let length = Duration::from_secs(env_count("MOMO_RELIABILITY_OUTAGE_S", 10));
    let proxy = PgProxy::start_to(pg_proxy::upstream(&db.url).await);
    // The administrator reads the database directly; only the gateway goes through the proxy.
    let admin = harness::admin(&db.url, &settings()).await;
    let merchant = harness::merchant(&admin, "Database loss", None).await;
    let gateway = process::serve(harness::command(&proxy.url(&db.url), &settings()));
    // Below the gateway's idle timeout, so the client never reuses a connection the gateway
    // is closing.
    let client = reqwest::Client::builder()
        .pool_idle_timeout(Duration::from_secs(20))
        .timeout(Duration::from_secs(60))
        .build()
        .unwrap();
    let token = harness::token(&client, &gateway.base, &merchant).await;

    let (sent, window) = outage::around(&client, &gateway.base, &token, "pg", async |_load| {
        let began = Instant::now();
        proxy.stop();
        tokio::time::sleep(length).await;
        proxy.start();
        Window {
            began,
            ended: Instant::now(),
        }
    })
    .await;
    let answers = outage::read(&sent, window);
    let aftermath =
        outage::check_aftermath(&client, gateway, &admin, &merchant, &token, &sent, "after the outage").await;
    let (retried, panics) = (&aftermath.retried, aftermath.panics);

    println!(
        "database-loss postgres: outage={}s clients=16 requests={} {} 503_in_window={} 503_after={} \
         slowest_503={}ms recovered_after={}ms retried_503={} (stored_despite_503={} created_on_retry={}) \
         stored={} left_to_check_leases={} lost=0 duplicated=0 invented=0 changed=0 pending_left=0 500s={} panics={panics} restarts=0 in {:.1}s",
        length.as_secs(),
        answers.tally.requests(),
        answers.tally,
        answers.unavailable_in_window,
        answers.unavailable_after,
        answers.slowest_unavailable.as_millis(),
        answers.recovered_after.unwrap_or_default().as_millis(),
        retried.sent.len(),
        retried.already_stored,
        retried.created,
        aftermath.stored,
        aftermath.by_process,
        answers.tally.count(500),
        started.elapsed().as_secs_f64()
    );
    assert_eq!(panics, 0, "no panic in the gateway's logs");
}
