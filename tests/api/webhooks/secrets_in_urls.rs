//! A webhook URL may carry a secret (`https://user:pass@host/…`, `?token=…`): what the gateway
//! records of an attempt (the URL, the error, the event's last error) shows the host, the path
//! and the query's keys, never the userinfo or the query's values.

use reqwest::StatusCode;
use serde_json::Value;

use crate::support::helpers::{answer, free_port, later, TestApp};
use crate::support::requests::{collect_v1, post};
use crate::support::webhooks::{dispatcher, event_of, private_targets_allowed};
use momo_test_support::both_backends;

both_backends!(
    TestApp::spawn_with(private_targets_allowed) =>
    attempt_records_show_a_webhook_url_without_its_userinfo_or_query_values,
);

const SECRETS: [&str; 3] = ["hook-user", "hook-pass", "s3cr3t"];

fn assert_no_secret(what: &str, text: &str) {
    for secret in SECRETS {
        assert!(!text.contains(secret), "{what} shows {secret}: {text}");
    }
}

async fn attempt_records_show_a_webhook_url_without_its_userinfo_or_query_values(app: TestApp) {
    // Nothing listens there: each attempt is a transport error, whose text names the URL.
    let port = free_port();
    let url = format!("http://hook-user:hook-pass@127.0.0.1:{port}/hooks?secret=s3cr3t&shop=7");
    let redacted = format!("http://REDACTED@127.0.0.1:{port}/hooks?secret=REDACTED&shop=REDACTED");
    app.gateway
        .merchants
        .set_webhook_url(&app.sandbox_tenant(), Some(&url))
        .await
        .unwrap();
    let token = app.sandbox_token().await;
    let created = post(
        &app,
        &token,
        "/v1/collecte/mobile-money",
        &collect_v1("hook-secret", "0701020301", "ALPHA_MONEY_CI", "1500"),
    )
    .await;
    assert_eq!(created.status, StatusCode::OK, "{}", created.body);
    assert_eq!(dispatcher(&app).run_once(later(0)).await.unwrap().retrying, 1);
    // The same URL refused at send time by a dispatcher that does not allow private targets.
    let mut strict = app.gateway.config().webhook.clone();
    strict.allow_private = false;
    let strict = app.gateway.webhook_dispatcher(&strict).unwrap();
    assert_eq!(strict.run_once(later(60_000)).await.unwrap().retrying, 1);

    let events = answer(app.get("/v1/webhooks/events").bearer_auth(&token)).await;
    let event = &events.body["data"][0];
    assert_no_secret("lastError", event["lastError"].as_str().unwrap());
    let event = event_of(&app, &token, event["id"].as_str().unwrap()).await;
    let attempts = event["deliveryAttempts"].as_array().unwrap();
    assert_eq!(attempts.len(), 2, "{event}");
    for attempt in attempts {
        assert_eq!(attempt["url"], Value::from(redacted.as_str()), "{attempt}");
        let error = attempt["error"].as_str().unwrap();
        assert_no_secret("an attempt's error", error);
        assert!(error.contains("REDACTED"), "the error still says where: {error}");
    }
}
