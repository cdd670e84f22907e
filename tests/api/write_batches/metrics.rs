//! The write batches in `/metrics`: an operator reads there how many writes a batch carries
//! (group commit at work), how often a batch runs again one savepoint per write, and how long
//! the writers are busy and committing.

use std::time::Duration;

use momo_gateway::config::Config;
use reqwest::StatusCode;

use crate::support::helpers::{answer, TestApp};
use crate::support::requests::collect_v1;
use momo_test_support::both_backends;

both_backends!(
    TestApp::spawn_with(batched) =>
    metrics_count_write_batches_their_writes_and_their_second_passes,
);

/// Writers that wait for more work, so concurrent requests land in one batch (longer than the
/// other batch tests wait: this test needs only two of twenty requests to share a batch, on a
/// busy machine too).
fn batched(c: &mut Config) {
    c.batching.wait = Duration::from_millis(100);
}

/// The value of the sample named `sample` (with its labels, if any) in a text exposition.
fn sample(text: &str, sample: &str) -> f64 {
    text.lines()
        .find_map(|l| l.strip_prefix(sample)?.strip_prefix(' '))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or_else(|| panic!("no sample {sample:?} in:\n{text}"))
}

async fn metrics_count_write_batches_their_writes_and_their_second_passes(app: TestApp) {
    let token = app.sandbox_token().await;
    // Payers ending 06: the simulator leaves their collections PENDING.
    let creations = (0..20).map(|i| {
        let body = collect_v1(
            &format!("batched-{i}"),
            &format!("0701{i:04}06"),
            "GAMMA_MONEY_CI",
            "1000",
        );
        answer(app.post("/v1/collecte/mobile-money").bearer_auth(&token).json(&body))
    });
    let created = futures_util::future::join_all(creations).await;
    let statuses: Vec<StatusCode> = created.iter().map(|a| a.status).collect();
    assert!(statuses.iter().all(|s| *s == StatusCode::ACCEPTED), "{statuses:?}");
    // Twenty requests for a taken id, at once: a batch of two or more of them fails its
    // set-based pass and runs again one savepoint per write, where each gets its own 409.
    let taken = (0..20).map(|i| {
        let body = collect_v1("batched-0", &format!("0702{i:04}06"), "GAMMA_MONEY_CI", "1000");
        answer(app.post("/v1/collecte/mobile-money").bearer_auth(&token).json(&body))
    });
    let refused = futures_util::future::join_all(taken).await;
    let statuses: Vec<StatusCode> = refused.iter().map(|a| a.status).collect();
    assert!(statuses.iter().all(|s| *s == StatusCode::CONFLICT), "{statuses:?}");

    let text = app.get("/metrics").send().await.unwrap().text().await.unwrap();
    let committed = sample(&text, "momo_write_batches_total{outcome=\"committed\"}");
    let writes = sample(&text, "momo_write_batch_writes_total");
    let refused = sample(&text, "momo_write_batches_total{outcome=\"refused\"}");
    assert!(
        writes + refused >= 40.0,
        "the 20 creations, and the 20 refused in committed batches or alone: {writes} writes, {refused} refused alone"
    );
    assert!(
        committed >= 1.0 && committed < writes,
        "concurrent writes share batches: {committed} batches for {writes} writes"
    );
    assert_eq!(sample(&text, "momo_write_batches_total{outcome=\"failed\"}"), 0.0);
    assert!(sample(&text, "momo_write_batch_second_passes_total") >= 1.0);
    let (busy, committing) = (
        sample(&text, "momo_write_batch_busy_seconds_total"),
        sample(&text, "momo_write_batch_commit_seconds_total"),
    );
    assert!(
        committing > 0.0 && committing <= busy,
        "commit {committing} s of busy {busy} s"
    );
    // Every batch's duration is in the histogram, however it ended, and the durations add up
    // to the busy time; every commit's too, the second passes' included.
    let batches = sample(&text, "momo_write_batch_duration_seconds_count");
    assert_eq!(batches, committed + refused, "{text}");
    assert_eq!(
        sample(&text, "momo_write_batch_duration_seconds_bucket{le=\"+Inf\"}"),
        batches
    );
    assert_eq!(sample(&text, "momo_write_batch_duration_seconds_sum"), busy);
    assert!(sample(&text, "momo_write_commit_duration_seconds_count") >= committed);
    assert_eq!(sample(&text, "momo_write_commit_duration_seconds_sum"), committing);
}
