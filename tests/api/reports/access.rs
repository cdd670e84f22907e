//! Who reads the reports, and with what: a bad date, format, time, limit or cursor is a 400 in
//! the envelope naming the field, no token is a 401, and another merchant's or another
//! environment's money never appears in a statement or a settlement report.

use reqwest::StatusCode;
use serde_json::json;

use super::reading::statement;
use crate::support::helpers::{answer, TestApp};
use crate::support::requests::{collect_v1, post};
use momo_test_support::both_backends;

both_backends!(
    TestApp::spawn =>
    bad_dates_formats_and_times_are_400_in_the_envelope_naming_the_field,
    another_merchant_and_another_environment_never_appear,
);

async fn bad_dates_formats_and_times_are_400_in_the_envelope_naming_the_field(app: TestApp) {
    let token = app.sandbox_token().await;
    for (path, field) in [
        ("/v1/reports/settlement", "date"),
        ("/v1/reports/settlement?date=", "date"),
        ("/v1/reports/settlement?date=2026-02-30", "date"),
        ("/v1/reports/settlement?date=20261120", "date"),
        ("/v1/reports/settlement?date=2026-11-20T00:00:00Z", "date"),
        ("/v1/reports/settlement?date=2026-11-20&format=xml", "format"),
        ("/v1/ledger/entries?from=yesterday", "from"),
        ("/v1/ledger/entries?to=2026-11-20", "to"),
        ("/v1/ledger/entries?format=pdf", "format"),
        ("/v1/ledger/entries?limit=0", "limit"),
        ("/v1/ledger/entries?cursor=nope!", "cursor"),
    ] {
        let a = answer(app.get(path).bearer_auth(&token)).await;
        assert_eq!(a.status, StatusCode::BAD_REQUEST, "{path}");
        assert_eq!(a.body["statusCode"], 400, "{path}");
        assert_eq!(a.body["message"], "BadRequestError", "{path}");
        let reason = a.body["reason"].as_str().unwrap();
        assert!(reason.starts_with(field), "{path}: {reason}");
    }
    for path in ["/v1/ledger/entries", "/v1/reports/settlement?date=2026-11-20"] {
        let a = answer(app.get(path)).await;
        assert_eq!(a.status, StatusCode::UNAUTHORIZED, "{path} needs a token");
        assert_eq!(a.body["message"], "UnauthorizedError");
    }
    let a = answer(app.get("/v1/reports/settlement?date=2026-11-20").bearer_auth(&token)).await;
    assert_eq!(
        a.body["data"],
        json!({"date": "2026-11-20", "environment": "Sandbox", "currency": "XOF", "complete": true, "rows": [],
               "totals": {"collected": "0", "paidOut": "0", "refunded": "0", "fees": "0", "net": "0"}}),
        "a day without transactions"
    );
}

async fn another_merchant_and_another_environment_never_appear(app: TestApp) {
    let token = app.sandbox_token().await;
    let other = app.new_merchant("Other merchant").await;
    let other_token = app.token(&other.sandbox).await;
    let mine = post(
        &app,
        &token,
        "/v1/collecte/mobile-money",
        &collect_v1("same-id", "0701020301", "ALPHA_MONEY_CI", "1000"),
    )
    .await;
    let theirs = post(
        &app,
        &other_token,
        "/v1/collecte/mobile-money",
        &collect_v1("same-id", "0701020301", "BETA_MONEY_CI", "5000"),
    )
    .await;
    let theirs_ref = theirs.body["data"]["ref"].as_str().unwrap().to_owned();
    let mine_ref = mine.body["data"]["ref"].as_str().unwrap().to_owned();
    let (lines, _) = statement(&app, &token, "").await;
    let refs: Vec<&str> = lines.iter().filter_map(|l| l["ref"].as_str()).collect();
    assert_eq!(refs, [mine_ref.as_str()], "only my collection, beside my credit");
    let (lines, _) = statement(&app, &other_token, "").await;
    assert!(lines.iter().all(|l| l["ref"] != mine_ref.as_str()));
    assert_eq!(
        lines.len(),
        1,
        "their credit; their BETA collection is pending: no posting"
    );
    assert!(!lines.iter().any(|l| l["ref"] == theirs_ref.as_str()));

    let day = theirs.body["data"]["createdAt"].as_str().unwrap()[..10].to_owned();
    let a = answer(
        app.get(&format!("/v1/reports/settlement?date={day}"))
            .bearer_auth(&other_token),
    )
    .await;
    let rows = a.body["data"]["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(
        (
            rows[0]["operator"].as_str(),
            rows[0]["status"].as_str(),
            rows[0]["amount"].as_str()
        ),
        (Some("BETA_MONEY_CI"), Some("PENDING"), Some("5000"))
    );

    // Production has no postings yet: no Sandbox money shows there.
    let production = app.token(&app.merchant.production.clone()).await;
    let a = answer(app.get("/v1/ledger/entries").bearer_auth(&production)).await;
    assert_eq!(a.body["data"], json!([]));
    let a = answer(
        app.get(&format!("/v1/reports/settlement?date={day}"))
            .bearer_auth(&production),
    )
    .await;
    assert_eq!(a.body["data"]["rows"], json!([]));
    assert_eq!(a.body["data"]["environment"], "Production");
}
