//! A merchant makes a payment link in a real browser on a 390-px phone, from the keyboard where
//! a keyboard is used (amount, bounds, description, use, cap, expiry, in that order), sees its
//! address to copy and its QR code fit the screen, and deactivates it once confirmed. The
//! SQLite half writes the link's page to docs/dashboard/links.png.

use reqwest::StatusCode;
use serde_json::json;

use crate::dashboard::browser_walkthrough::{screenshot, sign_in};
use crate::support::browser::Browser;
use crate::support::helpers::{answer, TestApp};
use momo_test_support::both_backends;

both_backends!(
    TestApp::spawn =>
    a_merchant_makes_a_link_on_a_phone_sees_its_qr_code_and_address_and_deactivates_it,
);

/// Whether the page shown is no wider than the window (nothing to scroll sideways).
const FITS: &str = "return document.documentElement.scrollWidth <= window.innerWidth;";

async fn a_merchant_makes_a_link_on_a_phone_sees_its_qr_code_and_address_and_deactivates_it(app: TestApp) {
    let Some(browser) = Browser::start().await else { return };
    let token = app.sandbox_token().await;
    browser.window(390, 844).await;
    sign_in(&browser, &app, &app.merchant.sandbox).await;

    browser.click("header nav a[href='/dashboard/links']").await;
    assert_eq!(browser.path().await, "/dashboard/links");
    assert_eq!(browser.count("p#no-links").await, 1);
    browser.click("#new-link").await;
    assert_eq!(browser.path().await, "/dashboard/links/new");
    assert_eq!(browser.script(FITS).await, json!(true), "the form fits 390 px");

    // From the keyboard: the amount, the bounds, the description, the use, the cap, the expiry.
    browser
        .script("document.getElementById('link-amount').focus(); return null;")
        .await;
    browser.keys("5000").await;
    assert_eq!(browser.tab().await, "min_amount");
    assert_eq!(browser.tab().await, "max_amount");
    assert_eq!(browser.tab().await, "description");
    browser.keys("Robe wax").await;
    assert_eq!(browser.tab().await, "usage", "the radio chosen: paid once");
    assert_eq!(browser.tab().await, "max_payments");
    assert_eq!(browser.tab().await, "expires_at");
    // Not BETA: its box unticked.
    browser
        .script("document.getElementById('link-operator-beta').click(); return null;")
        .await;
    browser
        .type_into("#link-success-url", "https://boutique.example/merci")
        .await;
    browser.click("#link-submit").await;

    let path = browser.path().await;
    let id = path
        .strip_prefix("/dashboard/links/")
        .and_then(|rest| rest.strip_suffix("?created=1"))
        .unwrap_or_else(|| panic!("to the link's page: {path}"))
        .to_owned();
    assert_eq!(browser.status().await, 200);
    let flash = browser.text("p#flash[role=status]").await.unwrap_or_default();
    assert!(flash.starts_with("Lien créé"), "{flash}");
    let url = format!("http://gateway.test/pay/{id}");
    assert_eq!(browser.attr("#link-url", "value").await, Some(url.clone()));
    assert_eq!(browser.attr("#link-url", "readonly").await.as_deref(), Some("true"));
    // Selecting the field takes the whole address, ready to copy.
    let selected = browser
        .script(
            "const f = document.getElementById('link-url'); f.focus(); f.select(); \
             return f.value.substring(f.selectionStart, f.selectionEnd);",
        )
        .await;
    assert_eq!(selected, json!(url));
    assert_eq!(browser.count("svg#link-qr[role=img]").await, 1);
    let qr = browser
        .script(
            "const r = document.getElementById('link-qr').getBoundingClientRect(); \
             return [r.width >= 150, r.left >= 0 && r.right <= window.innerWidth];",
        )
        .await;
    assert_eq!(qr, json!([true, true]), "a QR code large enough to scan, on screen");
    assert_eq!(browser.script(FITS).await, json!(true), "the link's page fits 390 px");
    assert_eq!(
        browser.text("#link-operators").await.as_deref(),
        Some("ALPHA_MONEY_CI, GAMMA_MONEY_CI, DELTA_MONEY_CI")
    );
    browser.window(1280, 900).await;
    screenshot(&browser, &app, "links").await;
    browser.window(390, 844).await;

    // Deactivated: the confirmation, then the button, from the keyboard.
    browser
        .script("document.getElementById('deactivate-confirm').focus(); return null;")
        .await;
    browser.keys(" ").await;
    assert_eq!(browser.tab().await, "deactivate-submit");
    browser.enter().await;
    assert_eq!(browser.status().await, 200);
    assert_eq!(browser.path().await, format!("/dashboard/links/{id}/deactivate"));
    assert_eq!(browser.text("#link-state").await.as_deref(), Some("Désactivé"));
    assert_eq!(browser.count("form#deactivate").await, 0);
    browser.click("header nav a[href='/dashboard/links']").await;
    assert_eq!(
        browser
            .text(&format!("tr[data-link-id='{id}'] td.state"))
            .await
            .as_deref(),
        Some("Désactivé")
    );

    let shown = answer(app.get(&format!("/v1/payment-links/{id}")).bearer_auth(&token)).await;
    assert_eq!(shown.status, StatusCode::OK, "{}", shown.body);
    assert_eq!(
        (&shown.body["data"]["active"], &shown.body["data"]["successUrl"]),
        (&json!(false), &json!("https://boutique.example/merci"))
    );
}
