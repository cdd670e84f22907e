//! Several PostgreSQL writers on one merchant's balance (SQLite has one writer): a batch held
//! open does not let another writer overdraw the merchant, credits wait in the writers' slots,
//! and transfers see every committed one.

use std::time::Duration;

use reqwest::StatusCode;
use serde_json::Value;

use super::pipeline::{all_at_once, batched};
use crate::support::helpers::{answer, TestApp};
use crate::support::requests::{collect_v1, transfer_v1};
use momo_test_support::{until, Backend};

/// How long the test waits for the writers to reach each point.
const PATIENCE: Duration = Duration::from_secs(20);

/// One writer's batch held open at its commit (a deferred trigger waits for a lock the test
/// holds) while other writers take transfers of the same merchant: they wait on the balance
/// row, and the merchant's balance never goes below zero. PostgreSQL only: SQLite has one writer.
#[tokio::test]
async fn transfers_of_one_merchant_cannot_overdraw_while_a_batch_is_held_open() {
    let Some(app) = TestApp::spawn_with(Backend::Postgres, |c| {
        batched(c);
        c.batching.wait = Duration::from_millis(5);
        c.batching.writers = 4;
    })
    .await
    else {
        return;
    };
    let pool = sqlx::PgPool::connect(&app.database_url).await.unwrap();
    for statement in [
        "CREATE FUNCTION hold_batch() RETURNS trigger AS $$ BEGIN \
         IF NEW.transaction_id LIKE 'slow%' THEN PERFORM pg_advisory_xact_lock(4242); END IF; \
         RETURN NEW; END $$ LANGUAGE plpgsql",
        "CREATE CONSTRAINT TRIGGER hold_batch AFTER INSERT ON transactions \
         DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION hold_batch()",
    ] {
        sqlx::query(statement).execute(&pool).await.unwrap();
    }
    let token = app.sandbox_token().await;
    let transfer = |id: &str| {
        app.post("/v1/transfer/mobile-money")
            .bearer_auth(&token)
            .json(&transfer_v1(id, "0701020306", "GAMMA_MONEY_CI", "1000"))
    };
    // The lock the slow batch waits for at its commit, held until other writers wait behind it.
    let mut holder = pool.acquire().await.unwrap();
    sqlx::query("SELECT pg_advisory_lock(4242)")
        .execute(&mut *holder)
        .await
        .unwrap();
    let waiting_on = |what: &'static str| {
        let pool = pool.clone();
        async move {
            let query = format!(
                "SELECT COUNT(*) FROM pg_stat_activity WHERE datname = current_database() \
                 AND wait_event_type = 'Lock' AND wait_event IN ({what})"
            );
            let waiting: i64 = sqlx::query_scalar(&query).fetch_one(&pool).await.unwrap();
            waiting > 0
        }
    };
    // 10,000 available; each transfer reserves 1,000 and its fee: at most 9 fit.
    let slow = tokio::spawn(answer(transfer("slow-0")));
    until("the slow batch held at its commit", PATIENCE, async || {
        waiting_on("'advisory'").await
    })
    .await;
    let others = tokio::spawn(all_at_once((1..40).map(|i| transfer(&format!("t-{i}"))).collect()));
    until("another writer waiting on the held balance row", PATIENCE, async || {
        waiting_on("'transactionid', 'tuple'").await
    })
    .await;
    sqlx::query("SELECT pg_advisory_unlock(4242)")
        .execute(&mut *holder)
        .await
        .unwrap();
    drop(holder);
    let mut answers = vec![slow.await.unwrap()];
    answers.extend(others.await.unwrap());
    let accepted = answers.iter().filter(|a| a.status.is_success()).count();
    let refused = answers
        .iter()
        .filter(|a| a.status == StatusCode::PRECONDITION_FAILED)
        .count();
    assert_eq!(accepted + refused, 40, "each answered 2xx or 412");
    assert!((1..=9).contains(&accepted), "{accepted} transfers fit in 10,000");
    let balance = answer(app.get("/v1/balance").bearer_auth(&token)).await;
    let available: i64 = balance.body["data"]["available"].as_str().unwrap().parse().unwrap();
    let reserved: i64 = balance.body["data"]["reserved"].as_str().unwrap().parse().unwrap();
    assert!(available >= 0, "never overdrawn: {}", balance.body);
    assert_eq!(available + reserved, 10_000, "{}", balance.body);
    app.assert_ledger().await;
    pool.close().await;
}

/// PostgreSQL writers credit a merchant side by side (each its own slot of `balance_credits`),
/// and a transfer still sees every committed credit: its batch folds the slots into the
/// balance row first. Collections and transfers of one merchant, all at once, never overdraw it
/// and leave the ledger and the balance in agreement.
#[tokio::test]
async fn credits_land_side_by_side_and_debits_see_every_committed_credit() {
    let Some(app) = TestApp::spawn_with(Backend::Postgres, |c| {
        batched(c);
        c.batching.wait = Duration::from_millis(5);
        c.batching.writers = 4;
    })
    .await
    else {
        return;
    };
    let pool = sqlx::PgPool::connect(&app.database_url).await.unwrap();
    let token = app.sandbox_token().await;
    let available = |body: &Value| -> i64 { body["data"]["available"].as_str().unwrap().parse().unwrap() };
    let reserved = |body: &Value| -> i64 { body["data"]["reserved"].as_str().unwrap().parse().unwrap() };

    let collections = (0..60)
        .map(|i| {
            app.post("/v1/collecte/mobile-money")
                .bearer_auth(&token)
                .json(&collect_v1(&format!("c-{i}"), "0701020301", "GAMMA_MONEY_CI", "1000"))
        })
        .collect();
    let answers = all_at_once(collections).await;
    assert!(
        answers.iter().all(|a| a.status.is_success()),
        "every collection is created"
    );
    let slotted: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM balance_credits WHERE amount > 0")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert!(
        slotted >= 1,
        "the credits wait in the writers' slots, not on the balance row"
    );
    let before = answer(app.get("/v1/balance").bearer_auth(&token)).await.body;
    let credited = available(&before) - 10_000;
    assert!(credited > 0 && reserved(&before) == 0, "{before}");

    // Transfers of 1,000 (and their fee) that stay PENDING: exactly as many fit as the opening
    // balance and the committed credits together pay for, which only a fold can see.
    let one = answer(
        app.post("/v1/transfer/mobile-money")
            .bearer_auth(&token)
            .json(&transfer_v1("t-probe", "0701020306", "GAMMA_MONEY_CI", "1000")),
    )
    .await;
    assert!(one.status.is_success(), "{}", one.body);
    let after_one = answer(app.get("/v1/balance").bearer_auth(&token)).await.body;
    let total = reserved(&after_one);
    let fit = (available(&after_one) / total) as usize;
    let transfers = (0..fit + 10)
        .map(|i| {
            app.post("/v1/transfer/mobile-money")
                .bearer_auth(&token)
                .json(&transfer_v1(&format!("t-{i}"), "0701020306", "GAMMA_MONEY_CI", "1000"))
        })
        .chain((60..90).map(|i| {
            app.post("/v1/collecte/mobile-money")
                .bearer_auth(&token)
                .json(&collect_v1(&format!("c-{i}"), "0701020301", "GAMMA_MONEY_CI", "1000"))
        }))
        .collect();
    let answers = all_at_once(transfers).await;
    let (transfer_answers, collection_answers) = answers.split_at(fit + 10);
    let accepted = transfer_answers.iter().filter(|a| a.status.is_success()).count();
    assert!(
        transfer_answers
            .iter()
            .all(|a| a.status.is_success() || a.status == StatusCode::PRECONDITION_FAILED),
        "each transfer answered 2xx or 412"
    );
    assert!(collection_answers.iter().all(|a| a.status.is_success()));
    assert!(
        accepted >= fit,
        "the {fit} transfers the committed credits pay for all went through ({accepted})"
    );
    let after = answer(app.get("/v1/balance").bearer_auth(&token)).await.body;
    assert!(available(&after) >= 0, "never overdrawn: {after}");
    assert_eq!(reserved(&after), total * (accepted as i64 + 1), "{after}");
    assert_eq!(
        available(&after) + reserved(&after),
        10_000 + credited * 90 / 60,
        "every credit counted once: {after}"
    );
    let negative: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM balances WHERE available < 0")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(negative, 0);
    app.assert_ledger().await;
    pool.close().await;
}
