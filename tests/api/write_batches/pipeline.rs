//! Group commit, seen from outside: concurrent creations share a database transaction (the
//! writers wait a little here so that they do), yet each request gets its own answer. One
//! transaction id used by 200 requests at once creates one payment and one operator call; an
//! item that fails in a batch fails alone; a batch that fails at its commit answers every
//! request in it 503 in its envelope and writes nothing of it; a batch held open does not let
//! another writer overdraw the same merchant; on PostgreSQL, credits wait in the writers' slots and
//! transfers see every committed one; an operator's answer whose write fails is answered `PENDING`.

use std::time::Duration;

use momo_gateway::config::Config;
use reqwest::StatusCode;
use serde_json::Value;

use crate::support::helpers::{answer, Answer, TestApp};
use crate::support::requests::{collect_v1, transfer_v1};
use momo_test_support::both_backends;
use momo_test_support::Backend;

both_backends!(
    TestApp::spawn_with(batched) =>
    two_hundred_requests_with_one_id_create_one_payment_and_one_operator_call,
    an_item_that_fails_in_a_batch_fails_alone,
    settlements_of_one_transaction_in_one_batch_move_it_once,
    creations_of_many_payers_share_statements_yet_each_fails_alone,
);

/// Writers that wait for more work, so concurrent requests land in one batch.
fn batched(c: &mut Config) {
    c.batching.wait = Duration::from_millis(50);
    c.sandbox_initial_balance = 10_000;
}

/// Sends every request at once and waits for all the answers, in order.
async fn all_at_once(requests: Vec<reqwest::RequestBuilder>) -> Vec<Answer> {
    let handles: Vec<_> = requests.into_iter().map(|r| tokio::spawn(answer(r))).collect();
    let mut answers = Vec::new();
    for handle in handles {
        answers.push(handle.await.expect("request task"));
    }
    answers
}

async fn listed(app: &TestApp, token: &str) -> Vec<Value> {
    let list = answer(app.get("/v1/transactions?limit=100").bearer_auth(token)).await;
    list.body["data"].as_array().cloned().unwrap_or_default()
}

async fn two_hundred_requests_with_one_id_create_one_payment_and_one_operator_call(app: TestApp) {
    let token = app.sandbox_token().await;
    let requests = (0..200)
        .map(|_| {
            app.post("/v1/collecte/mobile-money")
                .bearer_auth(&token)
                .json(&collect_v1("one-id", "0701020301", "GAMMA_MONEY_CI", "1000"))
        })
        .collect();
    let answers = all_at_once(requests).await;
    let created = answers.iter().filter(|a| a.status.is_success()).count();
    let duplicates: Vec<&Answer> = answers.iter().filter(|a| a.status == StatusCode::CONFLICT).collect();
    assert_eq!((created, duplicates.len()), (1, 199), "one payment, 199 × 409");
    let winner = answers.iter().find(|a| a.status.is_success()).unwrap();
    assert!(
        duplicates
            .iter()
            .all(|a| a.body["data"]["ref"] == winner.body["data"]["ref"]),
        "each 409 names the payment that exists"
    );
    assert_eq!(listed(&app, &token).await.len(), 1);
    let metrics = app.get("/metrics").send().await.unwrap().text().await.unwrap();
    let line = "momo_operator_calls_total{operator=\"GAMMA\",call=\"initiate\",outcome=\"answered\"} 1";
    assert!(metrics.contains(line), "{line} in {metrics}");
    app.assert_ledger().await;
}

async fn an_item_that_fails_in_a_batch_fails_alone(app: TestApp) {
    let token = app.sandbox_token().await;
    let first = answer(
        app.post("/v1/collecte/mobile-money")
            .bearer_auth(&token)
            .json(&collect_v1("taken", "0701020301", "GAMMA_MONEY_CI", "1000")),
    )
    .await;
    assert_eq!(first.status, StatusCode::OK, "{}", first.body);
    let mut requests: Vec<reqwest::RequestBuilder> = (0..20)
        .map(|i| {
            app.post("/v1/collecte/mobile-money")
                .bearer_auth(&token)
                .json(&collect_v1(
                    &format!("fine-{i}"),
                    "0701020301",
                    "GAMMA_MONEY_CI",
                    "1000",
                ))
        })
        .collect();
    // Beyond the balance (10,000 + the collection above), and a reused id.
    requests.push(
        app.post("/v1/transfer/mobile-money")
            .bearer_auth(&token)
            .json(&transfer_v1("too-big", "0701020301", "GAMMA_MONEY_CI", "50000")),
    );
    requests.push(
        app.post("/v1/collecte/mobile-money")
            .bearer_auth(&token)
            .json(&collect_v1("taken", "0701020301", "GAMMA_MONEY_CI", "1000")),
    );
    let answers = all_at_once(requests).await;
    for (i, a) in answers[..20].iter().enumerate() {
        assert_eq!(a.status, StatusCode::OK, "fine-{i}: {}", a.body);
    }
    assert_eq!(
        answers[20].status,
        StatusCode::PRECONDITION_FAILED,
        "{}",
        answers[20].body
    );
    assert_eq!(answers[21].status, StatusCode::CONFLICT, "{}", answers[21].body);
    let ids: Vec<String> = listed(&app, &token)
        .await
        .iter()
        .filter_map(|t| t["transactionId"].as_str().map(str::to_owned))
        .collect();
    assert_eq!(ids.len(), 21, "the 20 and the first: {ids:?}");
    assert!(!ids.iter().any(|id| id == "too-big"));
    app.assert_ledger().await;
}

/// Creations from distinct payers go to the database as one set (`insert_set`); each still
/// gets its own payer, and a taken id or a transfer beyond the balance among them fails alone.
async fn creations_of_many_payers_share_statements_yet_each_fails_alone(app: TestApp) {
    let token = app.sandbox_token().await;
    let phone = |i: usize| format!("07{i:06}01");
    let first = answer(
        app.post("/v1/collecte/mobile-money")
            .bearer_auth(&token)
            .json(&collect_v1("taken", &phone(99), "GAMMA_MONEY_CI", "1000")),
    )
    .await;
    assert_eq!(first.status, StatusCode::OK, "{}", first.body);
    let together = |extra: Vec<reqwest::RequestBuilder>| {
        let mut requests: Vec<reqwest::RequestBuilder> = (0..20)
            .map(|i| {
                app.post("/v1/collecte/mobile-money")
                    .bearer_auth(&token)
                    .json(&collect_v1(&format!("set-{i}"), &phone(i), "GAMMA_MONEY_CI", "1000"))
            })
            .collect();
        requests.extend(extra);
        all_at_once(requests)
    };
    let answers = together(Vec::new()).await;
    for (i, a) in answers.iter().enumerate() {
        assert_eq!(a.status, StatusCode::OK, "set-{i}: {}", a.body);
    }
    let all = listed(&app, &token).await;
    let mut payers = Vec::new();
    for i in 0..20 {
        let t = all
            .iter()
            .find(|t| t["transactionId"] == format!("set-{i}").as_str())
            .unwrap_or_else(|| panic!("set-{i} is listed"));
        let stored = t["customer"]["phoneNumber"]
            .as_str()
            .unwrap_or_default()
            .replace(' ', "");
        assert!(stored.ends_with(&phone(i)[2..]), "set-{i} has its own payer: {t}");
        payers.push(t["customer"]["id"].to_string());
    }
    payers.sort();
    payers.dedup();
    assert_eq!(payers.len(), 20, "twenty payers: {payers:?}");
    let answers = together(vec![
        app.post("/v1/transfer/mobile-money")
            .bearer_auth(&token)
            .json(&transfer_v1("too-big", &phone(50), "GAMMA_MONEY_CI", "90000")),
        app.post("/v1/collecte/mobile-money")
            .bearer_auth(&token)
            .json(&collect_v1("taken", &phone(51), "GAMMA_MONEY_CI", "1000")),
    ])
    .await;
    assert!(
        answers[..20].iter().all(|a| a.status == StatusCode::CONFLICT),
        "set-* again are duplicates"
    );
    assert_eq!(
        answers[20].status,
        StatusCode::PRECONDITION_FAILED,
        "{}",
        answers[20].body
    );
    assert_eq!(answers[21].status, StatusCode::CONFLICT, "{}", answers[21].body);
    let answers = together(Vec::new()).await;
    assert!(answers.iter().all(|a| a.status == StatusCode::CONFLICT));
    assert_eq!(listed(&app, &token).await.len(), 21, "the first and the 20");
    app.assert_ledger().await;
}

/// Twenty settlements of one `PENDING` collection at once, half of them as successes and half
/// as failures, land in one batch: one moves it, the others find it final, and it has one
/// outbox event and at most one credit.
async fn settlements_of_one_transaction_in_one_batch_move_it_once(app: TestApp) {
    use momo_gateway::domain::{Status, Timestamp};
    let token = app.sandbox_token().await;
    let created = answer(
        app.post("/v1/collecte/mobile-money")
            .bearer_auth(&token)
            .json(&collect_v1("resolved-once", "0701020306", "GAMMA_MONEY_CI", "1000")),
    )
    .await;
    assert!(created.status.is_success(), "{}", created.body);
    let reference = listed(&app, &token).await[0]["ref"].as_str().unwrap().to_owned();
    let resolutions = (0..20).map(|i| {
        let (gateway, reference) = (app.gateway.clone(), reference.clone());
        let status = if i % 2 == 0 { Status::Successful } else { Status::Failed };
        tokio::spawn(async move {
            momo_gateway::reconcile::review::resolve(&gateway, &reference, status, "checked", Timestamp::now()).await
        })
    });
    let mut moved = Vec::new();
    for resolution in resolutions.collect::<Vec<_>>() {
        if let Ok(record) = resolution.await.unwrap() {
            moved.push(record.transaction.status);
        }
    }
    assert_eq!(moved.len(), 1, "one resolution moves it: {moved:?}");
    let balance = answer(app.get("/v1/balance").bearer_auth(&token)).await.body;
    let available: i64 = balance["data"]["available"].as_str().unwrap().parse().unwrap();
    assert!(available <= 11_000, "credited at most once: {balance}");
    app.assert_ledger().await;
}

/// A batch whose commit fails (a deferred check refuses one of its rows at commit time, the
/// way a lost connection or a full disk would fail it) answers each of its requests 503 and
/// writes none of them. PostgreSQL only: SQLite has no check that runs at commit.
#[tokio::test]
async fn a_batch_that_fails_at_its_commit_answers_503_to_each_and_writes_nothing() {
    let Some(app) = TestApp::spawn_with(Backend::Postgres, |c| {
        batched(c);
        c.batching.wait = Duration::from_millis(300);
    })
    .await
    else {
        return;
    };
    let pool = sqlx::PgPool::connect(&app.database_url).await.unwrap();
    for statement in [
        "CREATE FUNCTION refuse_poison() RETURNS trigger AS $$ BEGIN \
         IF NEW.transaction_id LIKE 'poison%' THEN RAISE EXCEPTION 'poisoned batch'; END IF; \
         RETURN NEW; END $$ LANGUAGE plpgsql",
        "CREATE CONSTRAINT TRIGGER refuse_poison AFTER INSERT ON transactions \
         DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION refuse_poison()",
    ] {
        sqlx::query(statement).execute(&pool).await.unwrap();
    }
    let token = app.sandbox_token().await;
    let requests = (0..10)
        .map(|i| format!("fine-{i}"))
        .chain(["poison-1".to_owned()])
        .map(|id| {
            app.post("/v1/collecte/mobile-money")
                .bearer_auth(&token)
                .json(&collect_v1(&id, "0701020301", "GAMMA_MONEY_CI", "1000"))
        })
        .collect();
    let answers = all_at_once(requests).await;
    for a in &answers {
        assert_eq!(a.status, StatusCode::SERVICE_UNAVAILABLE, "{}", a.body);
        assert_eq!(
            a.body["message"], "ServiceUnavailableError",
            "the v1 envelope: {}",
            a.body
        );
    }
    assert!(
        listed(&app, &token).await.is_empty(),
        "nothing of the batch was written"
    );
    let metrics = app.get("/metrics").send().await.unwrap().text().await.unwrap();
    let failed = "momo_write_batches_total{outcome=\"failed\"} 1";
    assert!(metrics.contains(failed), "{failed} in {metrics}");
    let after = answer(
        app.post("/v1/collecte/mobile-money")
            .bearer_auth(&token)
            .json(&collect_v1("after", "0701020301", "GAMMA_MONEY_CI", "1000")),
    )
    .await;
    assert_eq!(after.status, StatusCode::OK, "the next batch commits: {}", after.body);
    app.assert_ledger().await;
    pool.close().await;
}

/// One writer's batch held open at its commit (a deferred trigger sleeps) while other writers
/// take transfers of the same merchant: they wait on the balance row, and the merchant's
/// balance never goes below zero. PostgreSQL only: SQLite has one writer.
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
         IF NEW.transaction_id LIKE 'slow%' THEN PERFORM pg_sleep(0.5); END IF; \
         RETURN NEW; END $$ LANGUAGE plpgsql",
        "CREATE CONSTRAINT TRIGGER hold_batch AFTER INSERT ON transactions \
         DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION hold_batch()",
    ] {
        sqlx::query(statement).execute(&pool).await.unwrap();
    }
    let token = app.sandbox_token().await;
    // 10,000 available; each transfer reserves 1,000 and its fee: at most 9 fit.
    let requests = (0..40)
        .map(|i| {
            let id = if i == 0 { "slow-0".to_owned() } else { format!("t-{i}") };
            app.post("/v1/transfer/mobile-money")
                .bearer_auth(&token)
                .json(&transfer_v1(&id, "0701020306", "GAMMA_MONEY_CI", "1000"))
        })
        .collect();
    let answers = all_at_once(requests).await;
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

/// The operator has taken a payment, and then the write of its answer fails (the database went
/// away between the two commits): the merchant is answered 202 with the payment `PENDING`, as
/// it is stored, never a 503 that reads as "nothing happened" and invites paying again; the
/// reconciler records the outcome later. PostgreSQL only: a deferred check fails the commit.
#[tokio::test]
async fn an_operator_answer_that_cannot_be_recorded_is_answered_pending_not_503() {
    let Some(app) = TestApp::spawn_with(Backend::Postgres, batched).await else {
        return;
    };
    let pool = sqlx::PgPool::connect(&app.database_url).await.unwrap();
    for statement in [
        "CREATE FUNCTION refuse_settling() RETURNS trigger AS $$ BEGIN \
         IF NEW.transaction_id LIKE 'unrecorded%' AND NEW.status <> 'PENDING' THEN \
         RAISE EXCEPTION 'the database went away'; END IF; RETURN NEW; END $$ LANGUAGE plpgsql",
        "CREATE CONSTRAINT TRIGGER refuse_settling AFTER UPDATE ON transactions \
         DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION refuse_settling()",
    ] {
        sqlx::query(statement).execute(&pool).await.unwrap();
    }
    let token = app.sandbox_token().await;
    // 01: the simulator takes it at once; 04: it refuses at once.
    for (id, phone) in [("unrecorded-1", "0701020301"), ("unrecorded-2", "0701020304")] {
        let created = answer(
            app.post("/v1/transfer/mobile-money")
                .bearer_auth(&token)
                .json(&transfer_v1(id, phone, "GAMMA_MONEY_CI", "1000")),
        )
        .await;
        assert_eq!(created.status, StatusCode::ACCEPTED, "{id}: {}", created.body);
        assert_eq!(created.body["data"]["status"], "PENDING", "{}", created.body);
    }
    sqlx::query("DROP TRIGGER refuse_settling ON transactions")
        .execute(&pool)
        .await
        .unwrap();
    momo_gateway::reconcile::reconciler::run_once(&app.gateway, crate::support::helpers::later(60_000))
        .await
        .unwrap();
    for (id, status) in [("unrecorded-1", "SUCCESSFUL"), ("unrecorded-2", "FAILED")] {
        let looked_up = answer(app.get(&format!("/v2/get-status-payment/{id}")).bearer_auth(&token)).await;
        assert_eq!(looked_up.body["data"]["status"], status, "{}", looked_up.body);
    }
    app.assert_ledger().await;
    pool.close().await;
}
