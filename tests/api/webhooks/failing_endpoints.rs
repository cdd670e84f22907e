//! `momo_webhook_endpoints_failing`: a merchant whose receiver keeps failing shows in `/metrics`
//! (the alert `MomoWebhooksFailingForAMerchant` reads it) from its third failed attempt until
//! the event is delivered or given up, and no merchant is named in it.

use std::time::Duration;

use momo_gateway::config::Config;
use momo_gateway::domain::Timestamp;

use crate::support::helpers::{later, TestApp};
use crate::support::requests::{collect_v1, post};
use crate::support::webhooks::{dispatcher, listen, private_targets_allowed};
use momo_test_support::both_backends;
use momo_test_support::receiver::Reply;

both_backends!(TestApp::spawn_with(four_short_retries) => a_receiver_failing_three_times_counts_its_merchant_until_the_event_is_given_up);

/// Retries after 1, 2, 3 and 4 seconds, then the event fails; `/metrics` reads the database at
/// every scrape.
fn four_short_retries(c: &mut Config) {
    private_targets_allowed(c);
    c.webhook.retry_schedule = [1, 2, 3, 4].map(Duration::from_secs).to_vec();
    c.metrics.database_refresh = Duration::ZERO;
}

async fn failing(app: &TestApp) -> String {
    let text = app.get("/metrics").send().await.unwrap().text().await.unwrap();
    text.lines()
        .find(|l| l.starts_with("momo_webhook_endpoints_failing "))
        .unwrap_or_else(|| panic!("no momo_webhook_endpoints_failing in:\n{text}"))
        .to_owned()
}

async fn a_receiver_failing_three_times_counts_its_merchant_until_the_event_is_given_up(app: TestApp) {
    let (_receiver, token) = listen(&app, vec![], Some(Reply::status(503))).await;
    post(
        &app,
        &token,
        "/v1/collecte/mobile-money",
        &collect_v1("fail-1", "0701020301", "ALPHA_MONEY_CI", "1500"),
    )
    .await;
    post(
        &app,
        &token,
        "/v1/collecte/mobile-money",
        &collect_v1("fail-2", "0701020301", "ALPHA_MONEY_CI", "1500"),
    )
    .await;
    let d = dispatcher(&app);
    let mut now = later(0);
    let mut seen = Vec::new();
    for _ in 0..5 {
        d.run_once(now).await.unwrap();
        seen.push(failing(&app).await);
        now = Timestamp(now.millis() + 5_000);
    }
    assert_eq!(
        seen,
        [
            "momo_webhook_endpoints_failing 0",
            "momo_webhook_endpoints_failing 0",
            // Two events of one merchant still undelivered after three attempts: one endpoint.
            "momo_webhook_endpoints_failing 1",
            "momo_webhook_endpoints_failing 1",
            // The fifth attempt failed too: the events are given up, and counted there instead.
            "momo_webhook_endpoints_failing 0",
        ]
    );
}
