//! Group commit, seen from outside: concurrent creations share a database transaction (the
//! writers wait a little here so that they do), yet each request gets its own answer. One
//! transaction id used by 200 requests at once creates one payment and one operator call; an
//! item that fails in a batch fails alone; settlements of one transaction in one batch move it
//! once. What a caller sees when a batch's commit fails is in `commit_failures.rs`; PostgreSQL's
//! writers side by side on one merchant's balance, in `parallel_writers.rs`.

use std::time::Duration;

use momo_gateway::config::Config;
use momo_gateway::domain::Reference;
use reqwest::StatusCode;
use serde_json::Value;

use crate::support::helpers::{answer, Answer, TestApp};
use crate::support::requests::{collect_v1, transfer_v1};
use momo_test_support::both_backends;

both_backends!(
    TestApp::spawn_with(batched) =>
    two_hundred_requests_with_one_id_create_one_payment_and_one_operator_call,
    an_item_that_fails_in_a_batch_fails_alone,
    settlements_of_one_transaction_in_one_batch_move_it_once,
    creations_of_many_payers_share_statements_yet_each_fails_alone,
);

/// Writers that wait for more work, so concurrent requests land in one batch.
pub(super) fn batched(c: &mut Config) {
    c.batching.wait = Duration::from_millis(50);
    c.sandbox_initial_balance = 10_000;
}

/// Sends every request at once and waits for all the answers, in order.
pub(super) async fn all_at_once(requests: Vec<reqwest::RequestBuilder>) -> Vec<Answer> {
    let handles: Vec<_> = requests.into_iter().map(|r| tokio::spawn(answer(r))).collect();
    let mut answers = Vec::new();
    for handle in handles {
        answers.push(handle.await.expect("request task"));
    }
    answers
}

pub(super) async fn listed(app: &TestApp, token: &str) -> Vec<Value> {
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
            momo_gateway::reconcile::review::resolve(
                &gateway.payments,
                &Reference::from(reference.as_str()),
                status,
                "checked",
                Timestamp::now(),
            )
            .await
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
