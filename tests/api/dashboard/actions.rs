//! The dashboard's actions over HTTP: API key rotation (shown once, ending its sessions,
//! from the dashboard or the use case the command line calls), session expiry, a
//! transaction's timeline and webhook redelivery, the webhooks page (URL guard, test event,
//! secret rotation shown once), and customers.

use std::time::{Duration, Instant};

use momo_gateway::domain::Timestamp;
use momo_gateway::webhook::signing;
use reqwest::StatusCode;

use crate::support::dashboard_client::Browser;
use crate::support::helpers::{later, TestApp};
use crate::support::requests::{collect_v1, post};
use crate::support::webhooks::{dispatcher, listen, private_targets_allowed};
use momo_test_support::{both_backends, eventually};

both_backends!(
    TestApp::spawn =>
    rotating_the_api_key_shows_the_new_secret_once_and_ends_every_session_of_the_old_key,
    a_rotation_by_the_command_lines_use_case_ends_the_dashboard_session_at_once,
    a_session_ends_when_idle_too_long_and_at_its_absolute_end,
    a_webhook_url_is_validated_and_refused_when_it_points_inside,
    the_customers_pages_list_a_payer_and_their_transactions,
    the_recipient_check_is_switched_from_the_api_keys_page,
);

both_backends!(
    TestApp::spawn_with(private_targets_allowed) =>
    a_transaction_shows_its_timeline_and_attempts_and_its_webhook_can_be_sent_again,
    the_webhooks_page_sends_a_signed_test_event_and_shows_a_rotated_secret_once,
);

both_backends!(
    TestApp::spawn_with(one_second_sessions) =>
    a_session_past_its_lifetime_sends_the_browser_to_sign_in,
);

fn one_second_sessions(c: &mut momo_gateway::config::Config) {
    c.dashboard.session_max = Duration::from_secs(1);
}

async fn rotating_the_api_key_shows_the_new_secret_once_and_ends_every_session_of_the_old_key(app: TestApp) {
    let creds = app.merchant.sandbox.clone();
    let (mut first, mut second, mut production) = (Browser::new(&app), Browser::new(&app), Browser::new(&app));
    first.sign_in(&creds).await;
    second.sign_in(&creds).await;
    production.sign_in(&app.merchant.production).await;
    let keys = first.get("/dashboard/api-keys").await;
    assert!(keys.has_id("page-api-keys") && keys.has_id("rotate-api-key-submit"));
    assert_eq!(keys.text_of("api-key").as_deref(), Some(creds.api_key.as_str()));
    assert!(!keys.body.contains(&creds.api_secret), "a secret is never shown again");

    let rotated = first
        .submit("/dashboard/api-keys", "/dashboard/api-keys/rotate", &[])
        .await;
    assert_eq!(rotated.status, StatusCode::OK, "{}", rotated.body);
    assert!(rotated.body.contains("id=\"flash\" role=\"status\""));
    let new_secret = rotated.text_of("new-secret").expect("the new secret, once");
    let new_key = rotated.text_of("new-api-key").expect("the new key");
    assert!(new_secret.starts_with("sk_sandbox_") && new_key != creds.api_key);
    for browser in [&mut first, &mut second] {
        assert_eq!(browser.get("/dashboard").await.location(), Some("/dashboard/login"));
    }
    assert_eq!(
        production.get("/dashboard").await.status,
        StatusCode::OK,
        "the other environment's session stays"
    );
    let old = Browser::new(&app).sign_in_with(&creds.api_key, &creds.api_secret).await;
    assert_eq!(old.status, StatusCode::UNAUTHORIZED);
    let mut again = Browser::new(&app);
    again.sign_in_with(&new_key, &new_secret).await;
    let keys = again.get("/dashboard/api-keys").await;
    assert_eq!(keys.text_of("api-key").as_deref(), Some(new_key.as_str()));
    assert!(!keys.has_id("new-secret") && !keys.body.contains(&new_secret));
}

async fn a_rotation_by_the_command_lines_use_case_ends_the_dashboard_session_at_once(app: TestApp) {
    let mut browser = Browser::new(&app);
    browser.sign_in(&app.merchant.sandbox).await;
    assert_eq!(browser.get("/dashboard").await.status, StatusCode::OK);
    // `momo-gateway merchant rotate-secret` calls this use case.
    app.gateway
        .merchants
        .rotate_secret(&app.sandbox_tenant(), Timestamp::now())
        .await
        .unwrap();
    assert_eq!(
        browser.get("/dashboard/transactions").await.location(),
        Some("/dashboard/login")
    );
}

async fn a_session_ends_when_idle_too_long_and_at_its_absolute_end(app: TestApp) {
    let mut browser = Browser::new(&app);
    browser.sign_in(&app.merchant.sandbox).await;
    let token = browser.cookies["momo_session"].clone();
    let minutes = |m: i64| later(m * 60_000);
    // Defaults: 30 minutes idle, 8 hours in all. Each use pushes the idle limit back.
    for m in [25, 50, 75, 100] {
        assert!(
            app.gateway
                .dashboard
                .dashboard_session(&token, minutes(m))
                .await
                .unwrap()
                .is_some(),
            "{m} min"
        );
    }
    assert!(
        app.gateway
            .dashboard
            .dashboard_session(&token, minutes(131))
            .await
            .unwrap()
            .is_none(),
        "idle 31 min"
    );
    let mut other = Browser::new(&app);
    other.sign_in(&app.merchant.sandbox).await;
    let token = other.cookies["momo_session"].clone();
    for m in (25..=475).step_by(25) {
        assert!(
            app.gateway
                .dashboard
                .dashboard_session(&token, minutes(m))
                .await
                .unwrap()
                .is_some(),
            "{m} min"
        );
    }
    assert!(
        app.gateway
            .dashboard
            .dashboard_session(&token, minutes(481))
            .await
            .unwrap()
            .is_none(),
        "past 8 hours"
    );
}

async fn a_session_past_its_lifetime_sends_the_browser_to_sign_in(app: TestApp) {
    let mut browser = Browser::new(&app);
    let before = Instant::now();
    browser.sign_in(&app.merchant.sandbox).await;
    assert_eq!(browser.get("/dashboard").await.status, StatusCode::OK);
    // The lifetime itself is what is tested, on the server's clock: the session serves until a
    // second has passed since it began (after `before`; less a millisecond tick), and then ends.
    let expired = eventually("the session's end", Duration::from_secs(10), async || {
        let page = browser.get("/dashboard").await;
        if page.status == StatusCode::OK {
            Err(page.status)
        } else {
            Ok(page)
        }
    })
    .await;
    let lived = before.elapsed();
    assert!(
        lived >= Duration::from_millis(990),
        "ended after {lived:?}, within its second"
    );
    assert_eq!(expired.status, StatusCode::SEE_OTHER);
    assert_eq!(expired.location(), Some("/dashboard/login"));
}

async fn a_webhook_url_is_validated_and_refused_when_it_points_inside(app: TestApp) {
    let mut browser = Browser::new(&app);
    browser.sign_in(&app.merchant.sandbox).await;
    let page = browser.get("/dashboard/webhooks").await;
    assert!(page.has_id("page-webhooks") && page.has_id("webhook-url") && page.has_id("recent-attempts"));
    for url in [
        "http://127.0.0.1:9/hook",
        "http://10.0.0.7/hook",
        "ftp://example.com/x",
        "not a url",
    ] {
        let refused = browser
            .submit("/dashboard/webhooks", "/dashboard/webhooks/url", &[("url", url)])
            .await;
        assert_eq!(refused.status, StatusCode::BAD_REQUEST, "{url}");
        assert!(refused.body.contains("id=\"error\" role=\"alert\""), "{url}");
    }
    let saved = browser
        .submit(
            "/dashboard/webhooks",
            "/dashboard/webhooks/url",
            &[("url", "https://example.com/hook")],
        )
        .await;
    assert_eq!(saved.status, StatusCode::OK);
    assert!(saved.has_id("flash") && saved.body.contains("value=\"https://example.com/hook\""));
    let no_url = browser
        .submit("/dashboard/webhooks", "/dashboard/webhooks/url", &[("url", "")])
        .await;
    assert!(no_url.has_id("flash"));
    let test = browser
        .submit("/dashboard/webhooks", "/dashboard/webhooks/test", &[])
        .await;
    assert_eq!(test.status, StatusCode::BAD_REQUEST, "no URL, no test event");
}

async fn a_transaction_shows_its_timeline_and_attempts_and_its_webhook_can_be_sent_again(app: TestApp) {
    let (receiver, token) = listen(&app, vec![], None).await;
    post(
        &app,
        &token,
        "/v1/collecte/mobile-money",
        &collect_v1("dash-hook", "0701020301", "ALPHA_MONEY_CI", "2500"),
    )
    .await;
    let d = dispatcher(&app);
    assert_eq!(d.run_once(later(0)).await.unwrap().delivered, 1);
    let mut browser = Browser::new(&app);
    browser.sign_in(&app.merchant.sandbox).await;
    let page = browser.get("/dashboard/transactions/dash-hook").await;
    assert_eq!(page.status, StatusCode::OK, "{}", page.body);
    assert!(page.has_id("page-transaction"));
    assert_eq!(page.text_of("status").as_deref(), Some("SUCCESSFUL"));
    let timeline = &page.body[page.body.find("id=\"timeline\"").unwrap()..];
    let timeline = &timeline[..timeline.find("</ol>").unwrap()];
    assert!(
        timeline.matches("<li").count() >= 2,
        "created, then settled: {timeline}"
    );
    assert!(timeline.contains("data-cause=\"CREATED\""));
    assert!(page.body.contains("class=\"status-code\">200<"));
    assert!(page.body.contains("class=\"latency num\">"));

    let resent = browser
        .submit(
            "/dashboard/transactions/dash-hook",
            "/dashboard/transactions/dash-hook/resend-webhook",
            &[],
        )
        .await;
    assert_eq!(resent.status, StatusCode::OK);
    assert!(resent.body.contains("id=\"flash\" role=\"status\""));
    assert_eq!(d.run_once(later(1_000)).await.unwrap().delivered, 1);
    let received = receiver.received();
    assert_eq!(received.len(), 2);
    assert_eq!(received[0].id, received[1].id, "the same event, sent again");
    let page = browser.get("/dashboard/transactions/dash-hook").await;
    assert_eq!(page.body.matches("class=\"status-code\">200<").count(), 2);

    post(
        &app,
        &token,
        "/v1/collecte/mobile-money",
        &collect_v1("dash-wait", "0701020302", "ALPHA_MONEY_CI", "100"),
    )
    .await;
    let pending = browser
        .submit(
            "/dashboard/transactions/dash-wait",
            "/dashboard/transactions/dash-wait/resend-webhook",
            &[],
        )
        .await;
    assert_eq!(
        pending.status,
        StatusCode::CONFLICT,
        "a pending transaction has no webhook yet"
    );
    assert!(pending.has_id("error"));
}

async fn the_webhooks_page_sends_a_signed_test_event_and_shows_a_rotated_secret_once(app: TestApp) {
    let (receiver, _) = listen(&app, vec![], None).await;
    let mut browser = Browser::new(&app);
    browser.sign_in(&app.merchant.sandbox).await;
    let sent = browser
        .submit("/dashboard/webhooks", "/dashboard/webhooks/test", &[])
        .await;
    assert_eq!(sent.status, StatusCode::OK, "{}", sent.body);
    assert!(sent.body.contains("id=\"flash\" role=\"status\""));
    let received = receiver.received();
    assert_eq!(received.len(), 1);
    let body: serde_json::Value = serde_json::from_str(&received[0].body).unwrap();
    assert_eq!(body["type"], "test");
    let timestamp: i64 = received[0].timestamp.parse().unwrap();
    let expected = signing::sign(
        &app.merchant.sandbox.webhook_secret,
        &received[0].id,
        timestamp,
        received[0].body.as_bytes(),
    )
    .unwrap();
    assert_eq!(received[0].signature, expected, "signed like any delivery");
    assert!(
        sent.body.contains("data-kind=\"test\""),
        "listed with the recent attempts"
    );

    let rotated = browser
        .submit("/dashboard/webhooks", "/dashboard/webhooks/rotate-secret", &[])
        .await;
    assert_eq!(rotated.status, StatusCode::OK);
    let secret = rotated.text_of("new-secret").expect("the new secret, once");
    assert!(secret.starts_with("whsec_") && secret != app.merchant.sandbox.webhook_secret);
    let later_page = browser.get("/dashboard/webhooks").await;
    assert!(
        !later_page.has_id("new-secret") && !later_page.body.contains(&secret),
        "never shown again"
    );
}

async fn the_customers_pages_list_a_payer_and_their_transactions(app: TestApp) {
    let token = app.sandbox_token().await;
    let created = post(
        &app,
        &token,
        "/v1/collecte/mobile-money",
        &collect_v1("dash-cust", "0701020301", "ALPHA_MONEY_CI", "900"),
    )
    .await;
    let customer_id = created.body["data"]["customer"]["id"]
        .as_str()
        .expect("a customer id")
        .to_owned();
    let mut browser = Browser::new(&app);
    browser.sign_in(&app.merchant.sandbox).await;
    let list = browser.get("/dashboard/customers").await;
    assert!(list.has_id("page-customers") && list.has_id("customers"));
    assert!(list.body.contains(&format!("data-customer-id=\"{customer_id}\"")));
    let one = browser.get(&format!("/dashboard/customers/{customer_id}")).await;
    assert_eq!(one.status, StatusCode::OK);
    assert!(one.has_id("page-customer"));
    assert_eq!(one.row_status("dash-cust").as_deref(), Some("SUCCESSFUL"));
    let other = app.new_merchant("Other").await;
    let mut theirs = Browser::new(&app);
    theirs.sign_in(&other.sandbox).await;
    assert_eq!(
        theirs.get(&format!("/dashboard/customers/{customer_id}")).await.status,
        StatusCode::NOT_FOUND
    );
}

/// Production's recipient check is off until the merchant switches it on here; the API then
/// answers it, and switching it off refuses it again.
async fn the_recipient_check_is_switched_from_the_api_keys_page(app: TestApp) {
    let mut browser = Browser::new(&app);
    browser.sign_in(&app.merchant.production).await;
    let token = app.token(&app.merchant.production.clone()).await;
    let check = || async {
        app.get("/v1/account-holders/GAMMA_MONEY_CI/0701020301")
            .bearer_auth(&token)
            .send()
            .await
            .unwrap()
            .status()
    };
    let page = browser.get("/dashboard/api-keys").await;
    assert!(
        page.body.contains("id=\"recipient-check\" data-state=\"off\""),
        "{}",
        page.body
    );
    assert_eq!(check().await, StatusCode::FORBIDDEN);
    let hidden = Browser::hidden_fields(&page, "recipient-check-switch");
    assert!(hidden.contains(&("allowed".to_owned(), "on".to_owned())), "{hidden:?}");
    let switched = browser
        .submit(
            "/dashboard/api-keys",
            "/dashboard/api-keys/recipient-check",
            &[("allowed", "on")],
        )
        .await;
    assert_eq!(switched.location(), Some("/dashboard/api-keys"), "{}", switched.body);
    let page = browser.get("/dashboard/api-keys").await;
    assert!(page.body.contains("data-state=\"on\""), "{}", page.body);
    // Production has no operator here: the check is allowed, then refused as unrouted.
    assert_ne!(check().await, StatusCode::FORBIDDEN);
    browser
        .submit(
            "/dashboard/api-keys",
            "/dashboard/api-keys/recipient-check",
            &[("allowed", "off")],
        )
        .await;
    assert_eq!(check().await, StatusCode::FORBIDDEN);
    let forged = browser
        .post(
            "/dashboard/api-keys/recipient-check",
            &[("csrf_token", "forged"), ("allowed", "on")],
        )
        .await;
    assert_eq!(forged.status, StatusCode::FORBIDDEN);
}
