//! Payout batches from the dashboard over HTTP, on both databases: a CSV uploaded (refused
//! without this session's CSRF token, and refused whole with a wrong header), previewed line by
//! line with what would be paid and refused and the total beside the balance, confirmed, and
//! followed on the batch's page until it completes; another merchant finds none of it.

use momo_gateway::reconcile::payout_sender::{self, Pace};
use reqwest::StatusCode;

use crate::support::dashboard_client::{Browser, Page};
use crate::support::helpers::{later, TestApp};
use crate::support::requests::{post, transfer_v1};
use momo_test_support::both_backends;

both_backends!(
    TestApp::spawn =>
    a_csv_is_uploaded_previewed_confirmed_and_followed_to_completion,
);

pub const FILE: &str = "transaction_id,operator,phone,amount,last_name,first_name\n\
dash-1,GAMMA_MONEY_CI,0701020301,1500,Koné,Awa\n\
dash-2,ALPHA_MONEY_CI,0701020311,2500,Yao,Koffi\n\
dash-3,GAMMA_MONEY_CI,12345,1000,Koné,Awa\n\
earlier,GAMMA_MONEY_CI,0701020301,1000,Koné,Awa\n\
dash-5,BETA_CI,0701020321,3000,Diallo,Fatou\n";

fn outcome_rows(page: &Page, outcome: &str) -> usize {
    page.body.matches(&format!("data-outcome=\"{outcome}\"")).count()
}

async fn a_csv_is_uploaded_previewed_confirmed_and_followed_to_completion(app: TestApp) {
    let token = app.sandbox_token().await;
    let earlier = post(
        &app,
        &token,
        "/v1/transfer/mobile-money",
        &transfer_v1("earlier", "0701020301", "GAMMA_MONEY_CI", "1000"),
    )
    .await;
    assert_eq!(earlier.status, StatusCode::OK, "{}", earlier.body);
    let mut browser = Browser::new(&app);
    browser.sign_in(&app.merchant.sandbox).await;
    let list = browser.get("/dashboard/payouts").await;
    assert_eq!(list.status, StatusCode::OK);
    assert!(
        list.has_id("payouts-upload") && list.has_id("no-batches"),
        "{}",
        list.body
    );
    let csrf = list.csrf();

    let forged = browser
        .post_multipart("/dashboard/payouts/preview", &[], ("pay.csv", FILE.as_bytes()))
        .await;
    assert_eq!(forged.status, StatusCode::FORBIDDEN);
    let wrong = browser
        .post_multipart(
            "/dashboard/payouts/preview",
            &[("csrf_token", &csrf)],
            ("pay.csv", b"id,amount\nx,100\n"),
        )
        .await;
    assert_eq!(wrong.status, StatusCode::BAD_REQUEST);
    let error = wrong.text_of("error").unwrap_or_default();
    assert!(
        error.contains("transaction_id,operator,phone,amount,last_name,first_name"),
        "{error}"
    );

    let preview = browser
        .post_multipart(
            "/dashboard/payouts/preview",
            &[("csrf_token", &csrf), ("label", "Commissions novembre")],
            ("pay.csv", FILE.as_bytes()),
        )
        .await;
    assert_eq!(preview.status, StatusCode::OK, "{}", preview.body);
    assert_eq!(
        (
            outcome_rows(&preview, "paid"),
            outcome_rows(&preview, "refused"),
            outcome_rows(&preview, "duplicate")
        ),
        (3, 1, 1)
    );
    assert_eq!(preview.text_of("preview-paid").as_deref(), Some("3"));
    assert_eq!(preview.text_of("preview-refused").as_deref(), Some("2"));
    assert!(!preview.has_id("preview-over-balance"));
    assert!(
        browser.get("/dashboard/payouts").await.has_id("no-batches"),
        "a preview records nothing"
    );

    let confirm: Vec<(String, String)> = Browser::hidden_fields(&preview, "payouts-confirm");
    let fields: Vec<(&str, &str)> = confirm.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let done = browser.post("/dashboard/payouts", &fields).await;
    assert_eq!(done.status, StatusCode::SEE_OTHER, "{}", done.body);
    let location = done.location().unwrap().to_owned();
    assert!(
        location.starts_with("/dashboard/payouts/pbt_") && location.ends_with("?created=1"),
        "{location}"
    );
    let page = browser.get(&location).await;
    assert_eq!(page.status, StatusCode::OK);
    assert_eq!(
        page.headers.get("refresh").and_then(|v| v.to_str().ok()),
        Some("2"),
        "it refreshes while processing"
    );
    assert!(page.body.contains("data-status=\"processing\""), "{}", page.body);
    assert_eq!(page.text_of("batch-submitted").as_deref(), Some("5"));

    payout_sender::run_once(&app.gateway.payouts, &Pace::new(1_000), later(0))
        .await
        .unwrap();
    let path = location.trim_end_matches("?created=1").to_owned();
    let page = browser.get(&path).await;
    assert!(page.body.contains("data-status=\"completed\""), "{}", page.body);
    assert!(page.headers.get("refresh").is_none(), "a completed batch stays still");
    for id in ["dash-1", "dash-2", "dash-5"] {
        assert_eq!(page.row_status(id).as_deref(), Some("SUCCESSFUL"), "{id}");
    }
    let list = browser.get("/dashboard/payouts").await;
    assert!(list.body.contains("Commissions novembre"), "{}", list.body);

    let other = app.new_merchant("Autre boutique").await;
    let mut stranger = Browser::new(&app);
    stranger.sign_in(&other.sandbox).await;
    assert_eq!(stranger.get(&path).await.status, StatusCode::NOT_FOUND);
    app.assert_ledger().await;
}
