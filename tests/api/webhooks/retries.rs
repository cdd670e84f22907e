//! A receiver that fails: retries on schedule with the same id and body and an attempt log,
//! failure at the end of the schedule then redelivery, 410, 429 with Retry-After, timeouts and
//! redirects. Time is driven through `run_once(now)`; nothing waits for it to pass.

use momo_gateway::config::Config;
use momo_gateway::domain::Timestamp;
use reqwest::StatusCode;
use serde_json::Value;

use crate::support::helpers::{answer, later, TestApp};
use crate::support::requests::{collect_v1, post};
use crate::support::webhooks::{dispatcher, event_of, listen, private_targets_allowed};
use momo_test_support::both_backends;
use momo_test_support::receiver::{Receiver, Reply};

both_backends!(
    TestApp::spawn_with(private_targets_allowed) =>
    a_failing_receiver_gets_the_same_id_and_body_on_schedule_and_every_attempt_is_logged,
    gone_disables_the_endpoint_and_setting_it_again_re_enables_it,
    too_many_requests_waits_at_least_retry_after,
);
both_backends!(TestApp::spawn_with(three_short_retries) => a_receiver_down_for_the_whole_schedule_fails_the_event_and_redelivery_delivers_it);
both_backends!(TestApp::spawn_with(a_300_ms_timeout) => a_slow_receiver_times_out_and_a_redirect_is_not_followed);

/// Retries after 1, 2 and 3 seconds, then the event fails.
fn three_short_retries(c: &mut Config) {
    private_targets_allowed(c);
    c.webhook.retry_schedule = [1, 2, 3].map(std::time::Duration::from_secs).to_vec();
}

/// Attempts that take longer than 300 ms fail.
fn a_300_ms_timeout(c: &mut Config) {
    private_targets_allowed(c);
    c.webhook.timeout = std::time::Duration::from_millis(300);
}

async fn a_failing_receiver_gets_the_same_id_and_body_on_schedule_and_every_attempt_is_logged(app: TestApp) {
    let script = vec![Reply {
        body: "boom: database down",
        ..Reply::status(500)
    }];
    let (receiver, token) = listen(&app, script, None).await;
    post(
        &app,
        &token,
        "/v1/collecte/mobile-money",
        &collect_v1("r1", "0701020301", "ALPHA_MONEY_CI", "1500"),
    )
    .await;
    let d = dispatcher(&app);
    let first = later(0);
    assert_eq!(d.run_once(first).await.unwrap().retrying, 1);
    let event_id = receiver.received()[0].id.clone();
    let event = event_of(&app, &token, &event_id).await;
    assert_eq!(event["status"], "pending");
    let next = Timestamp::parse_iso8601(event["nextAttemptAt"].as_str().unwrap()).unwrap();
    let delay = next.millis() - first.millis();
    assert!(
        (5_000..=6_000).contains(&delay),
        "5 s with up to 20 % jitter, got {delay} ms"
    );
    assert_eq!(
        d.run_once(Timestamp(first.millis() + 4_000)).await.unwrap().claimed,
        0,
        "not due yet"
    );
    assert_eq!(
        d.run_once(Timestamp(first.millis() + 6_001)).await.unwrap().delivered,
        1
    );

    let received = receiver.received();
    assert_eq!(received.len(), 2);
    assert_eq!(received[0].id, received[1].id, "the same webhook-id on every attempt");
    assert_eq!(received[0].body, received[1].body, "the same body on every attempt");
    let event = event_of(&app, &token, &event_id).await;
    assert_eq!(event["status"], "delivered");
    let attempts = event["deliveryAttempts"].as_array().unwrap();
    assert_eq!(attempts.len(), 2);
    assert_eq!(attempts[0]["statusCode"], 500);
    assert_eq!(attempts[0]["response"], "boom: database down");
    assert!(attempts[0]["error"].as_str().unwrap().contains("500"));
    assert!(attempts[0]["latencyMs"].is_i64());
    assert_eq!(attempts[1]["statusCode"], 200);
    assert_eq!(attempts[1]["error"], Value::Null);
}

async fn a_receiver_down_for_the_whole_schedule_fails_the_event_and_redelivery_delivers_it(app: TestApp) {
    let down = Some(Reply::status(503));
    let (receiver, token) = listen(&app, vec![], down.clone()).await;
    post(
        &app,
        &token,
        "/v1/collecte/mobile-money",
        &collect_v1("down", "0701020301", "ALPHA_MONEY_CI", "1500"),
    )
    .await;
    let d = dispatcher(&app);
    let mut now = later(0);
    let mut attempts = 0;
    loop {
        let report = d.run_once(now).await.unwrap();
        attempts += report.claimed;
        if report.failed == 1 {
            break;
        }
        assert!(attempts < 10, "the schedule must end");
        now = Timestamp(now.millis() + 4_000);
    }
    assert_eq!(attempts, 4, "three delays: four attempts");
    assert_eq!(receiver.received().len(), 4);
    let id = receiver.received()[0].id.clone();
    let event = event_of(&app, &token, &id).await;
    assert_eq!(event["status"], "failed");
    assert!(event["lastError"]
        .as_str()
        .unwrap()
        .contains("gave up after 4 attempts"));
    // The receiver recovers; the merchant asks for the failed events of the day again.
    let recovered = Receiver::start(vec![], None).await;
    app.gateway
        .merchants
        .set_webhook_url(&app.sandbox_tenant(), Some(&recovered.url))
        .await
        .unwrap();
    let a = answer(
        app.post("/v1/webhooks/redeliver?from=2000-01-01T00:00:00Z&to=2100-01-01T00:00:00Z")
            .bearer_auth(&token),
    )
    .await;
    assert_eq!(a.status, StatusCode::ACCEPTED, "{}", a.body);
    assert_eq!(a.body["data"]["redelivered"], 1);
    assert_eq!(d.run_once(later(0)).await.unwrap().delivered, 1);
    assert_eq!(recovered.received()[0].id, id, "redelivery keeps the webhook-id");
    assert_eq!(event_of(&app, &token, &id).await["status"], "delivered");
}

async fn gone_disables_the_endpoint_and_setting_it_again_re_enables_it(app: TestApp) {
    let (receiver, token) = listen(&app, vec![Reply::status(410)], None).await;
    post(
        &app,
        &token,
        "/v1/collecte/mobile-money",
        &collect_v1("g1", "0701020301", "ALPHA_MONEY_CI", "1500"),
    )
    .await;
    let d = dispatcher(&app);
    assert_eq!(d.run_once(later(0)).await.unwrap().failed, 1);
    post(
        &app,
        &token,
        "/v1/collecte/mobile-money",
        &collect_v1("g2", "0701020301", "ALPHA_MONEY_CI", "1500"),
    )
    .await;
    assert_eq!(
        d.run_once(later(0)).await.unwrap().failed,
        1,
        "events raised meanwhile fail at once"
    );
    assert_eq!(
        receiver.received().len(),
        1,
        "nothing more is sent to a disabled endpoint"
    );
    let failed = answer(app.get("/v1/webhooks/events?status=failed").bearer_auth(&token)).await;
    let events = failed.body["data"].as_array().unwrap();
    assert_eq!(events.len(), 2);
    assert!(
        events[0]["lastError"].as_str().unwrap().contains("endpoint disabled"),
        "{}",
        events[0]
    );
    app.gateway
        .merchants
        .set_webhook_url(&app.sandbox_tenant(), Some(&receiver.url))
        .await
        .unwrap();
    for e in events {
        let id = e["id"].as_str().unwrap();
        assert_eq!(
            answer(
                app.post(&format!("/v1/webhooks/events/{id}/redeliver"))
                    .bearer_auth(&token)
            )
            .await
            .status,
            StatusCode::ACCEPTED
        );
    }
    assert_eq!(d.run_once(later(0)).await.unwrap().delivered, 2);
}

async fn too_many_requests_waits_at_least_retry_after(app: TestApp) {
    let script = vec![Reply {
        retry_after: Some("3600"),
        body: "slow down",
        ..Reply::status(429)
    }];
    let (receiver, token) = listen(&app, script, None).await;
    post(
        &app,
        &token,
        "/v1/collecte/mobile-money",
        &collect_v1("t1", "0701020301", "ALPHA_MONEY_CI", "1500"),
    )
    .await;
    let d = dispatcher(&app);
    let first = later(0);
    assert_eq!(d.run_once(first).await.unwrap().retrying, 1);
    let id = receiver.received()[0].id.clone();
    let next = Timestamp::parse_iso8601(event_of(&app, &token, &id).await["nextAttemptAt"].as_str().unwrap()).unwrap();
    assert!(next.millis() - first.millis() >= 3_600_000, "Retry-After is a minimum");
    assert_eq!(
        d.run_once(Timestamp(first.millis() + 3_000_000)).await.unwrap().claimed,
        0
    );
    assert_eq!(
        d.run_once(Timestamp(first.millis() + 3_600_001 + 1_000_000))
            .await
            .unwrap()
            .delivered,
        1
    );
}

async fn a_slow_receiver_times_out_and_a_redirect_is_not_followed(app: TestApp) {
    let script = vec![
        Reply {
            delay_ms: 2_000,
            ..Reply::status(200)
        },
        Reply {
            location: Some("http://127.0.0.1:9/elsewhere"),
            ..Reply::status(302)
        },
    ];
    let (receiver, token) = listen(&app, script, None).await;
    post(
        &app,
        &token,
        "/v1/collecte/mobile-money",
        &collect_v1("slow", "0701020301", "ALPHA_MONEY_CI", "1500"),
    )
    .await;
    let d = dispatcher(&app);
    let start = later(0);
    assert_eq!(
        d.run_once(start).await.unwrap().retrying,
        1,
        "a timeout is a failed attempt"
    );
    assert_eq!(
        d.run_once(Timestamp(start.millis() + 7_000)).await.unwrap().retrying,
        1,
        "a 302 is not followed"
    );
    assert_eq!(
        d.run_once(Timestamp(start.millis() + 400_000)).await.unwrap().delivered,
        1
    );
    let id = receiver.received()[0].id.clone();
    let attempts = event_of(&app, &token, &id).await["deliveryAttempts"].clone();
    assert!(
        attempts[0]["error"].as_str().unwrap().contains("timed out"),
        "{}",
        attempts[0]
    );
    assert_eq!(attempts[0]["statusCode"], Value::Null);
    assert_eq!(attempts[1]["statusCode"], 302);
    assert_eq!(receiver.received().len(), 3, "nothing was sent to the redirect target");
}
