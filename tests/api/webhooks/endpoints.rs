//! The merchant's side of webhooks: the events API that lists, shows and redelivers events, and
//! private or loopback target URLs, refused unless the configuration allows them.

use reqwest::StatusCode;
use serde_json::json;

use crate::support::helpers::{answer, later, TestApp};
use crate::support::requests::{collect_v1, post};
use crate::support::webhooks::{dispatcher, listen, private_targets_allowed};
use momo_test_support::both_backends;

both_backends!(
    TestApp::spawn_with(private_targets_allowed) =>
    the_merchant_api_lists_shows_and_redelivers_events,
    private_targets_are_refused_unless_allowed,
);

async fn the_merchant_api_lists_shows_and_redelivers_events(app: TestApp) {
    let (_receiver, token) = listen(&app, vec![], None).await;
    post(
        &app,
        &token,
        "/v1/collecte/mobile-money",
        &collect_v1("e1", "0701020301", "ALPHA_MONEY_CI", "1500"),
    )
    .await;
    post(
        &app,
        &token,
        "/v1/collecte/mobile-money",
        &collect_v1("e2", "0701020304", "ALPHA_MONEY_CI", "1500"),
    )
    .await;
    post(
        &app,
        &token,
        "/v1/collecte/mobile-money",
        &collect_v1("e3", "0701020302", "ALPHA_MONEY_CI", "1500"),
    )
    .await;
    let all = answer(app.get("/v1/webhooks/events").bearer_auth(&token)).await;
    assert_eq!(
        all.body["data"].as_array().unwrap().len(),
        2,
        "one event per final transition; e3 is pending"
    );
    let pending = answer(
        app.get("/v1/webhooks/events?status=pending&transactionId=e2")
            .bearer_auth(&token),
    )
    .await;
    let events = pending.body["data"].as_array().unwrap();
    assert_eq!(events.len(), 1);
    assert_eq!(events[0]["transactionStatus"], "FAILED");
    assert_eq!(events[0]["payload"]["transactionId"], "e2");
    let first_page = answer(app.get("/v1/webhooks/events?limit=1").bearer_auth(&token)).await;
    assert!(first_page.header("x-next-cursor").is_some(), "a second page follows");
    dispatcher(&app).run_once(later(0)).await.unwrap();
    let delivered = answer(app.get("/v1/webhooks/events?status=delivered").bearer_auth(&token)).await;
    assert_eq!(delivered.body["data"].as_array().unwrap().len(), 2);
    for bad in ["status=sent", "limit=0"] {
        assert_eq!(
            answer(app.get(&format!("/v1/webhooks/events?{bad}")).bearer_auth(&token))
                .await
                .status,
            StatusCode::BAD_REQUEST
        );
    }
    assert_eq!(
        answer(
            app.post("/v1/webhooks/redeliver?from=2026-01-01T00:00:00Z")
                .bearer_auth(&token)
        )
        .await
        .status,
        StatusCode::BAD_REQUEST
    );
    // A reversed range holds no event, as a transaction list with one is empty; the date past
    // the years `time` converts to UTC is read as the instant it names, not a 500.
    let reversed = answer(
        app.post("/v1/webhooks/redeliver?from=9999-12-31T23:00:00-05:00&to=2026-01-01T00:00:00Z")
            .bearer_auth(&token),
    )
    .await;
    assert_eq!(
        (reversed.status, &reversed.body["data"]["redelivered"]),
        (StatusCode::ACCEPTED, &serde_json::json!(0))
    );
    assert_eq!(
        answer(app.get("/v1/webhooks/events/msg_nope").bearer_auth(&token))
            .await
            .status,
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        answer(app.post("/v1/webhooks/events/msg_nope/redeliver").bearer_auth(&token))
            .await
            .status,
        StatusCode::NOT_FOUND
    );
    // Another merchant sees none of them.
    let other = app.new_merchant("Other").await;
    let other_token = app.token(&other.sandbox).await;
    let id = delivered.body["data"][0]["id"].as_str().unwrap();
    assert_eq!(
        answer(app.get(&format!("/v1/webhooks/events/{id}")).bearer_auth(&other_token))
            .await
            .status,
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        answer(app.get("/v1/webhooks/events").bearer_auth(&other_token))
            .await
            .body["data"],
        json!([])
    );
}

async fn private_targets_are_refused_unless_allowed(app: TestApp) {
    let (receiver, token) = listen(&app, vec![], None).await;
    // When the URL is set, with private targets not allowed:
    let strict = TestApp::spawn(app.backend).await.unwrap();
    let err = strict
        .gateway
        .merchants
        .set_webhook_url(&strict.sandbox_tenant(), Some(&receiver.url))
        .await
        .unwrap_err();
    assert!(err.to_string().contains("private or special-purpose"), "{err}");
    assert!(
        err.to_string().contains("MOMO_WEBHOOK_ALLOW_PRIVATE"),
        "the error says what to do: {err}"
    );
    // At send time: the URL was accepted earlier, but this dispatcher does not allow it.
    post(
        &app,
        &token,
        "/v1/collecte/mobile-money",
        &collect_v1("p1", "0701020301", "ALPHA_MONEY_CI", "1500"),
    )
    .await;
    let mut strict = app.gateway.config().webhook.clone();
    strict.allow_private = false;
    let strict_dispatcher = app.gateway.webhook_dispatcher(&strict).unwrap();
    assert_eq!(strict_dispatcher.run_once(later(0)).await.unwrap().retrying, 1);
    assert!(receiver.received().is_empty(), "nothing reached the private target");
    let events = answer(app.get("/v1/webhooks/events").bearer_auth(&token)).await;
    assert!(events.body["data"][0]["lastError"]
        .as_str()
        .unwrap()
        .contains("private or special-purpose"));
    // Allowed by configuration, it goes through.
    assert_eq!(dispatcher(&app).run_once(later(10_000)).await.unwrap().delivered, 1);
}
