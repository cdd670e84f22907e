//! Each batch transfer reaches its operator once, and never after it failed, even when the
//! reconciler looks at it before the sender's call has arrived: a gateway process whose first
//! status check comes 300 ms after a claim, against a MoMo operator (the emulator) that takes
//! 500 ms to receive each transfer, so the reconciler's lookups find claimed transfers the
//! operator does not know yet. 600 items, with and without a SIGKILL mid-drain; the emulator
//! counts every initiation it received.

use std::time::Duration;

use momo_gateway::domain::TransactionRef;
use momo_operator_emulator::{Emulator, EmulatorSettings, FaultRule, RunningEmulator};
use reqwest::StatusCode;
use serde_json::{json, Value};

use crate::operators::crash::gateway;
use crate::support::emulated::admin;
use crate::support::helpers::answer;
use crate::support::process_merchant::ProcessMerchant;
use crate::support::requests::transfer_v1;
use momo_test_support::{both_backends, eventually, process, TestDatabase};

both_backends!(
    TestDatabase::create =>
    a_slow_operator_receives_each_batch_transfer_once,
    a_slow_operator_receives_each_batch_transfer_once_across_a_kill,
);

const ITEMS: usize = 600;

/// A gateway whose reconciler asks 300 ms after a claim, sending 200 transfers a second.
fn hasty_gateway(db: &TestDatabase, operator_url: &str) -> std::process::Command {
    let mut command = gateway(db, operator_url);
    command
        .env("MOMO_RECONCILE_AFTER_MS", "300")
        .env("MOMO_RECONCILE_INTERVAL_MS", "100")
        .env("MOMO_PAYOUT_RATE_PER_S", "200")
        .env("MOMO_OPERATOR_TIMEOUT_MS", "3000");
    command
}

async fn slow_operator() -> RunningEmulator {
    let settings = EmulatorSettings {
        faults: vec![FaultRule {
            on: "momo.transfer".into(),
            fault: "latency=500ms".into(),
            times: None,
        }],
        ..EmulatorSettings::default()
    };
    Emulator::start(settings).await.unwrap()
}

async fn batch(client: &reqwest::Client, base: &str, token: &str, id: &str) -> Value {
    answer(client.get(format!("{base}/v1/payout-batches/{id}")).bearer_auth(token))
        .await
        .body["data"]
        .clone()
}

async fn a_slow_operator_receives_each_batch_transfer_once(db: TestDatabase) {
    drain_and_count(db, false).await;
}

async fn a_slow_operator_receives_each_batch_transfer_once_across_a_kill(db: TestDatabase) {
    drain_and_count(db, true).await;
}

async fn drain_and_count(db: TestDatabase, kill: bool) {
    let m = ProcessMerchant::create(&db, "Sent once").await;
    let client = reqwest::Client::new();
    let emulator = slow_operator().await;
    let first = process::serve(hasty_gateway(&db, &emulator.url));
    let token = m.token(&client, &first.base).await;
    let items: Vec<Value> = (0..ITEMS)
        .map(|i| transfer_v1(&format!("once-{i}"), "0701020301", "ALPHA_MONEY_CI", "100"))
        .collect();
    let created = answer(
        client
            .post(format!("{}/v1/payout-batches", first.base))
            .bearer_auth(&token)
            .json(&json!({"items": items})),
    )
    .await;
    assert_eq!(created.status, StatusCode::ACCEPTED, "{}", created.body);
    let id = created.body["data"]["batch"]["id"].as_str().unwrap().to_owned();

    let (running, token) = if kill {
        eventually("a part of the batch paid", Duration::from_secs(60), async || {
            let b = batch(&client, &first.base, &token, &id).await;
            let paid = b["successful"]["count"].as_u64().unwrap_or(0);
            (paid >= 50).then_some(()).ok_or(b)
        })
        .await;
        first.kill();
        let second = process::serve(hasty_gateway(&db, &emulator.url));
        let token = m.token(&client, &second.base).await;
        (second, token)
    } else {
        (first, token)
    };
    let done = eventually("the batch completed", Duration::from_secs(120), async || {
        let b = batch(&client, &running.base, &token, &id).await;
        (b["status"] == "completed").then(|| b.clone()).ok_or(b)
    })
    .await;
    assert_eq!(
        done["successful"],
        json!({"count": ITEMS, "amount": (ITEMS * 100).to_string()}),
        "{done}"
    );

    let tenant = m.sandbox_tenant();
    let mut twice = Vec::new();
    for i in 0..ITEMS {
        let record = m
            .admin
            .payments
            .transaction(&tenant, &TransactionRef::from(format!("once-{i}").as_str()))
            .await
            .unwrap();
        let initiations: Value = admin(&emulator, &format!("initiations/{}", record.transaction.id)).await;
        if (initiations["received"].as_u64(), initiations["executed"].as_u64()) != (Some(1), Some(1)) {
            twice.push(format!("once-{i}: {initiations}"));
        }
    }
    assert!(
        twice.is_empty(),
        "{} of {ITEMS} transfers not received exactly once: {:?}",
        twice.len(),
        &twice[..twice.len().min(5)]
    );
    let check = m.admin.payments.check_ledger().await.unwrap();
    assert_eq!(
        (
            check.postings_sum,
            check.inconsistent_balances,
            check.final_without_one_event
        ),
        (0, 0, 0)
    );
    let (exit, _) = running.terminate().await;
    assert!(exit.success());
}
