//! What the dashboard refuses, seen from a real browser: a wrong secret, a form posted without
//! its CSRF token, an expired session, a rotated credential's session, and a transaction of
//! another merchant or environment reached by its URL. And that its pages fit a phone's screen
//! and the sign-in works from the keyboard.

use std::time::{Duration, Instant};

use momo_gateway::config::Config;
use reqwest::StatusCode;

use crate::dashboard::browser_walkthrough::sign_in;
use crate::support::browser::Browser;
use crate::support::helpers::{Creds, TestApp};
use crate::support::requests::{collect_v1, post};
use momo_test_support::{both_backends, eventually};

both_backends!(
    TestApp::spawn =>
    a_wrong_secret_and_a_form_without_its_csrf_token_are_refused,
    rotating_the_api_key_ends_the_session_at_once,
    every_page_fits_a_phone_and_the_sign_in_works_from_the_keyboard,
);

both_backends!(
    TestApp::spawn_production_simulated =>
    another_merchants_or_environments_transaction_is_not_found,
);

both_backends!(
    TestApp::spawn_with(one_second_sessions) =>
    an_expired_session_goes_back_to_the_login_page,
);

/// Sessions that end a second after sign-in (the smallest lifetime the settings accept).
fn one_second_sessions(c: &mut Config) {
    c.dashboard.session_max = Duration::from_secs(1);
}

const PAGES: [&str; 6] = [
    "/dashboard",
    "/dashboard/transactions",
    "/dashboard/transactions/phone-1",
    "/dashboard/customers",
    "/dashboard/webhooks",
    "/dashboard/api-keys",
];

async fn a_wrong_secret_and_a_form_without_its_csrf_token_are_refused(app: TestApp) {
    let Some(browser) = Browser::start().await else { return };
    let creds = app.merchant.sandbox.clone();
    browser.goto(&app.url("/dashboard/login")).await;
    browser.type_into("input[name=api_key]", &creds.api_key).await;
    browser.type_into("input[name=api_secret]", "not-the-secret").await;
    browser.click("#login-submit").await;
    assert_eq!(browser.status().await, 401);
    assert_eq!(browser.count("p#error[role=alert]").await, 1);
    assert_eq!(browser.count("form#login-form").await, 1, "the form, to try again");
    assert!(
        browser.cookies().await.iter().all(|c| c["name"] != "momo_session"),
        "no session"
    );

    sign_in(&browser, &app, &creds).await;
    browser.goto(&app.url("/dashboard/api-keys")).await;
    let removed = browser
        .script(
            "const i = document.querySelector('form#rotate-api-key input[name=csrf_token]'); i.remove(); return true;",
        )
        .await;
    assert_eq!(removed, serde_json::json!(true));
    browser.click("#rotate-api-key-submit").await;
    assert_eq!(browser.status().await, 403);
    assert_eq!(browser.count("p#error").await, 1);
    assert_eq!(browser.count("code#new-secret").await, 0);
    assert_eq!(app.auth(&creds).await.status, StatusCode::OK, "nothing was rotated");
}

async fn another_merchants_or_environments_transaction_is_not_found(app: TestApp) {
    let Some(browser) = Browser::start().await else { return };
    let other = app.new_merchant("Other merchant").await;
    let theirs = app.token(&other.sandbox).await;
    let body = collect_v1("theirs-1", "0701020301", "GAMMA_MONEY_CI", "1000");
    assert_eq!(
        post(&app, &theirs, "/v1/collecte/mobile-money", &body).await.status,
        StatusCode::OK
    );
    let production = app.token(&app.merchant.production.clone()).await;
    let body = collect_v1("prod-1", "0701020301", "GAMMA_MONEY_CI", "1000");
    assert_eq!(
        post(&app, &production, "/v1/collecte/mobile-money", &body).await.status,
        StatusCode::OK
    );
    let mine = app.sandbox_token().await;
    let body = collect_v1("mine-1", "0701020301", "GAMMA_MONEY_CI", "1000");
    assert_eq!(
        post(&app, &mine, "/v1/collecte/mobile-money", &body).await.status,
        StatusCode::OK
    );

    sign_in(&browser, &app, &app.merchant.sandbox.clone()).await;
    browser.goto(&app.url("/dashboard/transactions/mine-1")).await;
    assert_eq!(browser.count("main#page-transaction").await, 1, "its own, for contrast");
    for id in ["theirs-1", "prod-1", "nobody-1"] {
        browser.goto(&app.url(&format!("/dashboard/transactions/{id}"))).await;
        assert_eq!(browser.status().await, 404, "{id}");
        assert_eq!(browser.count("main#page-not-found").await, 1, "{id}");
        assert_eq!(browser.count("main#page-transaction").await, 0, "{id}");
    }
    browser.goto(&app.url("/dashboard/transactions")).await;
    assert_eq!(
        browser.count("table#transactions tr[data-transaction-id]").await,
        1,
        "only mine-1"
    );
}

async fn rotating_the_api_key_ends_the_session_at_once(app: TestApp) {
    let Some(browser) = Browser::start().await else { return };
    let creds = app.merchant.sandbox.clone();
    sign_in(&browser, &app, &creds).await;
    browser.goto(&app.url("/dashboard/api-keys")).await;
    browser.click("#rotate-api-key-submit").await;
    let secret = browser.text("code#new-secret").await.unwrap_or_default();
    let key = browser.text("code#new-api-key").await.unwrap_or_default();
    assert!(secret.len() >= 24 && secret != creds.api_secret, "{secret:?}");
    assert_ne!(
        app.auth(&creds).await.status,
        StatusCode::OK,
        "the old secret is refused"
    );
    browser.goto(&app.url("/dashboard")).await;
    assert_eq!(browser.path().await, "/dashboard/login", "its session ended with it");
    let renewed = Creds {
        api_key: key,
        api_secret: secret,
        ..creds
    };
    assert_eq!(
        app.auth(&renewed).await.status,
        StatusCode::OK,
        "the new ones work for the API"
    );
    sign_in(&browser, &app, &renewed).await;
}

async fn an_expired_session_goes_back_to_the_login_page(app: TestApp) {
    let Some(browser) = Browser::start().await else { return };
    let before = Instant::now();
    sign_in(&browser, &app, &app.merchant.sandbox.clone()).await;
    // Its lifetime is wall-clock time on the server (and the cookie's Max-Age in the browser):
    // the pages serve until a second has passed since the session began, after `before` (less a
    // millisecond tick), then send the browser to the login page.
    let path = eventually("the session's end", Duration::from_secs(10), async || {
        browser.goto(&app.url("/dashboard/transactions")).await;
        let path = browser.path().await;
        if path == "/dashboard/transactions" {
            Err(path)
        } else {
            Ok(path)
        }
    })
    .await;
    let lived = before.elapsed();
    assert!(
        lived >= Duration::from_millis(990),
        "ended after {lived:?}, within its second"
    );
    assert_eq!(path, "/dashboard/login");
    assert_eq!(browser.count("form#login-form").await, 1);
}

async fn every_page_fits_a_phone_and_the_sign_in_works_from_the_keyboard(app: TestApp) {
    let Some(browser) = Browser::start().await else { return };
    let token = app.sandbox_token().await;
    let body = collect_v1("phone-1", "0701020301", "GAMMA_MONEY_CI", "1000");
    assert_eq!(
        post(&app, &token, "/v1/collecte/mobile-money", &body).await.status,
        StatusCode::OK
    );
    browser.window(390, 844).await;
    let overflow = "const d = document.documentElement; return d.scrollWidth - d.clientWidth;";

    // The keyboard alone: Tab reaches the key, the secret and the button, in that order.
    browser.goto(&app.url("/dashboard/login")).await;
    assert_eq!(browser.script(overflow).await, serde_json::json!(0), "/dashboard/login");
    let creds = app.merchant.sandbox.clone();
    let mut focused = Vec::new();
    for _ in 0..12 {
        let name = browser.tab().await;
        match name.as_str() {
            "api_key" => browser.keys(&creds.api_key).await,
            "api_secret" => browser.keys(&creds.api_secret).await,
            _ => {}
        }
        let done = name == "login-submit";
        focused.push(name);
        if done {
            break;
        }
    }
    let at = |wanted: &[&str]| focused.iter().position(|f| wanted.contains(&f.as_str()));
    let (key, secret, submit) = (at(&["api_key"]), at(&["api_secret"]), at(&["login-submit"]));
    assert!(
        key.is_some() && key < secret && secret < submit,
        "the focus went through {focused:?}"
    );
    browser.enter().await;
    assert_eq!(browser.path().await, "/dashboard", "signed in from the keyboard");

    for page in PAGES {
        browser.goto(&app.url(page)).await;
        assert_eq!(browser.status().await, 200, "{page}");
        assert_eq!(
            browser.script(overflow).await,
            serde_json::json!(0),
            "{page} scrolls sideways at 390 px"
        );
    }
    // The answers that show a new secret, long words that must wrap.
    for (page, button) in [
        ("/dashboard/webhooks", "#rotate-webhook-secret-submit"),
        ("/dashboard/api-keys", "#rotate-api-key-submit"),
    ] {
        browser.goto(&app.url(page)).await;
        browser.click(button).await;
        assert_eq!(browser.count("code#new-secret").await, 1, "{button}");
        assert_eq!(
            browser.script(overflow).await,
            serde_json::json!(0),
            "{button}'s answer scrolls sideways at 390 px"
        );
    }
}
