//! A gateway killed with SIGKILL while a batch drains through the MoMo Open API (the emulator):
//! restarted, it finishes the batch, and the emulator has executed every accepted transfer
//! exactly once; the ledger is balanced.

use std::time::Duration;

use momo_gateway::domain::TransactionRef;
use momo_operator_emulator::{Emulator, EmulatorSettings};
use serde_json::{json, Value};

use crate::operators::crash::gateway;
use crate::support::emulated::admin;
use crate::support::helpers::answer;
use crate::support::process_merchant::ProcessMerchant;
use crate::support::requests::transfer_v1;
use momo_test_support::process;
use momo_test_support::TestDatabase;
use momo_test_support::{both_backends, eventually};

both_backends!(TestDatabase::create => a_batch_killed_while_it_drains_pays_every_item_exactly_once);

const ITEMS: usize = 120;

async fn batch(client: &reqwest::Client, base: &str, token: &str, id: &str) -> Value {
    answer(client.get(format!("{base}/v1/payout-batches/{id}")).bearer_auth(token))
        .await
        .body["data"]
        .clone()
}

/// The gateway of `operators::crash`, sending batches slowly enough to be killed mid-drain.
/// Its operator timeout is short: a status check the killed process had claimed is leased for
/// a status lookup and the longest send, in MoMo calls eight of them (and 2 s: 18 s here),
/// before the next process may ask again (`reconcile::check_lease`).
fn slow_gateway(db: &TestDatabase, operator_url: &str) -> std::process::Command {
    let mut command = gateway(db, operator_url);
    command
        .env("MOMO_PAYOUT_RATE_PER_S", "40")
        .env("MOMO_OPERATOR_TIMEOUT_MS", "2000");
    command
}

async fn a_batch_killed_while_it_drains_pays_every_item_exactly_once(db: TestDatabase) {
    let m = ProcessMerchant::create(&db, "Crash batches").await;
    let client = reqwest::Client::new();
    let emulator = Emulator::start(EmulatorSettings::default()).await.unwrap();

    let first = process::serve(slow_gateway(&db, &emulator.url));
    let token = m.token(&client, &first.base).await;
    let items: Vec<Value> = (0..ITEMS)
        .map(|i| transfer_v1(&format!("drain-{i}"), "0701020301", "ALPHA_MONEY_CI", "1000"))
        .collect();
    let created = answer(
        client
            .post(format!("{}/v1/payout-batches", first.base))
            .bearer_auth(&token)
            .json(&json!({"items": items})),
    )
    .await;
    assert_eq!(created.status, reqwest::StatusCode::ACCEPTED, "{}", created.body);
    let id = created.body["data"]["batch"]["id"].as_str().unwrap().to_owned();
    // Killed once some transfers are paid and many are still queued.
    let midway = eventually("a part of the batch paid", Duration::from_secs(30), async || {
        let b = batch(&client, &first.base, &token, &id).await;
        let paid = b["successful"]["count"].as_u64().unwrap_or(0);
        (paid >= 10).then(|| b.clone()).ok_or(b)
    })
    .await;
    first.kill();
    assert_ne!(midway["status"], "completed", "killed mid-drain: {midway}");

    let second = process::serve(slow_gateway(&db, &emulator.url));
    let token = m.token(&client, &second.base).await;
    let done = eventually("the batch completed", Duration::from_secs(60), async || {
        let b = batch(&client, &second.base, &token, &id).await;
        (b["status"] == "completed").then(|| b.clone()).ok_or(b)
    })
    .await;
    assert_eq!(
        done["successful"],
        json!({"count": ITEMS, "amount": (ITEMS * 1000).to_string()}),
        "{done}"
    );
    let tenant = m.sandbox_tenant();
    for i in 0..ITEMS {
        let record = m
            .admin
            .payments
            .transaction(&tenant, &TransactionRef::from(format!("drain-{i}").as_str()))
            .await
            .unwrap();
        let initiations: Value = admin(&emulator, &format!("initiations/{}", record.transaction.id)).await;
        assert_eq!(
            initiations["executed"].as_u64(),
            Some(1),
            "drain-{i} paid exactly once: {initiations}"
        );
    }
    let check = m.admin.payments.check_ledger().await.unwrap();
    assert_eq!(
        (
            check.postings_sum,
            check.inconsistent_balances,
            check.final_without_one_event
        ),
        (0, 0, 0)
    );
    let (exit, _) = second.terminate().await;
    assert!(exit.success());
}
