//! Which connector serves Production: only the one `MOMO_OPERATOR_CONNECTORS` names. Unrouted,
//! a Production payment is refused in its dialect's envelope before anything is recorded;
//! routed to the simulator (`*:Production=simulator`), it works as in the Sandbox, BETA's
//! launch page included.

use reqwest::StatusCode;
use serde_json::{json, Value};

use crate::support::helpers::{answer, TestApp};
use crate::support::requests::{collect_v1, collect_v2, post, transfer_v2};
use momo_test_support::both_backends;

both_backends!(
    TestApp::spawn =>
    an_unrouted_production_payment_is_refused_and_writes_nothing,
);

both_backends!(
    TestApp::spawn_production_simulated =>
    production_routed_to_the_simulator_pays_and_its_beta_page_works,
);

/// The reason of a refusal names the setting to change.
fn names_the_setting(body: &Value) {
    let reason = body["reason"].as_str().unwrap_or_default();
    assert!(
        reason.contains("MOMO_OPERATOR_CONNECTORS") && reason.contains("Production"),
        "{body}"
    );
}

async fn an_unrouted_production_payment_is_refused_and_writes_nothing(app: TestApp) {
    let production = app.token(&app.merchant.production.clone()).await;
    let v1 = post(
        &app,
        &production,
        "/v1/collecte/mobile-money",
        &collect_v1("prod-1", "0701020301", "ALPHA_MONEY_CI", "1000"),
    )
    .await;
    assert_eq!(v1.status, StatusCode::SERVICE_UNAVAILABLE, "{}", v1.body);
    assert_eq!(v1.body["message"], "ServiceUnavailableError");
    names_the_setting(&v1.body);
    let v2 = post(
        &app,
        &production,
        "/v2/collecte/mobile-money",
        &collect_v2("prod-2", json!("0701020301"), "BETA_CI", json!(1000)),
    )
    .await;
    assert_eq!(v2.status, StatusCode::SERVICE_UNAVAILABLE, "{}", v2.body);
    assert_eq!(v2.body["message"], "OPERATOR_IS_UNAVAILABLE");
    assert_eq!(v2.body["status"], "ERROR");
    names_the_setting(&v2.body);
    let transfer = post(
        &app,
        &production,
        "/v2/transfers/mobile-money",
        &transfer_v2("prod-3", json!("0701020301"), "GAMMA_MONEY_CI", json!(1000)),
    )
    .await;
    assert_eq!(transfer.status, StatusCode::SERVICE_UNAVAILABLE, "{}", transfer.body);
    for id in ["prod-1", "prod-2", "prod-3"] {
        let lookup = answer(
            app.get(&format!("/v2/get-status-payment/{id}"))
                .bearer_auth(&production),
        )
        .await;
        assert_eq!(
            lookup.status,
            StatusCode::NOT_FOUND,
            "{id} was never recorded: {}",
            lookup.body
        );
    }
    let listed = answer(app.get("/v1/transactions").bearer_auth(&production)).await;
    assert_eq!(listed.status, StatusCode::OK, "{}", listed.body);
    assert_eq!(listed.body["data"], json!([]), "nothing recorded: {}", listed.body);
    let balance = answer(app.get("/v1/balance").bearer_auth(&production)).await;
    assert_eq!(balance.body["data"]["available"], "0", "{}", balance.body);

    // The Sandbox is served by the simulator, routed or not.
    let sandbox = app.sandbox_token().await;
    let a = post(
        &app,
        &sandbox,
        "/v1/collecte/mobile-money",
        &collect_v1("sandbox-1", "0701020301", "ALPHA_MONEY_CI", "1000"),
    )
    .await;
    assert!(a.status.is_success(), "{}", a.body);
    app.assert_ledger().await;
}

async fn production_routed_to_the_simulator_pays_and_its_beta_page_works(app: TestApp) {
    let production = app.token(&app.merchant.production.clone()).await;
    let a = post(
        &app,
        &production,
        "/v1/collecte/mobile-money",
        &collect_v1("prod-beta", "0701020307", "BETA_MONEY_CI", "5000"),
    )
    .await;
    assert_eq!(a.status, StatusCode::ACCEPTED, "{}", a.body);
    let url = a.body["data"]["betaLaunchUrl"]
        .as_str()
        .expect("a launch page")
        .to_owned();
    let path = url.strip_prefix("http://gateway.test").expect("under the public URL");
    let no_redirects = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let page = no_redirects.get(app.url(path)).send().await.unwrap();
    assert_eq!(
        page.status(),
        StatusCode::OK,
        "the launch page answers in Production too"
    );
    let approved = no_redirects
        .post(app.url(&format!("{path}/approve")))
        .send()
        .await
        .unwrap();
    assert!(
        approved.status().is_success() || approved.status().is_redirection(),
        "{}",
        approved.status()
    );
    let status = answer(app.get("/v2/get-status-payment/prod-beta").bearer_auth(&production)).await;
    assert_eq!(status.body["data"]["status"], "SUCCESSFUL", "{}", status.body);
    let balance = answer(app.get("/v1/balance").bearer_auth(&production)).await;
    // 5000 less the default collection fee (1.5 %).
    assert_eq!(balance.body["data"]["available"], "4925", "{}", balance.body);
    app.assert_ledger().await;
}
