//! Transaction ids: a reused id is refused with the existing transaction, concurrent
//! duplicates create one, and a request refused before creation does not spend its id.

use reqwest::StatusCode;
use serde_json::json;

use crate::support::helpers::{answer, Answer, TestApp};
use crate::support::requests::{collect_v1, collect_v2, post, transfer_v1, transfer_v2};
use momo_test_support::both_backends;

both_backends!(
    TestApp::spawn =>
    a_reused_transaction_id_is_refused_with_the_existing_transaction,
    twenty_concurrent_duplicates_create_one_transaction,
);

both_backends!(
    TestApp::spawn_production_simulated =>
    a_request_refused_before_creation_does_not_spend_its_id,
);

async fn a_reused_transaction_id_is_refused_with_the_existing_transaction(app: TestApp) {
    let token = app.sandbox_token().await;
    let first = post(
        &app,
        &token,
        "/v1/collecte/mobile-money",
        &collect_v1("dup-1", "0701020302", "ALPHA_MONEY_CI", "1500"),
    )
    .await;
    assert_eq!(first.status, StatusCode::ACCEPTED);
    // Same id, other amount and phone, other kind, other generation: all refused with the first.
    let again = post(
        &app,
        &token,
        "/v1/collecte/mobile-money",
        &collect_v1("dup-1", "0701020301", "ALPHA_MONEY_CI", "9000"),
    )
    .await;
    assert_eq!(again.status, StatusCode::CONFLICT);
    assert_eq!(again.body["message"], "ConflictError");
    assert_eq!(again.body["data"], first.body["data"]);
    let v1_transfer = post(
        &app,
        &token,
        "/v1/transfer/mobile-money",
        &transfer_v1("dup-1", "0701020301", "GAMMA_MONEY_CI", "1000"),
    )
    .await;
    assert_eq!(v1_transfer.status, StatusCode::CONFLICT);
    let v2 = post(
        &app,
        &token,
        "/v2/collecte/mobile-money",
        &collect_v2("dup-1", json!("0701020301"), "GAMMA_MONEY_CI", json!(1000)),
    )
    .await;
    assert_eq!(v2.status, StatusCode::CONFLICT);
    assert_eq!(v2.body["message"], "TRANSACTION_DUPLICATED");
    assert_eq!(v2.body["data"]["ref"], first.body["data"]["ref"]);
    assert_eq!(v2.body["data"]["status"], "PENDING");
    // Another merchant may use the same id.
    let other = app.new_merchant("Other").await;
    let other_token = app.token(&other.sandbox).await;
    let a = post(
        &app,
        &other_token,
        "/v1/collecte/mobile-money",
        &collect_v1("dup-1", "0701020301", "ALPHA_MONEY_CI", "1500"),
    )
    .await;
    assert_eq!(a.status, StatusCode::OK);
    let list = answer(app.get("/v1/transactions").bearer_auth(&token)).await;
    assert_eq!(
        list.body["data"].as_array().unwrap().len(),
        1,
        "no operator call, nothing written"
    );
    app.assert_ledger().await;
}

async fn twenty_concurrent_duplicates_create_one_transaction(app: TestApp) {
    let token = app.sandbox_token().await;
    let requests = (0..20).map(|i| {
        let body = if i % 2 == 0 {
            transfer_v1("same-id", "0701020301", "GAMMA_MONEY_CI", "1000")
        } else {
            collect_v1("same-id", "0701020301", "ALPHA_MONEY_CI", "1000")
        };
        let request = app
            .post(if i % 2 == 0 {
                "/v1/transfer/mobile-money"
            } else {
                "/v1/collecte/mobile-money"
            })
            .bearer_auth(&token)
            .json(&body);
        async move { answer(request).await }
    });
    let answers = futures_join_all(requests).await;
    let created: Vec<&Answer> = answers.iter().filter(|a| a.status.is_success()).collect();
    let conflicts = answers.iter().filter(|a| a.status == StatusCode::CONFLICT).count();
    assert_eq!(created.len(), 1, "exactly one creation");
    assert_eq!(conflicts, 19, "every other request is a duplicate");
    for a in answers.iter().filter(|a| a.status == StatusCode::CONFLICT) {
        assert_eq!(a.body["data"]["ref"], created[0].body["data"]["ref"]);
    }
    let list = answer(app.get("/v1/transactions").bearer_auth(&token)).await;
    assert_eq!(list.body["data"].as_array().unwrap().len(), 1);
    app.assert_ledger().await;
}

/// Runs futures concurrently on the test's runtime.
async fn futures_join_all<F: std::future::Future<Output = Answer> + Send + 'static>(
    futures: impl Iterator<Item = F>,
) -> Vec<Answer> {
    let handles: Vec<_> = futures.map(tokio::spawn).collect();
    let mut out = Vec::new();
    for h in handles {
        out.push(h.await.expect("request task"));
    }
    out
}

async fn a_request_refused_before_creation_does_not_spend_its_id(app: TestApp) {
    let token = app.sandbox_token().await;
    let a = post(
        &app,
        &token,
        "/v1/collecte/mobile-money",
        &collect_v1("keep-me", "0701020301", "ALPHA_MONEY_CI", "99"),
    )
    .await;
    assert_eq!(a.status, StatusCode::FORBIDDEN);
    assert_eq!(a.body["message"], "ForbiddenError");
    let production = app.token(&app.merchant.production.clone()).await;
    let a = post(
        &app,
        &production,
        "/v2/transfers/mobile-money",
        &transfer_v2("keep-me", json!("0701020301"), "BETA_CI", json!(1000)),
    )
    .await;
    assert_eq!(
        a.status,
        StatusCode::PRECONDITION_FAILED,
        "Production starts empty: {}",
        a.body
    );
    let a = post(
        &app,
        &token,
        "/v1/collecte/mobile-money",
        &collect_v1("keep-me", "0701020301", "ALPHA_MONEY_CI", "100"),
    )
    .await;
    assert_eq!(a.status, StatusCode::OK, "the id was not spent: {}", a.body);
    // A payment failed at once does spend its id.
    let a = post(
        &app,
        &token,
        "/v1/collecte/mobile-money",
        &collect_v1("failed", "0701020304", "ALPHA_MONEY_CI", "100"),
    )
    .await;
    assert_eq!(a.status, StatusCode::GATEWAY_TIMEOUT);
    let a = post(
        &app,
        &token,
        "/v1/collecte/mobile-money",
        &collect_v1("failed", "0701020301", "ALPHA_MONEY_CI", "100"),
    )
    .await;
    assert_eq!(a.status, StatusCode::CONFLICT);
    assert_eq!(a.body["data"]["status"], "FAILED");
    app.assert_ledger().await;
}
