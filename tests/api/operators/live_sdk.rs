//! The live SDK's other calls: its card payment (`POST /v1/collecte/card/create`), which the
//! gateway does not offer and says so in the v1 envelope, and the payer's page under the name
//! its README reads (`data.waveLaunchUrl`) for a BETA collection named by an alias.

use reqwest::StatusCode;
use serde_json::{json, Value};

use super::aliases::brand_aliases;
use crate::support::helpers::{answer, TestApp};
use crate::support::requests::{collect_v1, post};
use momo_test_support::both_backends;

both_backends!(
    TestApp::spawn_with(brand_aliases) =>
    the_card_route_says_card_payments_are_not_offered_and_records_nothing,
    a_beta_collection_named_by_an_alias_gives_its_page_as_wave_launch_url_too,
);

async fn the_card_route_says_card_payments_are_not_offered_and_records_nothing(app: TestApp) {
    let path = "/v1/collecte/card/create";
    let anonymous = answer(app.post(path).json(&json!({}))).await;
    assert_eq!(anonymous.status, StatusCode::UNAUTHORIZED, "{}", anonymous.body);
    assert_eq!(anonymous.body["message"], "UnauthorizedError");

    let token = app.sandbox_token().await;
    let card = json!({"transactionId": "card-1", "amount": "1500", "currency": "XOF",
                      "customer": {"firstName": "Awa", "lastName": "Koné", "phone": "0701020301"},
                      "urlSuccess": "https://shop.example.ci/merci"});
    for request in [
        app.post(path).bearer_auth(&token).json(&card),
        app.post(path)
            .bearer_auth(&token)
            .header("idempotency-key", "card-key")
            .json(&card),
        app.post(path)
            .bearer_auth(&token)
            .header("content-type", "application/json")
            .body("{not json"),
        app.post(path).bearer_auth(&token),
    ] {
        let a = answer(request).await;
        assert_eq!(a.status, StatusCode::FORBIDDEN, "{}", a.body);
        assert_eq!(
            (a.body["statusCode"].clone(), a.body["message"].clone()),
            (json!(403), json!("ForbiddenError")),
            "{}",
            a.body
        );
        let reason = a.body["reason"].as_str().unwrap();
        assert!(reason.contains("card payments are not offered"), "{reason}");
        assert!(a.body.get("data").is_none(), "{}", a.body);
    }
    let wrong_method = answer(app.get(path).bearer_auth(&token)).await;
    assert_eq!(wrong_method.status, StatusCode::METHOD_NOT_ALLOWED);
    // Nothing recorded: the identifier is free, and no transaction exists.
    let listed = answer(app.get("/v1/transactions").bearer_auth(&token)).await;
    assert_eq!(listed.body["data"], json!([]), "{}", listed.body);
    let mobile = post(
        &app,
        &token,
        "/v1/collecte/mobile-money",
        &collect_v1("card-1", "0701020301", "ALPHA_MONEY_CI", "1500"),
    )
    .await;
    assert_eq!(mobile.status, StatusCode::OK, "{}", mobile.body);
}

/// The status lookup of `id` on `path` (`/v1/transaction/`, ...): its `data`.
async fn lookup(app: &TestApp, token: &str, path: &str, id: &str) -> Value {
    let a = answer(app.get(&format!("{path}{id}")).bearer_auth(token)).await;
    assert_eq!(a.status, StatusCode::OK, "{}", a.body);
    a.body["data"].clone()
}

async fn a_beta_collection_named_by_an_alias_gives_its_page_as_wave_launch_url_too(app: TestApp) {
    let token = app.sandbox_token().await;
    let wave = post(
        &app,
        &token,
        "/v1/collecte/mobile-money",
        &collect_v1("wave-1", "0701020307", "WAVE_CI", "1000"),
    )
    .await;
    assert_eq!(wave.status, StatusCode::ACCEPTED, "{}", wave.body);
    let launch = wave.body["data"]["betaLaunchUrl"]
        .as_str()
        .expect("a launch URL")
        .to_owned();
    assert_eq!(wave.body["data"]["waveLaunchUrl"], json!(launch), "{}", wave.body);
    assert_eq!(wave.body["data"]["operator"], "WAVE_CI");
    for path in ["/v1/transaction/", "/v1/get-status-payment/"] {
        let data = lookup(&app, &token, path, "wave-1").await;
        assert_eq!(data["waveLaunchUrl"], json!(launch), "{path}: {data}");
        assert_eq!(data["redirectUrl"], json!(launch), "{path}: {data}");
    }
    let v2 = lookup(&app, &token, "/v2/get-status-payment/", "wave-1").await;
    assert!(v2.get("waveLaunchUrl").is_none(), "v2 has redirectUrl only: {v2}");
    // The URL is the payer's page.
    let path = launch.strip_prefix("http://gateway.test").unwrap();
    let page = app.get(path).send().await.unwrap();
    assert_eq!(page.status(), StatusCode::OK);

    // By the reference's code, or another operator's alias: no second name.
    let beta = post(
        &app,
        &token,
        "/v1/collecte/mobile-money",
        &collect_v1("beta-1", "0701020307", "BETA_MONEY_CI", "1000"),
    )
    .await;
    assert_eq!(beta.status, StatusCode::ACCEPTED, "{}", beta.body);
    assert!(beta.body["data"]["betaLaunchUrl"].is_string());
    assert!(beta.body["data"].get("waveLaunchUrl").is_none(), "{}", beta.body);
    let data = lookup(&app, &token, "/v1/transaction/", "beta-1").await;
    assert!(data.get("waveLaunchUrl").is_none(), "{data}");
    let mtn = post(
        &app,
        &token,
        "/v1/collecte/mobile-money",
        &collect_v1("mtn-1", "0701020302", "MTN_MONEY_CI", "1000"),
    )
    .await;
    assert_eq!(mtn.status, StatusCode::ACCEPTED, "{}", mtn.body);
    assert!(mtn.body["data"].get("waveLaunchUrl").is_none(), "{}", mtn.body);
    let data = lookup(&app, &token, "/v1/transaction/", "mtn-1").await;
    assert!(data.get("waveLaunchUrl").is_none(), "{data}");
    app.assert_ledger().await;
}
