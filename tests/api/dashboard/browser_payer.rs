//! The payer's page the gateway served before the dashboard, in a real browser: a payer
//! approves a BETA payment.

use reqwest::StatusCode;
use serde_json::json;

use crate::support::browser::Browser;
use crate::support::helpers::TestApp;
use crate::support::requests::{collect_v1, post};
use momo_test_support::both_backends;

both_backends!(
    TestApp::spawn =>
    a_payer_approves_a_beta_payment_in_a_real_browser,
);

async fn a_payer_approves_a_beta_payment_in_a_real_browser(app: TestApp) {
    let Some(browser) = Browser::start().await else { return };
    let token = app.sandbox_token().await;
    let a = post(
        &app,
        &token,
        "/v1/collecte/mobile-money",
        &collect_v1("beta-browser", "0701020307", "BETA_MONEY_CI", "2500"),
    )
    .await;
    assert_eq!(a.status, StatusCode::ACCEPTED, "{}", a.body);
    let launch = a.body["data"]["betaLaunchUrl"].as_str().expect("a launch URL");
    let path = launch
        .strip_prefix("http://gateway.test")
        .expect("under the public URL");

    browser.goto(&app.url(path)).await;
    assert_eq!(browser.status().await, 200);
    assert_eq!(browser.text("h1").await.as_deref(), Some("BETA Money"));
    let asks = browser.text("p").await.unwrap_or_default();
    assert!(asks.contains("Test merchant") && asks.contains("2500 XOF"), "{asks}");
    assert!(asks.contains("ending 07"), "only the number's last two digits: {asks}");
    // From the keyboard: the first Tab lands on Approve, Enter presses it.
    assert_eq!(browser.tab().await, "BUTTON");
    let on_approve = "return document.activeElement.closest('form').action.endsWith('/approve');";
    assert_eq!(browser.script(on_approve).await, json!(true));
    browser.enter().await;
    assert_eq!(browser.path().await, format!("{path}/approve"));
    assert_eq!(
        browser.text("p").await.as_deref(),
        Some("Payment approved. You can close this page.")
    );

    let lookup = crate::support::helpers::answer(app.get("/v1/transaction/beta-browser").bearer_auth(&token)).await;
    assert_eq!(lookup.status, StatusCode::OK, "{}", lookup.body);
    assert_eq!(lookup.body["data"]["status"], "SUCCESSFUL", "{}", lookup.body);
    // The page is spent: opening it again shows the result, not the buttons.
    browser.goto(&app.url(path)).await;
    assert_eq!(browser.count("form button").await, 0);
    app.assert_ledger().await;
}
