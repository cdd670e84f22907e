//! Events handed from the write batches straight to the dispatcher (`store::LeasedEvent`), as the
//! server runs it: a settled payment's event is sent as its batch commits, with no claim, and an
//! event handed to a process that never sent it (it died with the event in its queue) is claimed
//! once its lease ends, not before.

use std::time::Duration;

use momo_gateway::webhook::dispatcher::{handoff_queue, spawn_handoff_loops};
use reqwest::StatusCode;

use crate::support::helpers::{answer, later, TestApp};
use crate::support::requests::{collect_v1, post};
use crate::support::webhooks::{dispatcher, listen, private_targets_allowed};
use momo_test_support::{both_backends, until};

both_backends!(
    TestApp::spawn_with(private_targets_allowed) =>
    a_settled_payment_s_event_is_sent_as_its_batch_commits_without_a_claim,
    a_handed_event_nobody_sent_is_claimed_once_its_lease_ends_and_not_before,
);

/// How many events of the default merchant's Sandbox are in `state`.
async fn events_in(app: &TestApp, token: &str, state: &str) -> usize {
    let a = answer(
        app.get(&format!("/v1/webhooks/events?status={state}"))
            .bearer_auth(token),
    )
    .await;
    assert_eq!(a.status, StatusCode::OK, "{}", a.body);
    a.body["data"].as_array().expect("a list of events").len()
}

async fn a_settled_payment_s_event_is_sent_as_its_batch_commits_without_a_claim(app: TestApp) {
    let (receiver, token) = listen(&app, vec![], None).await;
    let d = dispatcher(&app);
    let (queue, handed) = handoff_queue();
    assert!(
        app.gateway.hand_settled_events_to(queue, d.lease()),
        "the process's queue, given once"
    );
    assert!(
        !app.gateway.hand_settled_events_to(handoff_queue().0, d.lease()),
        "one queue per process"
    );
    let (stop, stopped) = tokio::sync::watch::channel(false);
    let loops = spawn_handoff_loops(d.clone(), handed, stopped);
    // A payer number the simulator fails at once: the creation settles in its batch.
    post(
        &app,
        &token,
        "/v1/collecte/mobile-money",
        &collect_v1("h1", "0701020304", "ALPHA_MONEY_CI", "1500"),
    )
    .await;
    until("the handed event delivered", Duration::from_secs(10), async || {
        events_in(&app, &token, "delivered").await >= 1
    })
    .await;
    let received = receiver.received();
    assert_eq!(received.len(), 1, "sent once");
    assert!(received[0].body.contains("\"h1\""), "{}", received[0].body);
    assert_eq!(
        d.run_once(later(0)).await.unwrap().claimed,
        0,
        "nothing was left for a claim"
    );
    stop.send(true).unwrap();
    for l in loops {
        l.await.unwrap();
    }
}

async fn a_handed_event_nobody_sent_is_claimed_once_its_lease_ends_and_not_before(app: TestApp) {
    let (receiver, token) = listen(&app, vec![], None).await;
    let d = dispatcher(&app);
    // Given and never read: the writers lease their events to a dispatcher that sends nothing.
    let (queue, mut handed) = handoff_queue();
    assert!(
        app.gateway.hand_settled_events_to(queue, d.lease()),
        "the process's queue"
    );
    post(
        &app,
        &token,
        "/v1/collecte/mobile-money",
        &collect_v1("h2", "0701020304", "ALPHA_MONEY_CI", "1500"),
    )
    .await;
    let event = handed.try_recv().expect("the batch handed its event over");
    let lease_ms = app.gateway.config().webhook.lease.as_millis() as i64;
    assert_eq!(
        d.run_once(later(0)).await.unwrap().claimed,
        0,
        "leased: no claim takes it"
    );
    assert_eq!(
        d.run_once(later(lease_ms - 1_000)).await.unwrap().claimed,
        0,
        "still leased a second before its end"
    );
    assert_eq!(events_in(&app, &token, "pending").await, 1);
    let report = d.run_once(later(lease_ms + 1_000)).await.unwrap();
    assert_eq!(
        (report.claimed, report.delivered),
        (1, 1),
        "claimed once the lease ended"
    );
    // The dead process's copy, were it to come back late, is not sent: its lease is over.
    let late = d.run_handed(vec![event], later(lease_ms + 1_000)).await.unwrap();
    assert_eq!(late.claimed, 0, "a handed event past its lease is left to the claims");
    assert_eq!(receiver.received().len(), 1, "sent once in all");
    assert_eq!(events_in(&app, &token, "delivered").await, 1);
}
