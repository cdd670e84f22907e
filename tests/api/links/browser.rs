//! A payer pays payment links from a phone-width window in a real browser (headless Chromium):
//! a fixed link with GAMMA (approved at once), and an open-amount link with BETA, approved on
//! the simulator's BETA page the status page goes on to. The SQLite half writes the payer's
//! pages to docs/payment-links/.

use std::path::PathBuf;
use std::time::Duration;

use reqwest::StatusCode;
use serde_json::{json, Value};

use crate::support::browser::Browser;
use crate::support::helpers::{answer, gateway_port, TestApp};
use crate::support::requests::post;
use momo_test_support::{both_backends, Backend};

both_backends!(
    TestApp::spawn_with(served_where_it_listens) =>
    a_payer_pays_a_fixed_and_an_open_link_from_a_phone,
);

/// The gateway's public URL is where it listens, so the BETA page it sends the payer to loads.
fn served_where_it_listens(c: &mut momo_gateway::config::Config) {
    let port = gateway_port();
    c.listen = ([127, 0, 0, 1], port).into();
    c.public_url = format!("http://127.0.0.1:{port}");
}

async fn screenshot(browser: &Browser, app: &TestApp, name: &str) {
    if app.backend != Backend::Sqlite {
        return;
    }
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("docs/payment-links");
    std::fs::create_dir_all(&dir).expect("docs/payment-links");
    browser.screenshot(&dir.join(format!("{name}.png"))).await;
}

async fn make(app: &TestApp, body: Value) -> String {
    let token = app.sandbox_token().await;
    let a = post(app, &token, "/v1/payment-links", &body).await;
    assert_eq!(a.status, StatusCode::OK, "{}", a.body);
    a.body["data"]["id"].as_str().unwrap().to_owned()
}

/// Nothing wider than the window: no sideways scrolling on a phone.
async fn fits(browser: &Browser, width: u32) {
    let wide = browser.script("return document.documentElement.scrollWidth;").await;
    assert!(
        wide.as_u64().unwrap_or(u64::MAX) <= u64::from(width),
        "the page is {wide} px wide"
    );
}

async fn choose(browser: &Browser, operator: &str) {
    browser
        .script(&format!(
            "document.querySelector('input[name=operator][value={operator}]').click();"
        ))
        .await;
}

async fn a_payer_pays_a_fixed_and_an_open_link_from_a_phone(app: TestApp) {
    let Some(browser) = Browser::start().await else { return };
    browser.window(390, 844).await;
    let fixed = make(
        &app,
        json!({"amount": "15000", "description": "Robe wax, taille M",
        "operators": ["GAMMA_MONEY_CI", "BETA_MONEY_CI", "DELTA_MONEY_CI"]}),
    )
    .await;
    browser.goto(&app.url(&format!("/pay/{fixed}"))).await;
    assert_eq!(browser.status().await, 200);
    assert_eq!(browser.text("#merchant").await.as_deref(), Some("Test merchant"));
    assert_eq!(browser.count("input[name=operator]").await, 3);
    assert_eq!(browser.count("#otp_code").await, 0, "no ALPHA, no code");
    fits(&browser, 390).await;
    choose(&browser, "GAMMA").await;
    browser.type_into("#phone", "07 01 02 03 01").await;
    screenshot(&browser, &app, "payer-page").await;
    browser.click("#pay-submit").await;
    assert!(browser.path().await.starts_with(&format!("/pay/{fixed}/payments/")));
    assert_eq!(
        browser.attr("#state", "data-status").await.as_deref(),
        Some("SUCCESSFUL")
    );
    fits(&browser, 390).await;
    screenshot(&browser, &app, "payer-paid").await;
    // Paid once: the link now says so.
    browser.goto(&app.url(&format!("/pay/{fixed}"))).await;
    assert_eq!(browser.status().await, 410);

    let open = make(
        &app,
        json!({"minAmount": "500", "maxAmount": "50000", "description": "Cotisation",
        "reusable": true}),
    )
    .await;
    browser.goto(&app.url(&format!("/pay/{open}?lang=en"))).await;
    assert_eq!(browser.attr("html", "lang").await.as_deref(), Some("en"));
    browser.type_into("#amount", "2500").await;
    // From the keyboard, in reading order: the amount, the operators, the number, the code.
    assert_eq!(browser.tab().await, "operator");
    assert_eq!(browser.tab().await, "phone");
    assert_eq!(browser.tab().await, "otp_code", "the link takes ALPHA: its code");
    assert_eq!(browser.tab().await, "pay-submit");
    choose(&browser, "BETA").await;
    browser.type_into("#phone", "0701020301").await;
    browser.click("#pay-submit").await;
    // The status page goes on to the BETA page, where the payer approves.
    let mut path = browser.path().await;
    for _ in 0..50 {
        if path.starts_with("/checkout/") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
        path = browser.path().await;
    }
    assert!(path.starts_with("/checkout/"), "on the BETA page: {path}");
    browser.click("form[action$='/approve'] button").await;
    let token = app.sandbox_token().await;
    let all = answer(app.get("/v1/transactions?operator=BETA_MONEY_CI").bearer_auth(&token)).await;
    let beta = &all.body["data"][0];
    assert_eq!(
        (&beta["status"], &beta["amount"], &beta["linkPaymentId"]),
        (&json!("SUCCESSFUL"), &json!("2500"), &json!(open)),
        "{}",
        all.body
    );
    app.assert_ledger().await;
}
