//! A batch whose request ends while it records the items one by one (the task dropped, as a
//! killed process or an HTTP timeout drops it) is left unsealed; the sweep seals it once it is
//! older than any request may run, and it completes with the transfers that were recorded,
//! the rest counted as refused. Time is driven through the workers' `run_once(now)`.

use std::time::Duration;

use momo_gateway::reconcile::abandoned_batches;
use momo_gateway::service::payouts::{csv, BatchRequest};
use serde_json::{json, Value};

use crate::payouts::batches::drain;
use crate::support::helpers::{answer, later, TestApp};
use momo_test_support::{both_backends, eventually};

both_backends!(
    TestApp::spawn_with(small_sandbox) =>
    a_batch_whose_request_ended_midway_is_sealed_by_the_sweep_and_completes,
);

/// A balance of 100 transfers of 1,000: a batch of more is recorded item by item.
fn small_sandbox(c: &mut momo_gateway::config::Config) {
    c.sandbox_initial_balance = 100_000;
}

const ITEMS: usize = 3_000;

async fn only_batch(app: &TestApp, token: &str) -> Value {
    answer(app.get("/v1/payout-batches").bearer_auth(token)).await.body["data"][0].clone()
}

async fn a_batch_whose_request_ended_midway_is_sealed_by_the_sweep_and_completes(app: TestApp) {
    let token = app.sandbox_token().await;
    let mut file = csv::header();
    for i in 0..ITEMS {
        file.push_str(&format!("\ncut-{i},GAMMA_MONEY_CI,0701020301,1000,Koné,Awa"));
    }
    let items = csv::read(file.as_bytes(), &app.gateway.config().operator_aliases).unwrap();
    let request = BatchRequest {
        label: Some("cut short".into()),
        all_or_nothing: false,
        items,
    };
    let payouts = app.gateway.payouts.clone();
    let tenant = app.sandbox_tenant();
    let recording = tokio::spawn(async move { payouts.create_batch(&tenant, request, later(0)).await });
    // Dropped once some items are recorded, long before all 3,000 are.
    eventually("a part of the batch recorded", Duration::from_secs(30), async || {
        let b = only_batch(&app, &token).await;
        (b["accepted"]["count"].as_u64().unwrap_or(0) >= 5)
            .then_some(())
            .ok_or(b)
    })
    .await;
    recording.abort();
    let ended = recording.await;
    assert!(
        ended.as_ref().is_err_and(|e| e.is_cancelled()),
        "the request must end midway for this test: {:?}",
        ended.map(|r| r.map(|c| c.batch))
    );
    let cut = only_batch(&app, &token).await;
    assert_eq!(cut["status"], "processing", "{cut}");
    assert_eq!(
        cut["refused"], 0,
        "not sealed, so nothing counted as refused yet: {cut}"
    );

    let young = abandoned_batches::run_once(&app.gateway.payouts, later(60_000))
        .await
        .unwrap();
    assert_eq!(young.examined, 0, "a minute old: its request may still run");
    let swept = abandoned_batches::run_once(&app.gateway.payouts, later(16 * 60_000))
        .await
        .unwrap();
    assert_eq!(swept.examined, 1);
    let again = abandoned_batches::run_once(&app.gateway.payouts, later(17 * 60_000))
        .await
        .unwrap();
    assert_eq!(again.examined, 0, "sealed once");

    let sealed = only_batch(&app, &token).await;
    let accepted = sealed["accepted"]["count"].as_i64().unwrap();
    assert!((5..=100).contains(&accepted), "{sealed}");
    assert_eq!(sealed["submitted"], ITEMS, "{sealed}");
    assert_eq!(
        sealed["refused"],
        ITEMS as i64 - accepted,
        "what was not recorded is refused: {sealed}"
    );
    assert_eq!(sealed["duplicates"], 0, "{sealed}");

    assert_eq!(
        drain(&app).await as i64,
        accepted,
        "each recorded transfer is sent once"
    );
    let done = only_batch(&app, &token).await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(
        done["successful"],
        json!({"count": accepted, "amount": (accepted * 1000).to_string()}),
        "{done}"
    );
    app.assert_ledger().await;
}
