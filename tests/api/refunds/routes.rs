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
