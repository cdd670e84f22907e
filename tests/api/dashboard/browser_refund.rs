//! A merchant refunds a collection from its page in a real browser, from the keyboard alone
//! (amount, reason, confirmation, button, in that order), sees the refund listed with its
//! status, opens it and goes back to the collection it refunds. The SQLite half writes the
//! collection's page, its refund listed, to docs/dashboard/refund.png.

use reqwest::StatusCode;
use serde_json::Value;

use crate::dashboard::browser_walkthrough::{screenshot, sign_in};
use crate::support::browser::Browser;
use crate::support::helpers::{answer, TestApp};
use crate::support::requests::{collect_v1, post};
use momo_test_support::both_backends;

both_backends!(
    TestApp::spawn =>
    a_merchant_refunds_a_collection_from_its_page_with_the_keyboard_and_sees_it_listed,
);

async fn a_merchant_refunds_a_collection_from_its_page_with_the_keyboard_and_sees_it_listed(app: TestApp) {
    let Some(browser) = Browser::start().await else { return };
    let token = app.sandbox_token().await;
    let paid = post(
        &app,
        &token,
        "/v1/collecte/mobile-money",
        &collect_v1("order-1", "0701020301", "ALPHA_MONEY_CI", "10000"),
    )
    .await;
    assert_eq!(paid.status, StatusCode::OK, "{}", paid.body);
    let collection = paid.body["data"]["ref"].as_str().unwrap().to_owned();
    browser.window(1280, 900).await;
    sign_in(&browser, &app, &app.merchant.sandbox).await;

    browser.goto(&app.url("/dashboard/transactions/order-1")).await;
    assert_eq!(
        browser.count("form#refund").await,
        1,
        "a SUCCESSFUL collection offers it"
    );
    assert_eq!(browser.count("p#no-refunds").await, 1);
    // From the keyboard: the amount, then the reason, the confirmation and the button.
    browser
        .script("document.getElementById('refund-amount').focus();")
        .await;
    browser.keys("4000").await;
    assert_eq!(browser.tab().await, "reason");
    browser.keys("Colis abîmé").await;
    assert_eq!(browser.tab().await, "confirm");
    browser.keys(" ").await;
    assert_eq!(browser.tab().await, "refund-submit");
    browser.enter().await;

    assert_eq!(browser.status().await, 200);
    assert_eq!(browser.path().await, "/dashboard/transactions/order-1/refund");
    let flash = browser.text("p#flash[role=status]").await.unwrap_or_default();
    assert!(
        flash.contains("SUCCESSFUL"),
        "the refund recorded, with its status: {flash}"
    );
    let rows = "table#refunds tbody tr";
    assert_eq!(browser.count(rows).await, 1, "the refund is listed");
    assert_eq!(
        browser.text(&format!("{rows} td.status")).await.as_deref(),
        Some("SUCCESSFUL")
    );
    assert_eq!(browser.count("#amount-refunded").await, 1);
    screenshot(&browser, &app, "refund").await;

    // The refund's page names its collection; its link leads back.
    browser.click(&format!("{rows} td a")).await;
    assert_eq!(browser.count("main#page-transaction").await, 1);
    assert_eq!(browser.text("#refund-reason").await.as_deref(), Some("Colis abîmé"));
    assert_eq!(browser.count("form#refund").await, 0, "a refund is not refunded");
    browser.click("#refund-of a").await;
    assert_eq!(browser.path().await, format!("/dashboard/transactions/{collection}"));
    assert_eq!(browser.count(rows).await, 1);

    let listed = answer(
        app.get(&format!("/v1/transactions?refundOf={collection}"))
            .bearer_auth(&token),
    )
    .await;
    let refunds: Vec<&Value> = listed.body["data"].as_array().unwrap().iter().collect();
    assert_eq!(refunds.len(), 1, "{}", listed.body);
    assert_eq!(
        (refunds[0]["amount"].as_str(), refunds[0]["reason"].as_str()),
        (Some("4000"), Some("Colis abîmé"))
    );
    app.assert_ledger().await;
}
