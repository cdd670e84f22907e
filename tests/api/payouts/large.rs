//! A batch of 5,000 transfers through the simulator, on both databases: refused, duplicate and
//! accepted items mixed, each with its exact outcome; then drained by the payout sender to a
//! completed batch, every accepted transfer paid once and the ledger balanced.

use reqwest::StatusCode;
use serde_json::{json, Value};

use super::batches::drain;
use crate::support::helpers::{answer, TestApp};
use crate::support::requests::{post, transfer_v1};
use momo_test_support::both_backends;

both_backends!(
    TestApp::spawn =>
    five_thousand_items_get_their_exact_outcomes_and_drain_to_a_completed_batch,
);

/// What item `i` of the batch is, and the outcome it must get.
fn item(i: usize) -> (Value, &'static str) {
    if i % 100 == 7 {
        (
            transfer_v1(&format!("big-{i}"), "07010203", "GAMMA_MONEY_CI", "100"),
            "refused",
        )
    } else if i % 250 == 3 {
        (
            transfer_v1(&format!("early-{}", i / 250), "0701020301", "GAMMA_MONEY_CI", "100"),
            "duplicate",
        )
    } else {
        let phone = format!("07{:08}", 10_000_000 + i * 10 + 1);
        (
            transfer_v1(&format!("big-{i}"), &phone[..10], "GAMMA_MONEY_CI", "100"),
            "accepted",
        )
    }
}

async fn five_thousand_items_get_their_exact_outcomes_and_drain_to_a_completed_batch(app: TestApp) {
    let token = app.sandbox_token().await;
    for e in 0..20 {
        let early = post(
            &app,
            &token,
            "/v1/transfer/mobile-money",
            &transfer_v1(&format!("early-{e}"), "0701020301", "GAMMA_MONEY_CI", "100"),
        )
        .await;
        assert_eq!(early.status, StatusCode::OK, "{}", early.body);
    }
    let (items, expected): (Vec<Value>, Vec<&str>) = (0..5_000).map(item).unzip();
    let created = post(&app, &token, "/v1/payout-batches", &json!({"items": items})).await;
    assert_eq!(
        created.status,
        StatusCode::ACCEPTED,
        "{}",
        &created.body.to_string()[..500]
    );
    let outcomes: Vec<&str> = created.body["data"]["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["outcome"].as_str().unwrap())
        .collect();
    assert_eq!(outcomes, expected, "each item's own outcome, in order");
    for (i, got) in created.body["data"]["items"].as_array().unwrap().iter().enumerate() {
        assert_eq!(got["index"], i);
        match expected[i] {
            "refused" => assert_eq!(got["code"], "invalid", "{got}"),
            "duplicate" => assert_eq!(got["transaction"]["transactionId"], format!("early-{}", i / 250)),
            _ => assert_eq!(got["transaction"]["transactionId"], format!("big-{i}")),
        }
    }
    let accepted = expected.iter().filter(|o| **o == "accepted").count();
    let batch = &created.body["data"]["batch"];
    assert_eq!(
        (&batch["refused"], &batch["duplicates"], &batch["accepted"]["count"]),
        (&json!(50), &json!(20), &json!(accepted))
    );
    let id = batch["id"].as_str().unwrap().to_owned();

    assert_eq!(drain(&app).await, accepted, "each accepted transfer sent once");
    let done = answer(app.get(&format!("/v1/payout-batches/{id}")).bearer_auth(&token)).await;
    assert_eq!(done.body["data"]["status"], "completed", "{}", done.body);
    assert_eq!(done.body["data"]["successful"]["count"], accepted);
    assert_eq!(done.body["data"]["successful"]["amount"], (accepted * 100).to_string());
    let balance = answer(app.get("/v1/balance").bearer_auth(&token)).await;
    assert_eq!(balance.body["data"]["reserved"], "0", "{}", balance.body);
    app.assert_ledger().await;
}
