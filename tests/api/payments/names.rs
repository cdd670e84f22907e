//! Names: one limit, 100 characters (not bytes), on every route and field that takes a name,
//! so a name one route accepts is never refused by another.

use momo_gateway::domain::Timestamp;
use reqwest::StatusCode;
use serde_json::{json, Value};

use crate::support::helpers::{set, TestApp};
use crate::support::requests::{collect_v1, collect_v2, post, transfer_v1, transfer_v2};
use momo_test_support::both_backends;

both_backends!(
    TestApp::spawn =>
    every_name_field_takes_100_characters_and_refuses_101,
);

/// What a name field holds: v1 sends first and last names, v2 one full name that is split on
/// its first space.
#[derive(Clone, Copy, PartialEq)]
enum Name {
    Part,
    Full,
}

fn customer(_: &str) -> Value {
    json!({"firstName": "Awa", "lastName": "Koné", "email": "awa@example.ci", "phoneNumber": "0701020304",
           "address": {"countryCode": "CI"}})
}

fn collection_v1(id: &str) -> Value {
    collect_v1(id, "0701020301", "ALPHA_MONEY_CI", "1000")
}

fn payout_v1(id: &str) -> Value {
    transfer_v1(id, "0701020301", "ALPHA_MONEY_CI", "1000")
}

fn shape_a(id: &str) -> Value {
    collect_v2(id, json!("0701020301"), "GAMMA_MONEY_CI", json!(1000))
}

fn shape_b(id: &str) -> Value {
    json!({"transactionId": id, "codeCountry": "CI", "operator": "GAMMA_MONEY_CI",
           "customer": {"phone": "0701020301", "name": "Awa Koné"}, "amount": 1000, "currency": "XOF"})
}

fn payout_v2(id: &str) -> Value {
    transfer_v2(id, json!("0701020301"), "BETA_CI", json!(1000))
}

/// Every name field: the path, a body for a transaction id, the name's pointer, its kind.
type NameField = (&'static str, fn(&str) -> Value, &'static str, Name);

#[rustfmt::skip]
const FIELDS: &[NameField] = &[
    ("/v1/customer", customer, "/firstName", Name::Part),
    ("/v1/customers/create", customer, "/lastName", Name::Part),
    ("/v1/collecte/mobile-money", collection_v1, "/customer/firstName", Name::Part),
    ("/v1/collecte/mobile-money", collection_v1, "/customer/lastName", Name::Part),
    ("/v1/transfer/mobile-money", payout_v1, "/customer/firstName", Name::Part),
    ("/v1/transfers/mobile-money", payout_v1, "/customer/lastName", Name::Part),
    ("/v2/collecte/mobile-money", shape_a, "/name_user", Name::Full),
    ("/v2/collecte/mobile-money", shape_b, "/customer/name", Name::Full),
    ("/v2/transfers/mobile-money", payout_v2, "/name", Name::Full),
    ("/v1/transfers/mobile-money", payout_v2, "/name", Name::Full),
];

/// A name of `chars` characters, two bytes each; a full name has a space in it.
fn name_of(chars: usize, kind: Name) -> String {
    match kind {
        Name::Part => "é".repeat(chars),
        Name::Full => format!("{} {}", "é".repeat(chars / 2), "É".repeat(chars - chars / 2 - 1)),
    }
}

async fn every_name_field_takes_100_characters_and_refuses_101(app: TestApp) {
    let token = app.sandbox_token().await;
    for (i, &(path, body_for, pointer, kind)) in FIELDS.iter().enumerate() {
        let id = format!("name-{i}");
        let what = format!("{path} {pointer}");
        let body = set(body_for(&id), pointer, json!(name_of(101, kind)));
        let a = post(&app, &token, path, &body).await;
        assert_eq!(a.status, StatusCode::BAD_REQUEST, "{what}: {}", a.body);
        let key = pointer.rsplit('/').next().unwrap();
        let reason = a.body["reason"].as_str().unwrap();
        assert!(reason.contains(key) && reason.contains("100"), "{what}: {reason:?}");
        let message = match kind {
            Name::Part => "BadRequestError",
            Name::Full => "INVALID_REQUEST",
        };
        assert_eq!(a.body["message"], message, "{what}");

        // The id was not spent by the refusal: the same request with 100 characters passes.
        let name = name_of(100, kind);
        let body = set(body_for(&id), pointer, json!(name));
        let a = post(&app, &token, path, &body).await;
        assert!(a.status.is_success(), "{what}: {}", a.body);
        if kind == Name::Full {
            assert_eq!(a.body["data"]["name_user"], json!(name), "{what}");
        }
    }
    let long = name_of(101, Name::Part);
    let refused = app
        .gateway
        .merchants
        .create_merchant(&long, None, Timestamp::now())
        .await;
    assert!(refused.is_err(), "a merchant's name has the same limit");
    let name = name_of(100, Name::Part);
    let created = app
        .gateway
        .merchants
        .create_merchant(&name, None, Timestamp::now())
        .await;
    assert!(created.is_ok(), "a 100-character merchant name is accepted");
    app.assert_ledger().await;
}
