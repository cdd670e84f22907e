//! The merchant dashboard over HTTP: sign-in and its cookie, refused sign-ins, pages without a
//! session, CSRF, sign-out, and transactions created through the API as the dashboard lists,
//! exports and hides them. The actions (rotations, webhooks, expiry) are in dashboard_actions.rs.

use reqwest::StatusCode;

use crate::support::dashboard_client::Browser;
use crate::support::helpers::TestApp;
use crate::support::requests::{collect_v1, post, transfer_v1};
use momo_test_support::both_backends;

both_backends!(
    TestApp::spawn =>
    signing_in_opens_the_overview_with_an_http_only_strict_cookie_scoped_to_the_dashboard,
    a_wrong_secret_answers_the_sign_in_page_again_with_401_and_no_session,
    without_a_session_every_page_sends_the_browser_to_sign_in,
    a_form_posted_without_its_csrf_token_is_refused_with_a_403_page,
    signing_out_ends_the_session_for_good,
    payments_created_through_the_api_appear_with_their_status_and_in_the_csv_export,
    another_merchants_transaction_reached_by_url_is_a_404_page,
    a_sandbox_key_opens_the_sandbox_only_and_english_is_one_click_away,
    errors_around_the_pages_are_html_pages_with_protective_headers,
);

both_backends!(
    TestApp::spawn_with(limited_https) =>
    sign_in_is_rate_limited_and_the_cookie_is_secure_over_https,
);

/// Two sign-in attempts a minute, and a public URL in https.
fn limited_https(c: &mut momo_gateway::config::Config) {
    c.auth_rate_limit_per_min = 2;
    c.public_url = "https://gateway.test".to_owned();
}

async fn signing_in_opens_the_overview_with_an_http_only_strict_cookie_scoped_to_the_dashboard(app: TestApp) {
    let mut browser = Browser::new(&app);
    let login = browser.get("/dashboard/login").await;
    assert_eq!(login.status, StatusCode::OK);
    assert!(login.has_id("login-form") && login.has_id("login-submit"));
    assert!(login.body.contains("name=\"api_key\"") && login.body.contains("name=\"api_secret\""));
    let signed_in = browser.sign_in(&app.merchant.sandbox).await;
    let cookie = signed_in.set_cookie("momo_session").expect("a session cookie");
    for attribute in ["HttpOnly", "SameSite=Strict", "Path=/dashboard"] {
        assert!(cookie.contains(attribute), "{cookie} has {attribute}");
    }
    assert!(!cookie.contains("Secure"), "the test server is plain http: {cookie}");
    let overview = browser.get("/dashboard").await;
    assert_eq!(overview.status, StatusCode::OK);
    assert!(overview.headers["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/html"));
    for id in [
        "page-overview",
        "balance-available",
        "balance-reserved",
        "volume-today",
        "volume-7d",
        "operator-success",
        "chart-7d",
        "logout-form",
        "environment-switch",
    ] {
        assert!(overview.has_id(id), "the overview has #{id}");
    }
    assert_eq!(overview.text_of("current-environment").as_deref(), Some("Sandbox"));
    assert!(overview.body.contains("<svg id=\"chart-7d\""));
    assert_eq!(
        overview.text_of("balance-available").as_deref(),
        Some("10\u{202f}000\u{202f}000 F CFA")
    );
}

async fn a_wrong_secret_answers_the_sign_in_page_again_with_401_and_no_session(app: TestApp) {
    let mut browser = Browser::new(&app);
    let key = app.merchant.sandbox.api_key.clone();
    let page = browser.sign_in_with(&key, "sk_sandbox_wrong").await;
    assert_eq!(page.status, StatusCode::UNAUTHORIZED);
    assert!(page.has_id("login-form"));
    assert!(page.body.contains("<p id=\"error\" role=\"alert\">"), "{}", page.body);
    assert!(page.set_cookie("momo_session").is_none());
    let unknown = browser.sign_in_with("pk_sandbox_nobody", "whatever").await;
    assert_eq!(unknown.status, StatusCode::UNAUTHORIZED);
    assert_eq!(browser.get("/dashboard").await.status, StatusCode::SEE_OTHER);
}

async fn without_a_session_every_page_sends_the_browser_to_sign_in(app: TestApp) {
    let mut browser = Browser::new(&app);
    for path in [
        "/dashboard",
        "/dashboard/transactions",
        "/dashboard/transactions.csv",
        "/dashboard/transactions/anything",
        "/dashboard/customers",
        "/dashboard/links",
        "/dashboard/links/new",
        "/dashboard/links/anything",
        "/dashboard/webhooks",
        "/dashboard/api-keys",
    ] {
        let page = browser.get(path).await;
        assert_eq!(page.status, StatusCode::SEE_OTHER, "{path}");
        assert_eq!(page.location(), Some("/dashboard/login"), "{path}");
    }
    browser.cookies.insert("momo_session".into(), "forged".into());
    let forged = browser.get("/dashboard").await;
    assert_eq!(
        forged.location(),
        Some("/dashboard/login"),
        "a made-up token opens nothing"
    );
}

async fn a_form_posted_without_its_csrf_token_is_refused_with_a_403_page(app: TestApp) {
    let mut browser = Browser::new(&app);
    browser.sign_in(&app.merchant.sandbox).await;
    for fields in [vec![], vec![("csrf_token", "forged")]] {
        let page = browser.post("/dashboard/logout", &fields).await;
        assert_eq!(page.status, StatusCode::FORBIDDEN);
        assert!(page.headers["content-type"].to_str().unwrap().starts_with("text/html"));
        assert!(page.body.contains("id=\"error\""));
    }
    assert_eq!(
        browser.get("/dashboard").await.status,
        StatusCode::OK,
        "still signed in"
    );
    // The sign-in form has its own token: a post without it opens nothing.
    let mut other = Browser::new(&app);
    let creds = &app.merchant.sandbox;
    let page = other
        .post(
            "/dashboard/login",
            &[("api_key", &creds.api_key), ("api_secret", &creds.api_secret)],
        )
        .await;
    assert_eq!(page.status, StatusCode::FORBIDDEN);
    assert!(page.set_cookie("momo_session").is_none());
}

async fn signing_out_ends_the_session_for_good(app: TestApp) {
    let mut browser = Browser::new(&app);
    browser.sign_in(&app.merchant.sandbox).await;
    let token = browser.cookies["momo_session"].clone();
    let out = browser.submit("/dashboard", "/dashboard/logout", &[]).await;
    assert_eq!(out.status, StatusCode::SEE_OTHER);
    assert_eq!(out.location(), Some("/dashboard/login"));
    assert!(!browser.cookies.contains_key("momo_session"), "the cookie is deleted");
    browser.cookies.insert("momo_session".into(), token);
    assert_eq!(
        browser.get("/dashboard").await.location(),
        Some("/dashboard/login"),
        "the old cookie no longer opens a session"
    );
}

async fn payments_created_through_the_api_appear_with_their_status_and_in_the_csv_export(app: TestApp) {
    let token = app.sandbox_token().await;
    for (id, phone) in [
        ("dash-ok", "0701020301"),
        ("dash-pending", "0701020302"),
        ("dash-failed", "0701020304"),
    ] {
        post(
            &app,
            &token,
            "/v1/collecte/mobile-money",
            &collect_v1(id, phone, "ALPHA_MONEY_CI", "1500"),
        )
        .await;
    }
    post(
        &app,
        &token,
        "/v1/transfers/mobile-money",
        &transfer_v1("dash-out", "0501020301", "GAMMA_MONEY_CI", "700"),
    )
    .await;
    let mut browser = Browser::new(&app);
    browser.sign_in(&app.merchant.sandbox).await;
    let list = browser.get("/dashboard/transactions").await;
    assert_eq!(list.status, StatusCode::OK);
    assert!(list.has_id("page-transactions") && list.has_id("filters") && list.has_id("export-csv"));
    assert_eq!(list.row_status("dash-ok").as_deref(), Some("SUCCESSFUL"));
    assert_eq!(list.row_status("dash-pending").as_deref(), Some("PENDING"));
    assert_eq!(list.row_status("dash-failed").as_deref(), Some("FAILED"));
    assert_eq!(list.row_status("dash-out").as_deref(), Some("SUCCESSFUL"));
    assert!(!list.has_id("next-page"), "four rows fit one page");

    let failed = browser.get("/dashboard/transactions?status=FAILED").await;
    assert!(failed.row_status("dash-failed").is_some() && failed.row_status("dash-ok").is_none());
    let transfers = browser.get("/dashboard/transactions?type=transfer").await;
    assert!(transfers.row_status("dash-out").is_some() && transfers.row_status("dash-ok").is_none());
    let searched = browser.get("/dashboard/transactions?q=dash-pending").await;
    assert!(searched.row_status("dash-pending").is_some() && searched.row_status("dash-ok").is_none());
    let bad = browser.get("/dashboard/transactions?status=LOST").await;
    assert_eq!(bad.status, StatusCode::BAD_REQUEST);
    assert!(bad.has_id("error"));

    let overview = browser.get("/dashboard").await;
    assert!(
        overview
            .body
            .contains("id=\"volume-today\" data-count=\"2\" data-amount=\"2200\""),
        "today's volume: the two successful payments"
    );
    assert!(overview.body.contains("<tr data-operator=\"ALPHA\">"));

    let csv = browser.get("/dashboard/transactions.csv?type=collecte").await;
    assert_eq!(csv.status, StatusCode::OK);
    assert!(csv.headers["content-type"].to_str().unwrap().starts_with("text/csv"));
    let lines: Vec<&str> = csv.body.lines().collect();
    assert!(lines[0].starts_with("transaction_id,ref,created_at,type,operator"));
    assert_eq!(lines.len(), 4, "a header and the three collections: {}", csv.body);
    assert!(csv.body.contains("\"dash-failed\"") && !csv.body.contains("dash-out"));
    assert!(lines
        .iter()
        .any(|l| l.starts_with("\"dash-ok\"") && l.contains("\"SUCCESSFUL\"")));
}

async fn another_merchants_transaction_reached_by_url_is_a_404_page(app: TestApp) {
    let other = app.new_merchant("Other merchant").await;
    let other_token = app.token(&other.sandbox).await;
    post(
        &app,
        &other_token,
        "/v1/collecte/mobile-money",
        &collect_v1("theirs", "0701020301", "ALPHA_MONEY_CI", "1000"),
    )
    .await;
    let mut browser = Browser::new(&app);
    browser.sign_in(&app.merchant.sandbox).await;
    let page = browser.get("/dashboard/transactions/theirs").await;
    assert_eq!(page.status, StatusCode::NOT_FOUND);
    assert!(page.has_id("page-not-found"));
    let list = browser.get("/dashboard/transactions").await;
    assert!(list.row_status("theirs").is_none());
    let unknown = browser.get("/dashboard/no-such-page").await;
    assert_eq!(unknown.status, StatusCode::NOT_FOUND);
    assert!(unknown.has_id("page-not-found"));
}

async fn a_sandbox_key_opens_the_sandbox_only_and_english_is_one_click_away(app: TestApp) {
    let mut browser = Browser::new(&app);
    browser.sign_in(&app.merchant.production).await;
    let production = browser.get("/dashboard").await;
    assert_eq!(production.text_of("current-environment").as_deref(), Some("Production"));
    assert!(production.body.contains("<html lang=\"fr\">"));
    // The switch leads to the sign-in page of the other environment: only its own key opens it.
    assert!(production
        .body
        .contains("href=\"/dashboard/login?environment=Sandbox\""));
    browser.sign_in(&app.merchant.sandbox).await;
    let english = browser.get("/dashboard?lang=en").await;
    assert_eq!(english.text_of("current-environment").as_deref(), Some("Sandbox"));
    assert!(english.body.contains("<html lang=\"en\">"));
    assert!(english.set_cookie("momo_lang").is_some());
    let remembered = browser.get("/dashboard/transactions").await;
    assert!(
        remembered.body.contains("<html lang=\"en\">"),
        "the choice is remembered"
    );
}

async fn errors_around_the_pages_are_html_pages_with_protective_headers(app: TestApp) {
    let mut browser = Browser::new(&app);
    browser.sign_in(&app.merchant.sandbox).await;
    let page = browser.get("/dashboard").await;
    let csp = page.headers["content-security-policy"].to_str().unwrap();
    assert!(
        csp.contains("frame-ancestors 'none'") && csp.contains("default-src 'none'"),
        "{csp}"
    );
    assert_eq!(page.headers["cache-control"], "no-store");
    let client = reqwest::Client::new();
    for (method, path) in [("PUT", "/dashboard/login"), ("GET", "/dashboard/transactions/%00")] {
        let answer = client
            .request(method.parse().unwrap(), app.url(path))
            .header("cookie", format!("momo_session={}", browser.cookies["momo_session"]))
            .send()
            .await
            .unwrap();
        assert!(
            answer.status().is_client_error(),
            "{method} {path}: {}",
            answer.status()
        );
        let kind = answer.headers()["content-type"].to_str().unwrap().to_owned();
        assert!(kind.starts_with("text/html"), "{method} {path}: {kind}");
    }
}

async fn sign_in_is_rate_limited_and_the_cookie_is_secure_over_https(app: TestApp) {
    let mut browser = Browser::new(&app);
    let signed_in = browser.sign_in(&app.merchant.sandbox).await;
    let cookie = signed_in.set_cookie("__Host-momo_session").unwrap();
    assert!(cookie.contains("; Secure"), "{cookie}");
    let wrong = browser
        .sign_in_with(&app.merchant.sandbox.api_key, "sk_sandbox_guess")
        .await;
    assert_eq!(wrong.status, StatusCode::UNAUTHORIZED);
    let limited = browser
        .sign_in_with(&app.merchant.sandbox.api_key, "sk_sandbox_guess")
        .await;
    assert_eq!(limited.status, StatusCode::TOO_MANY_REQUESTS);
    assert!(limited.headers.contains_key("retry-after"));
    assert!(limited.has_id("login-form") && limited.has_id("error"));
}
