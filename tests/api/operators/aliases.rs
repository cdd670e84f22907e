//! Operator aliases of a deployment (`MOMO_OPERATOR_ALIASES`): a client that names operators by
//! brand works unchanged. The alias is accepted wherever an operator code is, the payment is
//! the operator's in every way (fees, BETA's launch page, ALPHA's one-time code), and answers,
//! lookups, lists and webhooks give back the code the merchant sent.

use momo_gateway::config::Config;
use momo_gateway::domain::{OperatorAliases, OperatorCode};
use reqwest::StatusCode;
use serde_json::{json, Value};

use crate::support::helpers::{answer, later, TestApp};
use crate::support::requests::{collect_v1, collect_v2, post, transfer_v1, transfer_v2};
use crate::support::webhooks::{dispatcher, listen};
use momo_test_support::both_backends;

both_backends!(
    TestApp::spawn_with(brand_aliases) =>
    brand_codes_are_the_operators_and_are_given_back_as_sent,
    lookups_lists_and_duplicates_give_back_the_code_sent,
    an_alpha_alias_takes_the_one_time_code,
    webhooks_give_back_the_code_sent,
);

both_backends!(
    TestApp::spawn =>
    without_aliases_a_brand_code_is_an_unknown_operator,
);

/// The aliases of the issue: the brands client libraries of the live service send.
pub fn brand_aliases(c: &mut Config) {
    c.operator_aliases = OperatorAliases::new(vec![
        ("ORANGE_MONEY_CI".into(), OperatorCode::Alpha),
        ("WAVE_CI".into(), OperatorCode::Beta),
        ("MTN_MONEY_CI".into(), OperatorCode::Gamma),
    ])
    .unwrap();
    c.webhook.allow_private = true;
}

async fn brand_codes_are_the_operators_and_are_given_back_as_sent(app: TestApp) {
    let token = app.sandbox_token().await;
    // ALPHA's fees (200 bp), BETA's (150 bp) and its launch page: the operator's in every way.
    let a = post(
        &app,
        &token,
        "/v1/collecte/mobile-money",
        &collect_v1("orange", "0701020301", "ORANGE_MONEY_CI", "1000"),
    )
    .await;
    assert_eq!(a.status, StatusCode::OK, "{}", a.body);
    assert_eq!(
        (&a.body["data"]["operator"], &a.body["data"]["fees"]),
        (&json!("ORANGE_MONEY_CI"), &json!("20"))
    );
    let a = post(
        &app,
        &token,
        "/v1/collecte/mobile-money",
        &collect_v1("wave", "0701020307", "WAVE_CI", "1000"),
    )
    .await;
    assert_eq!(a.status, StatusCode::ACCEPTED, "{}", a.body);
    assert_eq!(
        (&a.body["data"]["operator"], &a.body["data"]["fees"]),
        (&json!("WAVE_CI"), &json!("15"))
    );
    assert!(a.body["data"]["betaLaunchUrl"].is_string(), "{}", a.body);
    let a = post(
        &app,
        &token,
        "/v1/transfer/mobile-money",
        &transfer_v1("mtn-out", "0701020301", "MTN_MONEY_CI", "1000"),
    )
    .await;
    assert_eq!(a.status, StatusCode::OK, "{}", a.body);
    assert_eq!(a.body["data"]["operator"], "MTN_MONEY_CI");
    // v2, both directions and both collection shapes.
    let a = post(
        &app,
        &token,
        "/v2/collecte/mobile-money",
        &collect_v2("v2-mtn", json!("0701020301"), "MTN_MONEY_CI", json!(1000)),
    )
    .await;
    assert_eq!(a.status, StatusCode::OK, "{}", a.body);
    assert_eq!(a.body["data"]["type_payment"], "MTN_MONEY_CI");
    let shape_b = json!({"transactionId": "v2-wave", "codeCountry": "CI", "operator": "WAVE_CI",
                         "customer": {"phone": "0701020307", "name": "Awa Koné"}, "amount": 1000, "currency": "XOF"});
    let a = post(&app, &token, "/v2/collecte/mobile-money", &shape_b).await;
    assert_eq!(a.status, StatusCode::ACCEPTED, "{}", a.body);
    assert_eq!(a.body["data"]["type_payment"], "WAVE_CI");
    assert!(a.body["data"]["redirectUrl"].is_string(), "{}", a.body);
    let a = post(
        &app,
        &token,
        "/v2/transfers/mobile-money",
        &transfer_v2("v2-orange", json!("0701020301"), "ORANGE_MONEY_CI", json!(1000)),
    )
    .await;
    assert_eq!(a.status, StatusCode::OK, "{}", a.body);
    assert_eq!(a.body["data"]["type_payment"], "ORANGE_MONEY_CI");
    // The reference's codes keep their meaning and each generation's spelling.
    let a = post(
        &app,
        &token,
        "/v1/collecte/mobile-money",
        &collect_v1("ref-beta", "0701020301", "BETA_CI", "1000"),
    )
    .await;
    assert_eq!(a.body["data"]["operator"], "BETA_MONEY_CI", "{}", a.body);
    let a = post(
        &app,
        &token,
        "/v2/collecte/mobile-money",
        &collect_v2("ref-beta2", json!("0701020301"), "BETA_MONEY_CI", json!(1000)),
    )
    .await;
    assert_eq!(a.body["data"]["type_payment"], "BETA_CI", "{}", a.body);
    // An unknown code is still refused, and the answer lists the deployment's aliases.
    let a = post(
        &app,
        &token,
        "/v2/collecte/mobile-money",
        &collect_v2("moov", json!("0701020301"), "MOOV_CI", json!(1000)),
    )
    .await;
    assert_eq!(
        (a.status, &a.body["message"]),
        (StatusCode::BAD_REQUEST, &json!("OPERATOR_NO_SUPPORTED"))
    );
    assert!(a.body["reason"].as_str().unwrap().contains("WAVE_CI"), "{}", a.body);
    app.assert_ledger().await;
}

async fn lookups_lists_and_duplicates_give_back_the_code_sent(app: TestApp) {
    let token = app.sandbox_token().await;
    for (id, operator) in [
        ("l-orange", "ORANGE_MONEY_CI"),
        ("l-alpha", "ALPHA_MONEY_CI"),
        ("l-mtn", "MTN_MONEY_CI"),
    ] {
        let a = post(
            &app,
            &token,
            "/v1/collecte/mobile-money",
            &collect_v1(id, "0701020301", operator, "1000"),
        )
        .await;
        assert_eq!(a.status, StatusCode::OK, "{id}: {}", a.body);
    }
    for path in [
        "/v2/get-status-payment/l-orange",
        "/v1/get-status-payment/l-orange",
        "/v1/transaction/l-orange",
    ] {
        let a = answer(app.get(path).bearer_auth(&token)).await;
        assert_eq!(a.status, StatusCode::OK, "{path}");
        assert_eq!(a.body["data"]["type_payment"], "ORANGE_MONEY_CI", "{path}");
    }
    let a = answer(app.get("/v1/transactions").bearer_auth(&token)).await;
    let operators: Vec<(&str, &str)> = a.body["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| (t["transactionId"].as_str().unwrap(), t["operator"].as_str().unwrap()))
        .collect();
    assert_eq!(
        operators,
        [
            ("l-mtn", "MTN_MONEY_CI"),
            ("l-alpha", "ALPHA_MONEY_CI"),
            ("l-orange", "ORANGE_MONEY_CI")
        ]
    );
    // A filter by alias is a filter by its operator, whatever code each payment was sent with.
    let a = answer(app.get("/v1/transactions?operator=ORANGE_MONEY_CI").bearer_auth(&token)).await;
    assert_eq!(a.status, StatusCode::OK, "{}", a.body);
    let ids: Vec<&str> = a.body["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["transactionId"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["l-alpha", "l-orange"]);
    // A reused id answers 409 with the stored transaction, its code as first sent.
    let a = post(
        &app,
        &token,
        "/v1/collecte/mobile-money",
        &collect_v1("l-orange", "0701020301", "ALPHA_MONEY_CI", "1000"),
    )
    .await;
    assert_eq!(a.status, StatusCode::CONFLICT);
    assert_eq!(a.body["data"]["operator"], "ORANGE_MONEY_CI");
    app.assert_ledger().await;
}

async fn an_alpha_alias_takes_the_one_time_code(app: TestApp) {
    let token = app.sandbox_token().await;
    let mut body = collect_v1("otp", "0701020301", "ORANGE_MONEY_CI", "1000");
    body["otpCode"] = json!("0000");
    let a = post(&app, &token, "/v1/collecte/mobile-money", &body).await;
    assert_eq!(a.status, StatusCode::GATEWAY_TIMEOUT, "ALPHA refuses 0000: {}", a.body);
    assert_eq!(a.body["data"]["operator"], "ORANGE_MONEY_CI");
    body["transactionId"] = json!("otp-ok");
    body["otpCode"] = json!("1234");
    assert_eq!(
        post(&app, &token, "/v1/collecte/mobile-money", &body).await.status,
        StatusCode::OK
    );
    let mut v2 = collect_v2("otp2", json!("0701020301"), "ORANGE_MONEY_CI", json!(1000));
    v2["code_otp"] = json!("0000");
    let a = post(&app, &token, "/v2/collecte/mobile-money", &v2).await;
    assert_eq!(a.status, StatusCode::GATEWAY_TIMEOUT, "{}", a.body);
    assert_eq!(a.body["data"]["type_payment"], "ORANGE_MONEY_CI");
    app.assert_ledger().await;
}

async fn webhooks_give_back_the_code_sent(app: TestApp) {
    let (receiver, token) = listen(&app, vec![], None).await;
    post(
        &app,
        &token,
        "/v2/collecte/mobile-money",
        &collect_v2("hook-mtn", json!("0701020301"), "MTN_MONEY_CI", json!(1000)),
    )
    .await;
    post(
        &app,
        &token,
        "/v1/collecte/mobile-money",
        &collect_v1("hook-gamma", "0701020301", "GAMMA_MONEY", "1000"),
    )
    .await;
    assert_eq!(dispatcher(&app).run_once(later(0)).await.unwrap().delivered, 2);
    let mut operators: Vec<(String, String)> = receiver
        .received()
        .iter()
        .map(|r| {
            let body: Value = serde_json::from_str(&r.body).unwrap();
            (
                body["transactionId"].as_str().unwrap().to_owned(),
                body["operator"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    operators.sort();
    assert_eq!(
        operators,
        [
            ("hook-gamma".to_owned(), "GAMMA_MONEY_CI".to_owned()),
            ("hook-mtn".to_owned(), "MTN_MONEY_CI".to_owned())
        ]
    );
}

async fn without_aliases_a_brand_code_is_an_unknown_operator(app: TestApp) {
    let token = app.sandbox_token().await;
    let a = post(
        &app,
        &token,
        "/v1/collecte/mobile-money",
        &collect_v1("orange", "0701020301", "ORANGE_MONEY_CI", "1000"),
    )
    .await;
    assert_eq!(a.status, StatusCode::BAD_REQUEST, "{}", a.body);
    let a = post(
        &app,
        &token,
        "/v2/collecte/mobile-money",
        &collect_v2("orange2", json!("0701020301"), "ORANGE_MONEY_CI", json!(1000)),
    )
    .await;
    assert_eq!(
        (a.status, &a.body["message"]),
        (StatusCode::BAD_REQUEST, &json!("OPERATOR_NO_SUPPORTED"))
    );
    let a = answer(app.get("/v1/transactions?operator=ORANGE_MONEY_CI").bearer_auth(&token)).await;
    assert_eq!(a.status, StatusCode::BAD_REQUEST);
}
