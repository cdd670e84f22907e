//! A refund's optional reason: kept with the refund, shown in its answers, lookups, list and
//! webhook in each dialect, never on a payment that is not a refund; text that is too long or
//! holds a control character is a 400 naming `reason`, in the dialect's envelope, and records
//! nothing. On both databases.

use reqwest::StatusCode;
use serde_json::{json, Value};

use crate::support::helpers::{answer, later, TestApp};
use crate::support::requests::{collect_v1, post};
use crate::support::webhooks::{dispatcher, listen, private_targets_allowed};
use momo_test_support::both_backends;

both_backends!(
    TestApp::spawn_with(private_targets_allowed) =>
    a_refunds_reason_is_shown_wherever_the_refund_is_and_nowhere_else,
    a_reason_too_long_or_with_a_control_character_is_400_naming_it_and_records_nothing,
);

const REASON: &str = "Commande retournée : colis abîmé (n° 1001)";

async fn a_refunds_reason_is_shown_wherever_the_refund_is_and_nowhere_else(app: TestApp) {
    let (receiver, token) = listen(&app, vec![], None).await;
    let paid = post(
        &app,
        &token,
        "/v1/collecte/mobile-money",
        &collect_v1("order-1", "0701020301", "ALPHA_MONEY_CI", "10000"),
    )
    .await;
    assert_eq!(paid.status, StatusCode::OK, "{}", paid.body);
    let collection_ref = paid.body["data"]["ref"].as_str().unwrap().to_owned();

    let v1 = post(
        &app,
        &token,
        "/v1/refunds",
        &json!({"transactionId": "refund-1", "collection": "order-1", "amount": "4000", "reason": REASON}),
    )
    .await;
    assert_eq!(v1.status, StatusCode::OK, "{}", v1.body);
    assert_eq!(v1.body["data"]["reason"], REASON, "{}", v1.body);
    let v2 = post(
        &app,
        &token,
        "/v2/refunds",
        &json!({"transaction_id": "refund-2", "collection_id": "order-1", "amount": 1000, "reason": "Doublon"}),
    )
    .await;
    assert_eq!(v2.status, StatusCode::OK, "{}", v2.body);
    assert_eq!(v2.body["data"]["reason"], "Doublon", "{}", v2.body);
    let without = post(
        &app,
        &token,
        "/v1/refunds",
        &json!({"transactionId": "refund-3", "collection": "order-1", "amount": "500", "reason": null}),
    )
    .await;
    assert_eq!(without.status, StatusCode::OK, "{}", without.body);
    assert!(
        without.body["data"].get("reason").is_none(),
        "no reason given, none shown: {}",
        without.body
    );

    // Every lookup of the refund shows it, in each dialect's shape.
    for path in [
        "/v1/transaction/refund-1",
        "/v1/get-status-payment/refund-1",
        "/v2/get-status-payment/refund-1",
    ] {
        let a = answer(app.get(path).bearer_auth(&token)).await;
        assert_eq!(a.status, StatusCode::OK, "{path}: {}", a.body);
        assert_eq!(a.body["data"]["reason"], REASON, "{path}: {}", a.body);
    }
    let listed = answer(
        app.get(&format!("/v1/transactions?refundOf={collection_ref}"))
            .bearer_auth(&token),
    )
    .await;
    let reasons: Vec<&Value> = listed.body["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| &t["reason"])
        .collect();
    assert_eq!(
        reasons,
        [&Value::Null, &json!("Doublon"), &json!(REASON)],
        "newest first, refund-3 without one: {}",
        listed.body
    );

    // The collection keeps its shape: no `reason` key, in any answer.
    for path in ["/v1/transaction/order-1", "/v2/get-status-payment/order-1"] {
        let a = answer(app.get(path).bearer_auth(&token)).await;
        assert!(a.body["data"].get("reason").is_none(), "{path}: {}", a.body);
    }

    // The refund's webhook carries it; the collection's does not.
    dispatcher(&app).run_once(later(0)).await.unwrap();
    let bodies: Vec<Value> = receiver
        .received()
        .iter()
        .map(|r| serde_json::from_str(&r.body).unwrap())
        .collect();
    let of = |id: &str| bodies.iter().find(|b| b["transactionId"] == id).cloned();
    let refund = of("refund-1").expect("the refund's webhook");
    assert_eq!(
        (&refund["typeTransaction"], &refund["refundOf"], &refund["reason"]),
        (&json!("refund"), &json!(collection_ref), &json!(REASON)),
        "{refund}"
    );
    assert!(of("refund-3").expect("refund-3's webhook").get("reason").is_none());
    assert!(of("order-1").expect("the collection's webhook").get("reason").is_none());
    app.assert_ledger().await;
}

async fn a_reason_too_long_or_with_a_control_character_is_400_naming_it_and_records_nothing(app: TestApp) {
    let token = app.sandbox_token().await;
    let paid = post(
        &app,
        &token,
        "/v1/collecte/mobile-money",
        &collect_v1("order-1", "0701020301", "ALPHA_MONEY_CI", "10000"),
    )
    .await;
    assert_eq!(paid.status, StatusCode::OK, "{}", paid.body);
    let longest = "é".repeat(255);
    let refused = [
        ("a".repeat(256), "at most 255 characters"),
        ("ligne 1\nligne 2".to_owned(), "control characters"),
        ("a\u{0}b".to_owned(), "control characters"),
        ("a\u{85}b".to_owned(), "control characters"),
        ("   ".to_owned(), "must not be empty"),
    ];
    for (reason, why) in &refused {
        let body = json!({"transactionId": "r", "collection": "order-1", "reason": reason});
        let a = post(&app, &token, "/v1/refunds", &body).await;
        assert_eq!(a.status, StatusCode::BAD_REQUEST, "{reason:?}: {}", a.body);
        assert_eq!(
            (a.body["statusCode"].as_u64(), a.body["message"].as_str()),
            (Some(400), Some("BadRequestError")),
            "{}",
            a.body
        );
        let said = a.body["reason"].as_str().unwrap();
        assert!(said.starts_with("reason ") && said.contains(why), "{said:?}");

        let body = json!({"transaction_id": "r", "collection_id": "order-1", "reason": reason});
        let a = post(&app, &token, "/v2/refunds", &body).await;
        assert_eq!(a.status, StatusCode::BAD_REQUEST, "{reason:?}: {}", a.body);
        assert_eq!(
            (a.body["code_status"].as_u64(), a.body["message"].as_str()),
            (Some(400), Some("INVALID_REQUEST")),
            "{}",
            a.body
        );
        let said = a.body["reason"].as_str().unwrap();
        assert!(said.starts_with("reason ") && said.contains(why), "{said:?}");
    }
    let none = answer(app.get("/v2/get-status-payment/r").bearer_auth(&token)).await;
    assert_eq!(none.status, StatusCode::NOT_FOUND, "nothing recorded: {}", none.body);
    let collection = answer(app.get("/v1/transaction/order-1").bearer_auth(&token)).await;
    assert!(
        collection.body["data"].get("amountRefunded").is_none(),
        "nothing held: {}",
        collection.body
    );

    // The longest reason, in characters not bytes, is kept whole.
    let body = json!({"transactionId": "r", "collection": "order-1", "amount": "100", "reason": longest});
    let a = post(&app, &token, "/v1/refunds", &body).await;
    assert_eq!(a.status, StatusCode::OK, "{}", a.body);
    assert_eq!(a.body["data"]["reason"], longest.as_str());
    app.assert_ledger().await;
}
