//! Payout batches through the simulator, in both dialects: each item's own outcome (accepted,
//! refused with its reason, duplicate), the batch's counts, its transfers sent by the payout
//! sender and settled like single ones, its completion with one webhook event, and the ledger
//! balanced. Time is driven through the workers' `run_once(now)`.

use momo_gateway::reconcile::payout_sender::{self, Pace};
use reqwest::StatusCode;
use serde_json::{json, Value};

use crate::support::helpers::{answer, later, Answer, TestApp};
use crate::support::requests::{post, transfer_v1, transfer_v2};
use crate::support::webhooks::{dispatcher, listen, private_targets_allowed};
use momo_test_support::both_backends;

both_backends!(
    TestApp::spawn_with(small_sandbox) =>
    each_item_gets_its_own_outcome_and_the_batch_completes_once_every_transfer_is_final,
    a_v2_batch_speaks_snake_case_and_lists_its_transfers,
    an_all_or_nothing_batch_with_one_bad_item_records_nothing,
    an_all_or_nothing_batch_larger_than_the_balance_records_nothing,
    a_body_that_is_no_batch_is_refused_whole,
    the_idempotency_key_covers_the_whole_batch,
);

/// A Sandbox balance of 100,000 francs, and a receiver allowed on this machine.
fn small_sandbox(c: &mut momo_gateway::config::Config) {
    c.sandbox_initial_balance = 100_000;
    private_targets_allowed(c);
}

async fn balance(app: &TestApp, token: &str) -> Value {
    answer(app.get("/v1/balance").bearer_auth(token)).await.body["data"].clone()
}

/// Sends every queued transfer, as the server's sender does at its pace.
pub async fn drain(app: &TestApp) -> usize {
    let pace = Pace::new(100_000);
    let mut sent = 0;
    loop {
        let report = payout_sender::run_once(&app.gateway.payouts, &pace, later(0))
            .await
            .unwrap();
        if report.examined == 0 {
            return sent;
        }
        sent += report.examined;
    }
}

async fn batch_of(app: &TestApp, token: &str, path: &str) -> Answer {
    answer(app.get(path).bearer_auth(token)).await
}

async fn each_item_gets_its_own_outcome_and_the_batch_completes_once_every_transfer_is_final(app: TestApp) {
    let (receiver, token) = listen(&app, vec![], None).await;
    let earlier = post(
        &app,
        &token,
        "/v1/transfer/mobile-money",
        &transfer_v1("pay-old", "0701020301", "GAMMA_MONEY_CI", "1000"),
    )
    .await;
    assert_eq!(earlier.status, StatusCode::OK, "{}", earlier.body);
    let mut fraction = transfer_v1("pay-4", "0701020301", "GAMMA_MONEY_CI", "10.5");
    fraction["amount"] = json!("10.5");
    let items = json!([
        transfer_v1("pay-1", "0701020301", "GAMMA_MONEY_CI", "20000"),
        transfer_v1("pay-2", "0701020312", "ALPHA_MONEY_CI", "30000"),
        transfer_v1("pay-3", "12345", "GAMMA_MONEY_CI", "1000"),
        fraction,
        transfer_v1("pay-1", "0701020311", "GAMMA_MONEY_CI", "1000"),
        transfer_v1("pay-old", "0701020301", "GAMMA_MONEY_CI", "1000"),
        transfer_v1("pay-7", "0701020301", "OMEGA_MONEY", "1000"),
        transfer_v1("pay-8", "0701020321", "GAMMA_MONEY_CI", "90000"),
        transfer_v1("pay-9", "0701020331", "BETA_CI", "5000"),
    ]);
    let created = post(
        &app,
        &token,
        "/v1/payout-batches",
        &json!({"label": "November", "items": items}),
    )
    .await;
    assert_eq!(created.status, StatusCode::ACCEPTED, "{}", created.body);
    let data = &created.body["data"];
    let outcomes: Vec<(&str, Option<&str>)> = data["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| (i["outcome"].as_str().unwrap(), i["code"].as_str()))
        .collect();
    assert_eq!(
        outcomes,
        vec![
            ("accepted", None),
            ("accepted", None),
            ("refused", Some("invalid")),
            ("refused", Some("invalid")),
            ("refused", Some("duplicate_in_batch")),
            ("duplicate", None),
            ("refused", Some("invalid")),
            ("refused", Some("insufficient_funds")),
            ("accepted", None),
        ],
        "{}",
        created.body
    );
    let reason = |i: usize| data["items"][i]["reason"].as_str().unwrap().to_owned();
    assert!(
        reason(2).starts_with("items[2]: customer.phone must be"),
        "{}",
        reason(2)
    );
    assert!(reason(3).contains("amount"), "{}", reason(3));
    assert!(reason(6).contains("operator"), "{}", reason(6));
    assert_eq!(data["items"][5]["transaction"]["transactionId"], "pay-old");
    assert_eq!(
        data["items"][0]["transaction"]["status"], "PENDING",
        "queued, not sent yet"
    );
    let batch = &data["batch"];
    assert_eq!(batch["status"], "processing");
    assert_eq!(batch["label"], "November");
    assert_eq!(
        (
            &batch["submitted"],
            &batch["refused"],
            &batch["duplicates"],
            &batch["accepted"]
        ),
        (&json!(9), &json!(5), &json!(1), &json!({"count": 3, "amount": "55000"}))
    );
    let id = batch["id"].as_str().unwrap().to_owned();

    assert_eq!(drain(&app).await, 3, "each accepted transfer is sent once");
    assert_eq!(drain(&app).await, 0);
    let done = batch_of(&app, &token, &format!("/v1/payout-batches/{id}")).await;
    assert_eq!(done.status, StatusCode::OK, "{}", done.body);
    assert_eq!(done.body["data"]["status"], "completed", "{}", done.body);
    assert_eq!(done.body["data"]["successful"], json!({"count": 3, "amount": "55000"}));
    assert_eq!(done.body["data"]["pending"], json!({"count": 0, "amount": "0"}));
    let listed = answer(
        app.get(&format!("/v1/transactions?payoutBatchId={id}"))
            .bearer_auth(&token),
    )
    .await;
    let ids: Vec<&str> = listed.body["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["transactionId"].as_str().unwrap())
        .collect();
    assert_eq!(ids.len(), 3, "{}", listed.body);
    assert!(listed.body["data"]
        .as_array()
        .unwrap()
        .iter()
        .all(|t| t["payoutBatchId"] == id.as_str()));

    // One webhook per transfer (the earlier one's too), and one for the batch.
    let d = dispatcher(&app);
    d.run_once(later(0)).await.unwrap();
    let bodies: Vec<Value> = receiver
        .received()
        .iter()
        .map(|r| serde_json::from_str(&r.body).unwrap())
        .collect();
    assert_eq!(bodies.len(), 5, "{bodies:?}");
    let completed: Vec<&Value> = bodies.iter().filter(|b| b["object"] == "payout_batch").collect();
    assert_eq!(completed.len(), 1, "{bodies:?}");
    assert_eq!(completed[0]["payoutBatchId"], id.as_str());
    assert_eq!(completed[0]["status"], "completed");
    assert_eq!(completed[0]["successful"], json!({"count": 3, "amount": "55000"}));
    app.assert_ledger().await;
}

async fn a_v2_batch_speaks_snake_case_and_lists_its_transfers(app: TestApp) {
    let token = app.sandbox_token().await;
    let items = json!([
        transfer_v2("v2-1", json!("0701020301"), "GAMMA_MONEY_CI", json!(1000)),
        transfer_v2("v2-2", json!("0701020303"), "GAMMA_MONEY_CI", json!(2000)),
    ]);
    let created = post(
        &app,
        &token,
        "/v2/payout-batches",
        &json!({"items": items, "all_or_nothing": true}),
    )
    .await;
    assert_eq!(created.status, StatusCode::ACCEPTED, "{}", created.body);
    assert_eq!(created.body["message"], "PAYOUT_BATCH_ACCEPTED");
    let batch = &created.body["data"]["batch"];
    assert_eq!(batch["all_or_nothing"], true);
    assert_eq!(batch["accepted"], json!({"count": 2, "amount": "3000"}));
    let id = batch["id"].as_str().unwrap().to_owned();
    assert_eq!(
        created.body["data"]["items"][1]["transaction"]["payout_batch_id"],
        id.as_str()
    );
    assert_eq!(drain(&app).await, 2);
    // `03` is refused by the operator after its delay: the batch waits for it.
    let waiting = batch_of(&app, &token, &format!("/v2/payout-batches/{id}")).await;
    assert_eq!(waiting.body["data"]["status"], "processing", "{}", waiting.body);
    momo_gateway::reconcile::callbacks::run_once(&app.gateway.payments, later(60_000))
        .await
        .unwrap();
    let done = batch_of(&app, &token, &format!("/v2/payout-batches/{id}")).await;
    assert_eq!(done.body["data"]["status"], "completed", "{}", done.body);
    assert_eq!(done.body["data"]["failed"], json!({"count": 1, "amount": "2000"}));
    let listed = batch_of(&app, &token, "/v2/payout-batches").await;
    assert_eq!(listed.status, StatusCode::OK, "{}", listed.body);
    assert_eq!(listed.body["data"][0]["id"], id.as_str());
    app.assert_ledger().await;
}

async fn an_all_or_nothing_batch_with_one_bad_item_records_nothing(app: TestApp) {
    let token = app.sandbox_token().await;
    let before = balance(&app, &token).await;
    let items = json!([
        transfer_v1("aon-1", "0701020301", "GAMMA_MONEY_CI", "1000"),
        transfer_v1("aon-2", "0701020301", "GAMMA_MONEY_CI", "-5"),
    ]);
    let refused = post(
        &app,
        &token,
        "/v1/payout-batches",
        &json!({"items": items, "allOrNothing": true}),
    )
    .await;
    assert_eq!(refused.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", refused.body);
    assert_eq!(refused.body["message"], "UnprocessableEntityError");
    let outcomes: Vec<&str> = refused.body["data"]["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["code"].as_str().unwrap())
        .collect();
    assert_eq!(outcomes, ["not_attempted", "invalid"], "{}", refused.body);
    assert_eq!(balance(&app, &token).await, before, "nothing reserved");
    let listed = batch_of(&app, &token, "/v1/payout-batches").await;
    assert_eq!(listed.body["data"], json!([]), "no batch recorded");
}

async fn an_all_or_nothing_batch_larger_than_the_balance_records_nothing(app: TestApp) {
    let token = app.sandbox_token().await;
    let before = balance(&app, &token).await;
    let items: Vec<Value> = (0..3)
        .map(|i| {
            transfer_v2(
                &format!("big-{i}"),
                json!("0701020301"),
                "GAMMA_MONEY_CI",
                json!(40_000),
            )
        })
        .collect();
    let refused = post(
        &app,
        &token,
        "/v2/payout-batches",
        &json!({"items": items, "all_or_nothing": true}),
    )
    .await;
    assert_eq!(refused.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", refused.body);
    assert_eq!(refused.body["message"], "PAYOUT_BATCH_REFUSED");
    assert!(refused.body["data"]["items"]
        .as_array()
        .unwrap()
        .iter()
        .all(|i| i["code"] == "insufficient_funds"));
    assert_eq!(balance(&app, &token).await, before, "nothing reserved");
    // Without all-or-nothing, the items that fit are accepted, one by one.
    let items: Vec<Value> = (0..3)
        .map(|i| {
            transfer_v2(
                &format!("big-{i}"),
                json!("0701020301"),
                "GAMMA_MONEY_CI",
                json!(40_000),
            )
        })
        .collect();
    let created = post(&app, &token, "/v2/payout-batches", &json!({"items": items})).await;
    assert_eq!(created.status, StatusCode::ACCEPTED, "{}", created.body);
    let outcomes: Vec<&str> = created.body["data"]["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["outcome"].as_str().unwrap())
        .collect();
    assert_eq!(
        outcomes.iter().filter(|o| **o == "accepted").count(),
        2,
        "{}",
        created.body
    );
    assert_eq!(
        outcomes.iter().filter(|o| **o == "refused").count(),
        1,
        "{}",
        created.body
    );
    app.assert_ledger().await;
}

async fn a_body_that_is_no_batch_is_refused_whole(app: TestApp) {
    let token = app.sandbox_token().await;
    let one = transfer_v1("x", "0701020301", "GAMMA_MONEY_CI", "100");
    for (body, why) in [
        (json!({"items": []}), "no item"),
        (json!({"items": vec![one.clone(); 5_001]}), "5,001 items"),
        (json!({"label": "no items"}), "items missing"),
        (json!({"items": "all of them"}), "items not a list"),
        (json!({"items": [one.clone(), null]}), "an item null"),
        (json!({"items": [true, one.clone()]}), "an item a boolean"),
        (
            json!({"label": "pay\u{0}day", "items": [one.clone()]}),
            "a NUL in the label",
        ),
        (
            json!({"label": "pay\u{1b}[31mday", "items": [one.clone()]}),
            "an ESC in the label",
        ),
    ] {
        let a = post(&app, &token, "/v1/payout-batches", &body).await;
        assert_eq!(a.status, StatusCode::BAD_REQUEST, "{why}: {}", a.body);
        assert_eq!(a.body["message"], "BadRequestError", "{why}");
    }
    let v2_item = post(&app, &token, "/v2/payout-batches", &json!({"items": [[]]})).await;
    assert_eq!(v2_item.status, StatusCode::BAD_REQUEST, "{}", v2_item.body);
    assert!(
        v2_item.body["reason"]
            .as_str()
            .is_some_and(|r| r.contains("items[0] must be a JSON object")),
        "{}",
        v2_item.body
    );
    let nul =
        json!({"label": "pay\u{0}day", "items": [transfer_v2("x", json!("0701020301"), "GAMMA_MONEY_CI", json!(100))]});
    let nul = post(&app, &token, "/v2/payout-batches", &nul).await;
    assert_eq!(nul.status, StatusCode::BAD_REQUEST, "{}", nul.body);
    assert!(
        nul.body["reason"]
            .as_str()
            .is_some_and(|r| r.contains("label must not contain control characters")),
        "the field is named: {}",
        nul.body
    );
    let missing = batch_of(&app, &token, "/v1/payout-batches/pbt_0000000000000000000000").await;
    assert_eq!(missing.status, StatusCode::NOT_FOUND, "{}", missing.body);
    let malformed = batch_of(&app, &token, "/v2/payout-batches/nothing").await;
    assert_eq!(malformed.status, StatusCode::NOT_FOUND, "{}", malformed.body);
    let listed = batch_of(&app, &token, "/v1/payout-batches").await;
    assert_eq!(listed.body["data"], json!([]));
}

async fn the_idempotency_key_covers_the_whole_batch(app: TestApp) {
    let token = app.sandbox_token().await;
    let body = json!({"items": [transfer_v1("idem-1", "0701020301", "GAMMA_MONEY_CI", "1000")]});
    let send = || {
        answer(
            app.post("/v1/payout-batches")
                .bearer_auth(&token)
                .header("Idempotency-Key", "payroll-2026-11")
                .json(&body),
        )
    };
    let first = send().await;
    assert_eq!(first.status, StatusCode::ACCEPTED, "{}", first.body);
    let again = send().await;
    assert_eq!(again.status, StatusCode::ACCEPTED, "{}", again.body);
    assert_eq!(again.header("idempotent-replayed"), Some("true"));
    assert_eq!(again.body["data"]["batch"]["id"], first.body["data"]["batch"]["id"]);
    let listed = batch_of(&app, &token, "/v1/payout-batches").await;
    assert_eq!(listed.body["data"].as_array().unwrap().len(), 1, "one batch");
}
