//! A merchant walks through the dashboard in a real browser (issue 14): signs in with the
//! Sandbox credentials, sets the webhook URL, sees payments made through the API appear with
//! their status, opens one (timeline, webhook attempts), sends its webhook again, looks at
//! customers and API keys, rotates the webhook secret (shown once) and signs out. And the
//! environment switch: from the Sandbox to Production's sign-in, and Production's payments only.
//!
//! Pages are selected by the ids and names of docs/dashboard.md, never by text (the pages speak
//! French first). The SQLite half writes a screenshot of each page to docs/dashboard/, so the
//! docs show the latest run. The refused cases are in `dashboard_browser_refusals`; the
//! harness (`Browser`) in `dashboard_browser_harness`.

use std::path::PathBuf;

use reqwest::StatusCode;
use serde_json::json;

use crate::support::browser::Browser;
use crate::support::helpers::{answer, later, Creds, TestApp};
use crate::support::requests::{collect_v1, post};
use crate::support::webhooks::{dispatcher, private_targets_allowed, private_targets_allowed_production_simulated};
use momo_test_support::both_backends;
use momo_test_support::receiver::Receiver;
use momo_test_support::Backend;

both_backends!(
    TestApp::spawn_with(private_targets_allowed) =>
    a_merchant_signs_in_follows_payments_and_webhooks_and_signs_out,
);

both_backends!(
    TestApp::spawn_with(private_targets_allowed_production_simulated) =>
    the_environment_switch_leads_to_production_and_its_own_payments,
);

/// Signs in at the login page with `creds`; the browser is on the overview after it.
pub async fn sign_in(browser: &Browser, app: &TestApp, creds: &Creds) {
    browser.goto(&app.url("/dashboard/login")).await;
    browser
        .type_into("form#login-form input[name=api_key]", &creds.api_key)
        .await;
    browser
        .type_into("form#login-form input[name=api_secret]", &creds.api_secret)
        .await;
    browser.click("#login-submit").await;
    assert_eq!(browser.path().await, "/dashboard", "signed in, on the overview");
    assert_eq!(browser.count("main#page-overview").await, 1);
}

/// Writes the page shown to docs/dashboard/`name`.png, from the SQLite half only (one picture
/// per page, from the latest run), at a desktop size.
pub async fn screenshot(browser: &Browser, app: &TestApp, name: &str) {
    if app.backend != Backend::Sqlite {
        return;
    }
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("docs/dashboard");
    std::fs::create_dir_all(&dir).expect("docs/dashboard");
    browser.screenshot(&dir.join(format!("{name}.png"))).await;
}

/// The text of the status cell of `id`'s row in table#transactions.
async fn listed_status(browser: &Browser, id: &str) -> Option<String> {
    let css = format!("table#transactions tr[data-transaction-id='{id}'] td.status");
    browser.text(&css).await
}

async fn a_merchant_signs_in_follows_payments_and_webhooks_and_signs_out(app: TestApp) {
    let Some(browser) = Browser::start().await else { return };
    let creds = app.merchant.sandbox.clone();
    browser.window(1280, 900).await;
    browser.goto(&app.url("/dashboard")).await;
    assert_eq!(
        browser.path().await,
        "/dashboard/login",
        "no session: to the login page"
    );
    screenshot(&browser, &app, "login").await;
    sign_in(&browser, &app, &creds).await;
    let session = browser
        .cookies()
        .await
        .into_iter()
        .find(|c| c["name"] == "momo_session");
    let session = session.expect("the session cookie");
    assert_eq!(
        (&session["httpOnly"], &session["sameSite"], &session["secure"]),
        (&json!(true), &json!("Strict"), &json!(false)),
        "HttpOnly, SameSite=Strict, not Secure over http: {session}"
    );
    assert_eq!(
        browser
            .text("nav#environment-switch span#current-environment")
            .await
            .as_deref(),
        Some("Sandbox")
    );

    // The webhook URL, set on the webhooks page.
    let receiver = Receiver::start(Vec::new(), None).await;
    browser.goto(&app.url("/dashboard/webhooks")).await;
    browser
        .type_into("form#webhook-url input[name=url]", &receiver.url)
        .await;
    browser.click("#webhook-url-submit").await;
    assert_eq!(
        browser.count("p#flash[role=status]").await,
        1,
        "the page says it was saved"
    );
    assert_eq!(
        browser
            .attr("form#webhook-url input[name=url]", "value")
            .await
            .as_deref(),
        Some(receiver.url.as_str())
    );

    // Payments through the API: one succeeds, one fails, one waits for its payer.
    let token = app.sandbox_token().await;
    let payments = [
        ("dash-ok", "0701020301", "GAMMA_MONEY_CI", StatusCode::OK, "SUCCESSFUL"),
        (
            "dash-ko",
            "0701020304",
            "GAMMA_MONEY_CI",
            StatusCode::GATEWAY_TIMEOUT,
            "FAILED",
        ),
        (
            "dash-wait",
            "0701020307",
            "BETA_MONEY_CI",
            StatusCode::ACCEPTED,
            "PENDING",
        ),
    ];
    for (id, phone, operator, http, _) in payments {
        let a = post(
            &app,
            &token,
            "/v1/collecte/mobile-money",
            &collect_v1(id, phone, operator, "1000"),
        )
        .await;
        assert_eq!(a.status, http, "{id}: {}", a.body);
    }
    let d = dispatcher(&app);
    assert_eq!(
        d.run_once(later(0)).await.unwrap().delivered,
        2,
        "one event per final payment"
    );
    assert_eq!(receiver.received().len(), 2);

    browser.goto(&app.url("/dashboard")).await;
    for figure in ["#balance-available", "#balance-reserved", "#volume-today", "#volume-7d"] {
        let text = browser.text(figure).await.unwrap_or_default();
        assert!(text.chars().any(|c| c.is_ascii_digit()), "{figure}: {text:?}");
    }
    assert_eq!(browser.count("table#operator-success").await, 1);
    assert_eq!(browser.count("svg#chart-7d").await, 1, "the chart, drawn on the server");
    screenshot(&browser, &app, "overview").await;

    browser.goto(&app.url("/dashboard/transactions")).await;
    assert_eq!(browser.count("main#page-transactions").await, 1);
    for (id, _, _, _, status) in payments {
        assert_eq!(listed_status(&browser, id).await.as_deref(), Some(status), "{id}");
    }
    assert_eq!(browser.count("table#transactions tr[data-transaction-id]").await, 3);
    let export = browser.attr("a#export-csv", "href").await.unwrap_or_default();
    assert!(export.contains("/dashboard/transactions.csv"), "{export}");
    screenshot(&browser, &app, "transactions").await;
    // Search by id, through the filter form.
    browser.type_into("form#filters input[name=q]", "dash-ko").await;
    browser.click("form#filters [type=submit]").await;
    assert_eq!(browser.count("table#transactions tr[data-transaction-id]").await, 1);
    assert_eq!(listed_status(&browser, "dash-ko").await.as_deref(), Some("FAILED"));

    // One transaction: its timeline, its webhook attempt, and the webhook sent again.
    browser.goto(&app.url("/dashboard/transactions")).await;
    browser
        .click("table#transactions tr[data-transaction-id='dash-ok'] a")
        .await;
    assert_eq!(browser.path().await, "/dashboard/transactions/dash-ok");
    assert_eq!(browser.count("main#page-transaction").await, 1);
    assert_eq!(browser.text("#status").await.as_deref(), Some("SUCCESSFUL"));
    let steps =
        "return [...document.querySelectorAll('ol#timeline li')].map(li => li.dataset.to + ' ' + li.dataset.cause);";
    assert_eq!(
        browser.script(steps).await,
        json!(["PENDING CREATED", "SUCCESSFUL OPERATOR_ANSWER"]),
        "created, then settled, in that order (both within one millisecond)"
    );
    let codes = browser
        .texts("table#webhook-attempts tbody tr.attempt td.status-code")
        .await;
    assert_eq!(codes, ["200"], "the one delivery");
    let latency = browser
        .text("table#webhook-attempts td.latency")
        .await
        .unwrap_or_default();
    assert!(latency.chars().any(|c| c.is_ascii_digit()), "{latency:?}");
    screenshot(&browser, &app, "transaction").await;
    browser.click("#resend-webhook-submit").await;
    assert_eq!(browser.count("p#flash[role=status]").await, 1);
    assert_eq!(d.run_once(later(0)).await.unwrap().delivered, 1, "sent again");
    let again = receiver.received();
    assert_eq!(again.len(), 3);
    assert!(again[2].body.contains("dash-ok"), "{}", again[2].body);
    browser.goto(&app.url("/dashboard/transactions/dash-ok")).await;
    let codes = browser
        .texts("table#webhook-attempts tbody tr.attempt td.status-code")
        .await;
    assert_eq!(codes, ["200", "200"], "a new attempt is listed");

    // Customers: one made through the API, listed and opened.
    let made = answer(app.post("/v1/customer").bearer_auth(&token).json(&json!({
        "firstName": "Awa", "lastName": "Koné", "email": "awa.kone@example.ci",
        "phoneNumber": "+225 07 01 02 03 04", "address": {"countryCode": "CI", "city": "Abidjan"}
    })))
    .await;
    assert_eq!(made.status, StatusCode::OK, "{}", made.body);
    let customer = made.body["data"]["id"].as_str().expect("a customer id").to_owned();
    browser.goto(&app.url("/dashboard/customers")).await;
    assert_eq!(browser.count("main#page-customers table#customers").await, 1);
    screenshot(&browser, &app, "customers").await;
    browser
        .click(&format!("table#customers tr[data-customer-id='{customer}'] a"))
        .await;
    assert_eq!(browser.path().await, format!("/dashboard/customers/{customer}"));
    assert_eq!(browser.count("main#page-customer").await, 1);
    assert_eq!(
        browser
            .texts("table#transactions tr[data-transaction-id] td.status")
            .await,
        ["FAILED"],
        "the payment from their number, dash-ko"
    );
    assert_eq!(browser.count("tr[data-transaction-id='dash-ko']").await, 1);

    // Webhooks: recent attempts, a test event, and the secret rotated and shown once.
    browser.goto(&app.url("/dashboard/webhooks")).await;
    assert_eq!(
        browser
            .count("table#recent-attempts tbody tr.attempt[data-kind=event]")
            .await,
        3
    );
    browser.click("#webhook-test-submit").await;
    assert_eq!(browser.count("p#flash[role=status]").await, 1);
    assert_eq!(receiver.received().len(), 4, "the test event was sent at once");
    assert!(receiver.received()[3].body.contains(r#""type":"test""#));
    assert_eq!(
        browser
            .count("table#recent-attempts tbody tr.attempt[data-kind=test]")
            .await,
        1
    );
    browser.goto(&app.url("/dashboard/webhooks")).await;
    screenshot(&browser, &app, "webhooks").await;
    browser.click("#rotate-webhook-secret-submit").await;
    let secret = browser.text("code#new-secret").await.unwrap_or_default();
    assert!(secret.len() >= 24 && secret != creds.webhook_secret, "{secret:?}");
    browser.goto(&app.url("/dashboard/webhooks")).await;
    assert_eq!(browser.count("code#new-secret").await, 0, "shown once, never again");
    let page = browser.script("return document.documentElement.outerHTML").await;
    assert!(
        !page.as_str().unwrap_or_default().contains(&secret),
        "not anywhere on the page"
    );

    browser.goto(&app.url("/dashboard/api-keys")).await;
    assert_eq!(browser.count("main#page-api-keys form#rotate-api-key").await, 1);
    let page = browser.script("return document.documentElement.outerHTML").await;
    let page = page.as_str().unwrap_or_default();
    assert!(!page.contains(&creds.api_secret), "the API secret is never shown again");
    screenshot(&browser, &app, "api-keys").await;

    browser.click("#logout-submit").await;
    assert_eq!(browser.path().await, "/dashboard/login");
    browser.goto(&app.url("/dashboard/transactions")).await;
    assert_eq!(browser.path().await, "/dashboard/login", "signed out");
    app.assert_ledger().await;
}

async fn the_environment_switch_leads_to_production_and_its_own_payments(app: TestApp) {
    let Some(browser) = Browser::start().await else { return };
    let (sandbox, production) = (app.merchant.sandbox.clone(), app.merchant.production.clone());
    for (creds, id) in [(&sandbox, "in-sandbox"), (&production, "in-production")] {
        let token = app.token(creds).await;
        let body = collect_v1(id, "0701020301", "GAMMA_MONEY_CI", "1000");
        let a = post(&app, &token, "/v1/collecte/mobile-money", &body).await;
        assert_eq!(a.status, StatusCode::OK, "{id}: {}", a.body);
    }
    sign_in(&browser, &app, &sandbox).await;
    let current = "nav#environment-switch span#current-environment";
    assert_eq!(browser.text(current).await.as_deref(), Some("Sandbox"));
    browser.click("nav#environment-switch a#switch-environment").await;
    assert_eq!(browser.path().await, "/dashboard/login?environment=Production");
    assert_eq!(
        browser.count("#environment-hint").await,
        1,
        "it says which keys it wants"
    );
    browser
        .type_into("form#login-form input[name=api_key]", &production.api_key)
        .await;
    browser
        .type_into("form#login-form input[name=api_secret]", &production.api_secret)
        .await;
    browser.click("#login-submit").await;
    assert_eq!(browser.path().await, "/dashboard");
    assert_eq!(browser.text(current).await.as_deref(), Some("Production"));
    browser.goto(&app.url("/dashboard/transactions")).await;
    let listed = "return [...document.querySelectorAll('table#transactions tr[data-transaction-id]')].map(r => r.dataset.transactionId);";
    assert_eq!(browser.script(listed).await, json!(["in-production"]));
}
