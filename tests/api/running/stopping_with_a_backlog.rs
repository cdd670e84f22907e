//! A gateway stopped (SIGTERM) while its reconciler walks a backlog of due status checks, each
//! answered slowly by the operator (the emulator, MoMo Open API): it stops within seconds, at
//! the end of the step in flight, instead of visiting the whole backlog first, and leaves every
//! payment it did not hear about `PENDING`.

use std::time::{Duration, Instant};

use futures_util::stream::{self, StreamExt};
use momo_operator_emulator::{Emulator, EmulatorSettings};
use reqwest::StatusCode;
use serde_json::json;

use crate::operators::crash::{gateway, status};
use crate::support::process_merchant::ProcessMerchant;
use crate::support::requests::collect_v1;
use momo_test_support::process;
use momo_test_support::{both_backends, TestDatabase};

both_backends!(TestDatabase::create => a_stop_during_a_long_reconciliation_waits_for_one_step_not_the_backlog);

/// Collections due for a status check when the stop comes.
const BACKLOG: usize = 320;

/// How long the operator takes to answer each status check.
const STATUS_LATENCY: &str = "latency=1s";

async fn a_stop_during_a_long_reconciliation_waits_for_one_step_not_the_backlog(db: TestDatabase) {
    let emulator = Emulator::start(EmulatorSettings::default()).await.unwrap();
    // Payers who approve an hour later, and status checks answered after a second: the
    // reconciler's 16 visits at a time need 20 s for the backlog.
    let rules = json!({"rules": [
        {"on": "momo.requesttopay", "fault": "approve_after=60m"},
        {"on": "momo.requesttopay.status", "fault": STATUS_LATENCY},
    ]});
    let set = reqwest::Client::new()
        .post(format!("{}/_emulator/faults", emulator.url))
        .json(&rules)
        .send()
        .await
        .unwrap();
    assert!(set.status().is_success(), "{:?}", set.text().await);
    let m = ProcessMerchant::create(&db, "Stopping").await;
    let running = process::serve(gateway(&db, &emulator.url));
    let client = reqwest::Client::new();
    let token = m.token(&client, &running.base).await;
    let created: Vec<StatusCode> = stream::iter(0..BACKLOG)
        .map(|i| {
            let (client, base, token) = (client.clone(), running.base.clone(), token.clone());
            async move {
                client
                    .post(format!("{base}/v1/collecte/mobile-money"))
                    .bearer_auth(&token)
                    .json(&collect_v1(
                        &format!("stop-{i}"),
                        "0701020301",
                        "ALPHA_MONEY_CI",
                        "1000",
                    ))
                    .send()
                    .await
                    .unwrap()
                    .status()
            }
        })
        .buffer_unordered(16)
        .collect()
        .await;
    assert!(
        created.iter().all(|s| *s == StatusCode::ACCEPTED),
        "every collection is pending at its operator: {created:?}"
    );
    // Every check is due (MOMO_RECONCILE_AFTER_MS=200) and the reconciler is in its first step.
    tokio::time::sleep(Duration::from_millis(1_500)).await;
    let pending = status(&client, &running.base, &token, "stop-0").await.unwrap();
    assert_eq!(pending["status"], "PENDING");

    let asked = Instant::now();
    let (exit, _) = running.terminate().await;
    let took = asked.elapsed();
    assert!(exit.success(), "{exit:?}");
    // One step (1 s of claims) and the visits in flight (1 s each), with room for a slow
    // machine; the whole backlog would take some 20 s.
    assert!(took < Duration::from_secs(8), "the stop took {took:?}");

    let after = process::serve(gateway(&db, &emulator.url));
    let token = m.token(&client, &after.base).await;
    for i in [0, BACKLOG / 2, BACKLOG - 1] {
        let data = status(&client, &after.base, &token, &format!("stop-{i}"))
            .await
            .unwrap();
        assert_eq!(data["status"], "PENDING", "nothing settled on a guess: {data}");
    }
    let (exit, _) = after.terminate().await;
    assert!(exit.success());
}
