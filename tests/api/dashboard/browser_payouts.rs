//! A merchant pays a CSV of transfers from the dashboard in a real browser: chooses the file,
//! reads the preview (what will be paid, what is refused and why), confirms, and watches the
//! batch's page refresh itself until the batch completes. The SQLite half writes the preview
//! and the completed batch to docs/dashboard/payouts-preview.png and payouts-batch.png.

use std::io::Write;
use std::time::Duration;

use momo_gateway::reconcile::payout_sender::{self, Pace};

use crate::dashboard::browser_walkthrough::{screenshot, sign_in};
use crate::dashboard::payouts::FILE;
use crate::support::browser::Browser;
use crate::support::helpers::{later, TestApp};
use crate::support::requests::{post, transfer_v1};
use momo_test_support::{both_backends, eventually};

both_backends!(
    TestApp::spawn =>
    a_merchant_uploads_a_csv_confirms_it_and_sees_the_batch_complete,
);

async fn a_merchant_uploads_a_csv_confirms_it_and_sees_the_batch_complete(app: TestApp) {
    let Some(browser) = Browser::start().await else { return };
    let token = app.sandbox_token().await;
    post(
        &app,
        &token,
        "/v1/transfer/mobile-money",
        &transfer_v1("earlier", "0701020301", "GAMMA_MONEY_CI", "1000"),
    )
    .await;
    let mut csv = tempfile::Builder::new().suffix(".csv").tempfile().unwrap();
    csv.write_all(FILE.as_bytes()).unwrap();
    browser.window(1280, 900).await;
    sign_in(&browser, &app, &app.merchant.sandbox).await;

    browser.click("header nav a[href='/dashboard/payouts']").await;
    assert_eq!(browser.path().await, "/dashboard/payouts");
    browser.upload("#payouts-file", csv.path()).await;
    browser.type_into("#payouts-label", "Commissions novembre").await;
    browser.click("#payouts-preview").await;
    assert_eq!(browser.status().await, 200);
    assert_eq!(browser.count("main#page-payouts-preview").await, 1);
    assert_eq!(browser.count("table#preview tr[data-outcome=paid]").await, 3);
    assert_eq!(browser.count("table#preview tr[data-outcome=duplicate]").await, 1);
    let refused = browser
        .text("table#preview tr[data-outcome=refused]")
        .await
        .unwrap_or_default();
    assert!(
        refused.contains("10 chiffres"),
        "the refused line says why, in French: {refused}"
    );
    screenshot(&browser, &app, "payouts-preview").await;

    browser.click("#payouts-confirm-submit").await;
    let path = browser.path().await;
    assert!(path.starts_with("/dashboard/payouts/pbt_"), "{path}");
    let flash = browser.text("p#flash[role=status]").await.unwrap_or_default();
    assert!(flash.starts_with("Lot enregistré"), "{flash}");
    assert_eq!(browser.count("dd#batch-status[data-status=processing]").await, 1);

    // The gateway's sender drains it; the page, refreshing itself, shows it complete.
    payout_sender::run_once(&app.gateway.payouts, &Pace::new(1_000), later(0))
        .await
        .unwrap();
    eventually(
        "the page shows the batch completed",
        Duration::from_secs(15),
        async || match browser.count("dd#batch-status[data-status=completed]").await {
            1 => Ok(()),
            n => Err(n),
        },
    )
    .await;
    assert_eq!(
        browser
            .text("dd#batch-paid")
            .await
            .unwrap_or_default()
            .split(' ')
            .next(),
        Some("3")
    );
    screenshot(&browser, &app, "payouts-batch").await;
    drop(csv);
}
