//! The payer's page the gateway served before the dashboard, in a real browser: a payer
//! approves a BETA payment, and is sent on to the merchant's return URL, which the page's
//! `form-action` has to allow for the browser to follow the redirect.

use reqwest::StatusCode;
use serde_json::json;

use crate::support::browser::Browser;
use crate::support::helpers::TestApp;
use crate::support::requests::{collect_v1, post};
use momo_test_support::both_backends;

both_backends!(
    TestApp::spawn =>
    a_payer_approves_a_beta_payment_in_a_real_browser,
    the_payer_is_sent_on_to_the_merchants_return_url_under_the_pages_policy,
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

/// The merchant's site: every request answered with a small page.
async fn merchant_site() -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            tokio::spawn(async move {
                let mut request = [0u8; 4096];
                let _ = stream.read(&mut request).await;
                let page = "<!doctype html><title>Shop</title><h1>Merci</h1>";
                let answer = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{page}",
                    page.len()
                );
                let _ = stream.write_all(answer.as_bytes()).await;
            });
        }
    });
    base
}

async fn the_payer_is_sent_on_to_the_merchants_return_url_under_the_pages_policy(app: TestApp) {
    let Some(browser) = Browser::start().await else { return };
    let shop = merchant_site().await;
    let token = app.sandbox_token().await;
    let mut body = collect_v1("beta-return", "0701020307", "BETA_MONEY_CI", "2500");
    body["urlSuccess"] = json!(format!("{shop}/merci?order=7"));
    let a = post(&app, &token, "/v1/collecte/mobile-money", &body).await;
    assert_eq!(a.status, StatusCode::ACCEPTED, "{}", a.body);
    let launch = a.body["data"]["betaLaunchUrl"].as_str().expect("a launch URL");
    let path = launch.strip_prefix("http://gateway.test").unwrap();

    browser.goto(&app.url(path)).await;
    assert_eq!(browser.tab().await, "BUTTON");
    browser.enter().await;
    assert_eq!(browser.path().await, "/merci?order=7", "the redirect was followed");
    assert_eq!(browser.text("h1").await.as_deref(), Some("Merci"));
    app.assert_ledger().await;
}
