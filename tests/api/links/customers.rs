//! A link's payer gives a number, not a name: paying through a link never edits the customer
//! record the merchant keeps for that number.

use reqwest::StatusCode;
use serde_json::{json, Value};

use super::page::{csrf_of, make, open, pay};
use crate::support::helpers::{answer, TestApp};
use crate::support::requests::{collect_v1, post};
use momo_test_support::both_backends;

both_backends!(TestApp::spawn => an_anonymous_link_payment_leaves_the_customer_record_as_stored);

async fn customer_of(app: &TestApp, token: &str, phone: &str) -> Vec<Value> {
    let all = answer(app.get("/v1/customers").bearer_auth(token)).await;
    assert_eq!(all.status, StatusCode::OK, "{}", all.body);
    all.body["data"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["phoneNumber"].as_str().is_some_and(|p| p.ends_with(phone)))
        .cloned()
        .collect()
}

async fn an_anonymous_link_payment_leaves_the_customer_record_as_stored(app: TestApp) {
    let token = app.sandbox_token().await;
    let collected = post(
        &app,
        &token,
        "/v1/collecte/mobile-money",
        &collect_v1("api-1", "0701020301", "GAMMA_MONEY_CI", "1000"),
    )
    .await;
    assert_eq!(collected.status, StatusCode::OK, "{}", collected.body);
    let before = customer_of(&app, &token, "0701020301").await;
    assert_eq!(before.len(), 1, "{before:?}");
    assert_eq!(
        (&before[0]["firstName"], &before[0]["lastName"]),
        (&json!("Awa"), &json!("Koné"))
    );

    let id = make(
        &app,
        json!({"amount": "2500", "description": "Panier", "operators": ["GAMMA_MONEY_CI"], "reusable": true}),
    )
    .await;
    let (_, cookie, _) = open(&app, &format!("/pay/{id}")).await;
    let csrf = csrf_of(&cookie).to_owned();
    let paid = pay(
        &app,
        &id,
        &cookie,
        &[
            ("csrf_token", &csrf),
            ("operator", "GAMMA"),
            ("phone", "07 01 02 03 01"),
        ],
    )
    .await;
    assert_eq!(paid.status(), StatusCode::SEE_OTHER);

    let after = customer_of(&app, &token, "0701020301").await;
    assert_eq!(after, before, "the record as the merchant's collection left it");
    let transactions = answer(app.get("/v1/transactions").bearer_auth(&token)).await;
    assert_eq!(
        transactions.body["data"].as_array().unwrap().len(),
        2,
        "both payments made"
    );
}
