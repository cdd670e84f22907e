//! `POST /v1/refunds` and `POST /v2/refunds`: a refund answered in each dialect as a creation
//! is, refusals in the envelope, and twenty refunds of one collection at once of which only
//! those that fit are recorded, on both databases.

use reqwest::StatusCode;
use serde_json::{json, Value};

use crate::support::helpers::{answer, Answer, TestApp};
use crate::support::requests::{collect_v1, post};
use momo_test_support::both_backends;

both_backends!(
    TestApp::spawn =>
    a_collection_is_refunded_through_either_dialect,
    refusals_answer_in_the_envelope_and_write_nothing,
    twenty_concurrent_refunds_of_one_collection_record_only_those_that_fit,
);

both_backends!(
    TestApp::spawn_with(an_empty_sandbox) =>
    a_refund_the_balance_cannot_cover_is_412_and_the_report_counts_refunds,
);

/// A Sandbox that opens with nothing: what a collection credits is all there is.
fn an_empty_sandbox(c: &mut momo_gateway::config::Config) {
    c.sandbox_initial_balance = 0;
}

/// A collection of `amount` the simulator pays at once (ending 01).
async fn paid(app: &TestApp, token: &str, id: &str, amount: &str) {
    let a = post(
        app,
        token,
        "/v1/collecte/mobile-money",
        &collect_v1(id, "0701020301", "ALPHA_MONEY_CI", amount),
    )
    .await;
    assert_eq!(a.status, StatusCode::OK, "{}", a.body);
}

async fn refund_v1(app: &TestApp, token: &str, body: Value) -> Answer {
    post(app, token, "/v1/refunds", &body).await
}

async fn refund_v2(app: &TestApp, token: &str, body: Value) -> Answer {
    post(app, token, "/v2/refunds", &body).await
}

async fn a_collection_is_refunded_through_either_dialect(app: TestApp) {
    let token = app.sandbox_token().await;
    paid(&app, &token, "order-1", "10000").await;
    let a = refund_v1(
        &app,
        &token,
        json!({"transactionId": "refund-1", "collection": "order-1", "amount": "4000"}),
    )
    .await;
    assert_eq!(a.status, StatusCode::OK, "{}", a.body);
    let data = &a.body["data"];
    assert_eq!(
        (
            data["typeTransaction"].as_str(),
            data["status"].as_str(),
            data["amount"].as_str(),
            data["fees"].as_str()
        ),
        (Some("refund"), Some("SUCCESSFUL"), Some("4000"), Some("0")),
        "{}",
        a.body
    );
    assert_eq!(data["phone"], "0701020301", "back to the payer");
    assert!(data["refundOf"].as_str().is_some_and(|r| r.len() == 10), "{}", a.body);
    // v2, by the collection's ref, the rest by default.
    let reference = answer(app.get("/v2/get-status-payment/order-1").bearer_auth(&token))
        .await
        .body["data"]["ref"]
        .as_str()
        .unwrap()
        .to_owned();
    let a = refund_v2(
        &app,
        &token,
        json!({"transaction_id": "refund-2", "collection_id": reference}),
    )
    .await;
    assert_eq!(a.status, StatusCode::OK, "{}", a.body);
    assert_eq!(a.body["data"]["type_transaction"], "refund", "{}", a.body);
    assert_eq!(a.body["data"]["amount"], "6000", "what remains: {}", a.body);
    // A refund is a transaction: found by its id like any, naming its collection.
    let found = answer(app.get("/v2/get-status-payment/refund-1").bearer_auth(&token)).await;
    assert_eq!(found.body["data"]["status"], "SUCCESSFUL", "{}", found.body);
    assert_eq!(found.body["data"]["refund_of"], reference.as_str(), "{}", found.body);
    let collection = answer(app.get("/v2/get-status-payment/order-1").bearer_auth(&token)).await;
    assert_eq!(
        collection.body["data"]["amount_refunded"], "10000",
        "{}",
        collection.body
    );
    let listed = answer(
        app.get(&format!("/v1/transactions?refundOf={reference}"))
            .bearer_auth(&token),
    )
    .await;
    let ids: Vec<&str> = listed.body["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["transactionId"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        ["refund-2", "refund-1"],
        "the collection's refunds, newest first: {}",
        listed.body
    );
    app.assert_ledger().await;
}

async fn refusals_answer_in_the_envelope_and_write_nothing(app: TestApp) {
    let token = app.sandbox_token().await;
    paid(&app, &token, "order-1", "10000").await;
    let cases = [
        (
            json!({"transactionId": "r", "collection": "no-such-order"}),
            StatusCode::NOT_FOUND,
        ),
        (
            json!({"transactionId": "r", "collection": "order-1", "amount": "10001"}),
            StatusCode::CONFLICT,
        ),
        (
            json!({"transactionId": "r", "collection": "order-1", "amount": "0"}),
            StatusCode::FORBIDDEN,
        ),
        (
            json!({"transactionId": "r", "collection": "order-1", "amount": "-5"}),
            StatusCode::BAD_REQUEST,
        ),
        (
            json!({"transactionId": "r", "collection": "order-1", "amount": "100.5"}),
            StatusCode::BAD_REQUEST,
        ),
        (json!({"collection": "order-1"}), StatusCode::BAD_REQUEST),
    ];
    for (body, status) in cases {
        let a = refund_v1(&app, &token, body.clone()).await;
        assert_eq!(a.status, status, "{body}: {}", a.body);
        assert_eq!(a.body["statusCode"], status.as_u16(), "{}", a.body);
    }
    let a = refund_v2(
        &app,
        &token,
        json!({"transaction_id": "r", "collection_id": "order-1", "amount": 20000}),
    )
    .await;
    assert_eq!(a.status, StatusCode::CONFLICT, "{}", a.body);
    assert_eq!(a.body["message"], "REFUND_NOT_POSSIBLE", "{}", a.body);
    assert_eq!(a.body["status"], "ERROR", "{}", a.body);
    // Another merchant's collection does not exist for this one.
    let other = app.new_merchant("Other").await;
    let theirs = app.token(&other.sandbox).await;
    let a = refund_v1(&app, &theirs, json!({"transactionId": "r", "collection": "order-1"})).await;
    assert_eq!(a.status, StatusCode::NOT_FOUND, "{}", a.body);
    let none = answer(app.get("/v2/get-status-payment/r").bearer_auth(&token)).await;
    assert_eq!(
        none.status,
        StatusCode::NOT_FOUND,
        "nothing was recorded: {}",
        none.body
    );
    let listed = answer(app.get("/v1/transactions?refundOf=not-a-ref").bearer_auth(&token)).await;
    assert_eq!(listed.status, StatusCode::BAD_REQUEST, "{}", listed.body);
    app.assert_ledger().await;
}

async fn twenty_concurrent_refunds_of_one_collection_record_only_those_that_fit(app: TestApp) {
    let token = app.sandbox_token().await;
    paid(&app, &token, "order-1", "10000").await;
    let attempts = (0..20).map(|i| {
        let body = json!({"transactionId": format!("refund-{i}"), "collection": "order-1", "amount": "1000"});
        refund_v1(&app, &token, body)
    });
    let answers = futures_util::future::join_all(attempts).await;
    let ok = answers.iter().filter(|a| a.status == StatusCode::OK).count();
    let refused = answers.iter().filter(|a| a.status == StatusCode::CONFLICT).count();
    assert_eq!(
        (ok, refused),
        (10, 10),
        "{:?}",
        answers.iter().map(|a| a.status).collect::<Vec<_>>()
    );
    app.assert_ledger().await;
}

async fn a_refund_the_balance_cannot_cover_is_412_and_the_report_counts_refunds(app: TestApp) {
    let token = app.sandbox_token().await;
    paid(&app, &token, "order-1", "10000").await;
    // The collection credited 9,800 (ALPHA's 2 % kept): all 10,000 cannot go back.
    let a = refund_v1(
        &app,
        &token,
        json!({"transactionId": "refund-1", "collection": "order-1"}),
    )
    .await;
    assert_eq!(a.status, StatusCode::PRECONDITION_FAILED, "{}", a.body);
    assert_eq!(a.body["message"], "PreconditionFailedError", "{}", a.body);
    let none = answer(app.get("/v2/get-status-payment/refund-1").bearer_auth(&token)).await;
    assert_eq!(none.status, StatusCode::NOT_FOUND, "nothing recorded: {}", none.body);
    let a = refund_v1(
        &app,
        &token,
        json!({"transactionId": "refund-2", "collection": "order-1", "amount": "9000"}),
    )
    .await;
    assert_eq!(a.status, StatusCode::OK, "{}", a.body);

    let day = a.body["data"]["createdAt"].as_str().unwrap()[..10].to_owned();
    let report = answer(
        app.get(&format!("/v1/reports/settlement?date={day}"))
            .bearer_auth(&token),
    )
    .await;
    let data = &report.body["data"];
    let refunds: Vec<&Value> = data["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["typeTransaction"] == "refund")
        .collect();
    assert_eq!(refunds.len(), 1, "{}", report.body);
    assert_eq!(
        (refunds[0]["status"].as_str(), refunds[0]["net"].as_str()),
        (Some("SUCCESSFUL"), Some("9000"))
    );
    assert_eq!(
        (
            data["totals"]["collected"].as_str(),
            data["totals"]["refunded"].as_str(),
            data["totals"]["net"].as_str()
        ),
        (Some("9800"), Some("9000"), Some("800")),
        "{}",
        report.body
    );
    let balance = answer(app.get("/v1/balance").bearer_auth(&token)).await;
    assert_eq!(balance.body["data"]["available"], "800", "{}", balance.body);
    app.assert_ledger().await;
}
