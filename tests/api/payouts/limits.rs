//! A batch's limits and fast answers: a batch over the balance is recorded in one transaction
//! too, each item accepted or refused in the request's order; a merchant's queued transfers and
//! batches being recorded at once are capped (429, nothing written); the same all-or-nothing
//! batch sent again answers with the batch that was recorded.

use std::time::{Duration, Instant};

use momo_gateway::domain::{BatchId, Timestamp};
use momo_gateway::store::{BatchLimits, NewBatch};
use reqwest::StatusCode;
use serde_json::{json, Value};

use crate::support::helpers::{answer, TestApp};
use crate::support::requests::{post, transfer_v1, transfer_v2};
use momo_test_support::both_backends;

both_backends!(
    TestApp::spawn_with(half_the_batch) =>
    five_thousand_items_over_the_balance_are_answered_at_once_in_order,
);

both_backends!(
    TestApp::spawn_with(ten_queued_at_most) =>
    a_batch_past_the_queued_cap_is_refused_whole,
    a_batch_while_two_others_are_being_recorded_is_refused,
    the_items_a_batch_has_yet_to_record_count_against_the_cap,
    the_same_all_or_nothing_batch_sent_again_answers_with_the_recorded_batch,
);

/// A Sandbox balance that covers about half of 5,000 transfers of 100 francs and their fees.
fn half_the_batch(c: &mut momo_gateway::config::Config) {
    c.sandbox_initial_balance = 260_000;
}

both_backends!(
    TestApp::spawn_with(twenty_a_second) =>
    a_batchs_recipient_checks_go_at_the_operators_pace,
);

fn twenty_a_second(c: &mut momo_gateway::config::Config) {
    c.payouts.rate_per_s = 20;
}

fn ten_queued_at_most(c: &mut momo_gateway::config::Config) {
    c.payouts.queued_max = 10;
    c.payouts.batches_at_once = 2;
}

fn items(prefix: &str, n: usize) -> Vec<Value> {
    (0..n)
        .map(|i| {
            let phone = format!("07{:08}", 10_000_000 + i * 10 + 1);
            transfer_v1(&format!("{prefix}-{i}"), &phone[..10], "GAMMA_MONEY_CI", "100")
        })
        .collect()
}

/// [`items`], each asking to be checked first.
fn checked_items(prefix: &str, n: usize) -> Vec<Value> {
    let mut items = items(prefix, n);
    for item in &mut items {
        item["checkRecipient"] = json!(true);
    }
    items
}

async fn five_thousand_items_over_the_balance_are_answered_at_once_in_order(app: TestApp) {
    let token = app.sandbox_token().await;
    let mut items = items("over", 5_000);
    // An early item too large for the balance, refused alone: later, smaller ones still fit.
    items[10] = transfer_v1("over-10", "0701020301", "GAMMA_MONEY_CI", "1000000");
    let started = Instant::now();
    let created = post(&app, &token, "/v1/payout-batches", &json!({"items": items})).await;
    let took = started.elapsed();
    assert_eq!(
        created.status,
        StatusCode::ACCEPTED,
        "{}",
        &created.body.to_string()[..300]
    );
    let outcomes: Vec<&str> = created.body["data"]["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["outcome"].as_str().unwrap())
        .collect();
    let accepted = outcomes.iter().filter(|o| **o == "accepted").count();
    assert!((2_000..4_000).contains(&accepted), "about half fit: {accepted}");
    assert_eq!(outcomes[10], "refused", "too large for the balance");
    let first_refused = outcomes
        .iter()
        .enumerate()
        .position(|(i, o)| i != 10 && *o == "refused")
        .unwrap();
    assert!(
        outcomes[first_refused..].iter().all(|o| *o == "refused"),
        "in the request's order: every item fits until the balance runs out"
    );
    assert_eq!(
        created.body["data"]["items"][first_refused]["code"], "insufficient_funds",
        "{}",
        created.body["data"]["items"][first_refused]
    );
    let balance = answer(app.get("/v1/balance").bearer_auth(&token)).await;
    let available: i64 = balance.body["data"]["available"].as_str().unwrap().parse().unwrap();
    assert!(
        (0..200).contains(&available),
        "what is left fits no more item: {}",
        balance.body
    );
    // Recorded item by item this took 6-19 s in a release build; in one transaction it takes
    // well under a second there (docs/reliability.md). The bound here is loose: a debug build on
    // a machine busy with the rest of the suite.
    assert!(took < Duration::from_secs(10), "answered in {took:?}");
    app.assert_ledger().await;
}

async fn a_batch_past_the_queued_cap_is_refused_whole(app: TestApp) {
    let token = app.sandbox_token().await;
    let first = post(&app, &token, "/v1/payout-batches", &json!({"items": items("cap-a", 6)})).await;
    assert_eq!(first.status, StatusCode::ACCEPTED, "{}", first.body);
    let over = post(&app, &token, "/v1/payout-batches", &json!({"items": items("cap-b", 5)})).await;
    assert_eq!(over.status, StatusCode::TOO_MANY_REQUESTS, "{}", over.body);
    assert!(
        over.body["reason"]
            .as_str()
            .is_some_and(|r| r.contains("6 transfers of this merchant are queued")),
        "{}",
        over.body
    );
    let v2_items: Vec<Value> = (0..5)
        .map(|i| transfer_v2(&format!("cap-c-{i}"), json!("0701020301"), "GAMMA_MONEY_CI", json!(100)))
        .collect();
    let v2 = post(&app, &token, "/v2/payout-batches", &json!({"items": v2_items})).await;
    assert_eq!(v2.status, StatusCode::TOO_MANY_REQUESTS, "{}", v2.body);
    let fits = post(&app, &token, "/v1/payout-batches", &json!({"items": items("cap-d", 4)})).await;
    assert_eq!(fits.status, StatusCode::ACCEPTED, "{}", fits.body);
    let listed = answer(app.get("/v1/payout-batches").bearer_auth(&token)).await;
    assert_eq!(
        listed.body["data"].as_array().unwrap().len(),
        2,
        "nothing of the refused ones"
    );
    // Another merchant has a cap of its own.
    let other = app.new_merchant("Other").await;
    let other = app.token(&other.sandbox).await;
    let theirs = post(
        &app,
        &other,
        "/v1/payout-batches",
        &json!({"items": items("cap-e", 10)}),
    )
    .await;
    assert_eq!(theirs.status, StatusCode::ACCEPTED, "{}", theirs.body);
}

/// A batch recorded item by item inserts its transfers after its row: a second batch checked
/// meanwhile counts the items the first has yet to insert, so the two cannot pass the cap.
async fn the_items_a_batch_has_yet_to_record_count_against_the_cap(app: TestApp) {
    let token = app.sandbox_token().await;
    let store = momo_gateway::store::connect(&app.database_url).await.unwrap();
    let recording = NewBatch {
        id: BatchId::new(),
        tenant: app.sandbox_tenant(),
        label: None,
        all_or_nothing: false,
        submitted: 8,
        created_at: Timestamp::now(),
        limits: BatchLimits {
            queued_max: 10,
            at_once: 2,
        },
    };
    store.insert_batch(&recording).await.unwrap();
    let over = post(&app, &token, "/v1/payout-batches", &json!({"items": items("over", 3)})).await;
    assert_eq!(over.status, StatusCode::TOO_MANY_REQUESTS, "{}", over.body);
    assert!(
        over.body["reason"]
            .as_str()
            .is_some_and(|r| r.contains("8 transfers of this merchant are queued or being recorded")),
        "{}",
        over.body
    );
    let fits = post(&app, &token, "/v1/payout-batches", &json!({"items": items("fits", 2)})).await;
    assert_eq!(fits.status, StatusCode::ACCEPTED, "8 + 2 is the cap: {}", fits.body);
}

async fn a_batch_while_two_others_are_being_recorded_is_refused(app: TestApp) {
    let token = app.sandbox_token().await;
    // Two batches being recorded item by item, as two requests still running leave them.
    let store = momo_gateway::store::connect(&app.database_url).await.unwrap();
    for _ in 0..2 {
        let running = NewBatch {
            id: BatchId::new(),
            tenant: app.sandbox_tenant(),
            label: None,
            all_or_nothing: false,
            submitted: 1,
            created_at: Timestamp::now(),
            limits: BatchLimits {
                queued_max: 10,
                at_once: 2,
            },
        };
        store.insert_batch(&running).await.unwrap();
    }
    let third = post(&app, &token, "/v1/payout-batches", &json!({"items": items("third", 1)})).await;
    assert_eq!(third.status, StatusCode::TOO_MANY_REQUESTS, "{}", third.body);
    assert!(
        third.body["reason"]
            .as_str()
            .is_some_and(|r| r.contains("being recorded")),
        "{}",
        third.body
    );
    let other = app.new_merchant("Other").await;
    let other = app.token(&other.sandbox).await;
    let theirs = post(
        &app,
        &other,
        "/v1/payout-batches",
        &json!({"items": items("theirs", 1)}),
    )
    .await;
    assert_eq!(
        theirs.status,
        StatusCode::ACCEPTED,
        "another merchant is not held up: {}",
        theirs.body
    );
}

async fn the_same_all_or_nothing_batch_sent_again_answers_with_the_recorded_batch(app: TestApp) {
    let token = app.sandbox_token().await;
    let body = json!({"items": items("again", 3), "allOrNothing": true});
    let first = post(&app, &token, "/v1/payout-batches", &body).await;
    assert_eq!(first.status, StatusCode::ACCEPTED, "{}", first.body);
    let again = post(&app, &token, "/v1/payout-batches", &body).await;
    assert_eq!(again.status, StatusCode::ACCEPTED, "{}", again.body);
    assert_eq!(again.body["data"]["batch"]["id"], first.body["data"]["batch"]["id"]);
    let outcomes: Vec<&str> = again.body["data"]["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["outcome"].as_str().unwrap())
        .collect();
    assert_eq!(outcomes, ["duplicate"; 3], "{}", again.body);
    // A different batch that repeats one of those ids is still refused whole.
    let mixed = json!({"items": [items("again", 1)[0].clone(), items("fresh", 1)[0].clone()], "allOrNothing": true});
    let refused = post(&app, &token, "/v1/payout-batches", &mixed).await;
    assert_eq!(refused.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", refused.body);
}

async fn a_batchs_recipient_checks_go_at_the_operators_pace(app: TestApp) {
    let token = app.sandbox_token().await;
    let checked = checked_items("checked", 60);
    let started = Instant::now();
    let created = post(&app, &token, "/v1/payout-batches", &json!({"items": checked})).await;
    let took = started.elapsed();
    assert_eq!(created.status, StatusCode::ACCEPTED, "{}", created.body);
    assert_eq!(created.body["data"]["batch"]["accepted"]["count"], 60);
    // A second's burst (20), then 20 a second: the last of 60 checks comes after 2 s.
    assert!(took >= Duration::from_millis(1_900), "paced: {took:?}");

    // More checks than half a request's time allows at that pace: refused before any is asked.
    let too_many = checked_items("many", 301);
    let refused = post(&app, &token, "/v1/payout-batches", &json!({"items": too_many})).await;
    assert_eq!(refused.status, StatusCode::BAD_REQUEST, "{}", refused.body);
    assert!(
        refused.body["reason"]
            .as_str()
            .unwrap()
            .contains("at most 300 recipients"),
        "{}",
        refused.body
    );
}
