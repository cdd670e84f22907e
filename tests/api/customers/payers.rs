//! A payment's payer is one customer record per phone number: a returning payer keeps its id,
//! the latest name and email win, and an address line is kept when a payment gives none. A payer
//! who comes back unchanged is not written again (the upsert skips it and the batch reads it
//! back), alone or in a batch of many.

use std::time::Duration;

use momo_gateway::config::Config;
use reqwest::StatusCode;
use serde_json::{json, Value};

use crate::support::helpers::{answer, TestApp};
use crate::support::requests::{collect_v1, post};
use momo_test_support::both_backends;

both_backends!(
    TestApp::spawn_with(batched) =>
    a_returning_payer_keeps_its_record_and_only_what_changes_is_written,
    returning_payers_in_one_batch_each_get_their_own_record,
);

/// Writers that wait for more work, so concurrent creations land in one batch (and its set).
fn batched(c: &mut Config) {
    c.batching.wait = Duration::from_millis(50);
}

/// A collection (pending: the payer number ends 06) from `customer`.
fn collection(id: &str, customer: Value) -> Value {
    let mut body = collect_v1(id, "0701020306", "ALPHA_MONEY_CI", "1500");
    body["payer"] = customer["phone"].clone();
    body["customer"] = customer;
    body
}

async fn payer_of(app: &TestApp, token: &str, body: &Value) -> Value {
    let a = post(app, token, "/v1/collecte/mobile-money", body).await;
    assert_eq!(a.status, StatusCode::ACCEPTED, "pending: {}", a.body);
    a.body["data"]["customer"].clone()
}

async fn a_returning_payer_keeps_its_record_and_only_what_changes_is_written(app: TestApp) {
    let token = app.sandbox_token().await;
    let first = payer_of(
        &app,
        &token,
        &collection(
            "p1",
            json!({"firstName": "Awa", "lastName": "Koné", "phone": "0701020306", "email": "awa@example.ci",
                   "address": {"countryCode": "CI", "city": "Abidjan", "streetAddress": "Rue 12"}}),
        ),
    )
    .await;
    let id = first["id"].as_str().expect("a customer id").to_owned();

    // Unchanged, and no email or address line given: nothing to write, the record as it is.
    let same = payer_of(
        &app,
        &token,
        &collection(
            "p2",
            json!({"firstName": "Awa", "lastName": "Koné", "phone": "0701020306", "address": {"countryCode": "CI"}}),
        ),
    )
    .await;
    assert_eq!(same, first, "a returning payer unchanged answers its record as stored");

    // A new last name and email win; the address lines stay.
    let renamed = payer_of(
        &app,
        &token,
        &collection(
            "p3",
            json!({"firstName": "Awa", "lastName": "Traoré", "phone": "0701020306", "email": "awa@example.com",
                   "address": {"countryCode": "CI"}}),
        ),
    )
    .await;
    assert_eq!(renamed["id"], id.as_str(), "one record per phone number");
    assert_eq!(renamed["lastName"], "Traoré");
    assert_eq!(renamed["email"], "awa@example.com");
    assert_eq!(renamed["address"]["city"], "Abidjan");
    assert_eq!(renamed["address"]["streetAddress"], "Rue 12");

    // What the customer API shows is what the payments answered.
    let fetched = answer(app.get(&format!("/v1/customer/{id}")).bearer_auth(&token)).await;
    assert_eq!(fetched.status, StatusCode::OK, "{}", fetched.body);
    assert_eq!(fetched.body["data"]["lastName"], "Traoré");
    assert_eq!(fetched.body["data"]["email"], "awa@example.com");
}

async fn returning_payers_in_one_batch_each_get_their_own_record(app: TestApp) {
    let token = app.sandbox_token().await;
    let payer = |i: usize, last: &str| {
        json!({"firstName": "Payer", "lastName": last, "phone": format!("07010{i:03}06"),
               "address": {"countryCode": "CI", "city": "Bouaké"}})
    };
    let mut ids = Vec::new();
    for i in 0..20 {
        let stored = payer_of(&app, &token, &collection(&format!("b{i}"), payer(i, "First"))).await;
        ids.push(stored["id"].as_str().expect("a customer id").to_owned());
    }
    // Twenty at once: half come back unchanged (read back), half renamed (written).
    let sending: Vec<_> = (0..20)
        .map(|i| {
            let last = if i % 2 == 0 { "First" } else { "Second" };
            let body = collection(&format!("c{i}"), payer(i, last));
            let request = app.post("/v1/collecte/mobile-money").bearer_auth(&token).json(&body);
            tokio::spawn(answer(request))
        })
        .collect();
    for (i, sent) in sending.into_iter().enumerate() {
        let a = sent.await.expect("a request task");
        assert_eq!(a.status, StatusCode::ACCEPTED, "pending: {}", a.body);
        let stored = &a.body["data"]["customer"];
        assert_eq!(stored["id"], ids[i].as_str(), "payer {i}: its own record");
        assert_eq!(stored["phoneNumber"], format!("07010{i:03}06"), "payer {i}");
        let last = if i % 2 == 0 { "First" } else { "Second" };
        assert_eq!(stored["lastName"], last, "payer {i}");
        assert_eq!(stored["address"]["city"], "Bouaké", "payer {i}");
    }
}
