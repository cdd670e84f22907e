//! A crash between the `PENDING` commit and the operator call: the gateway runs as a process
//! whose operator (MoMo Open API) never answers the token request, so a transfer is recorded
//! `PENDING` and the payment call is never sent; the process is killed with SIGKILL. Restarted
//! against the real operator (the emulator), the gateway asks the operator, learns it never
//! received the payment, and sends it again, once, with the same key: paid exactly once, the
//! ledger balanced.

use std::time::Duration;

use momo_gateway::domain::{Transaction, TransactionRef};
use momo_operator_emulator::{Emulator, EmulatorSettings};
use reqwest::StatusCode;
use serde_json::Value;

use crate::support::emulated::admin;
use crate::support::helpers::{answer, TEST_JWT_SECRET};
use crate::support::process_merchant::ProcessMerchant;
use crate::support::requests::transfer_v1;
use momo_test_support::process;
use momo_test_support::TestDatabase;
use momo_test_support::{both_backends, eventually};

both_backends!(
    TestDatabase::create =>
    a_crash_before_the_operator_call_is_recovered_by_sending_it_once,
    a_crash_before_the_paydunya_call_is_recovered_by_sending_it_once,
);

/// A TCP peer that accepts connections and never answers: the operator the first process waits on.
pub async fn black_hole() -> (String, tokio::task::JoinHandle<()>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let task = tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((socket, _)) = listener.accept().await {
            held.push(socket);
        }
    });
    (url, task)
}

pub fn gateway(db: &TestDatabase, operator_url: &str) -> std::process::Command {
    let mut command = process::command(&db.url);
    command
        .env("MOMO_JWT_SECRET", TEST_JWT_SECRET)
        .env("MOMO_OPERATOR_CONNECTORS", "ALPHA:Sandbox=momo-openapi")
        .env("MOMO_MOMO_OPENAPI_URL", operator_url)
        .env(
            "MOMO_MOMO_OPENAPI_COLLECTION",
            "collection-user:collection-key:collection-subscription",
        )
        .env(
            "MOMO_MOMO_OPENAPI_DISBURSEMENT",
            "disbursement-user:disbursement-key:disbursement-subscription",
        )
        .env("MOMO_OPERATOR_TIMEOUT_MS", "60000")
        .env("MOMO_RECONCILE_AFTER_MS", "200")
        .env("MOMO_RECONCILE_INTERVAL_MS", "100");
    command
}

/// The gateway with DELTA routed to PayDunya at `operator_url`.
pub fn paydunya_gateway(db: &TestDatabase, operator_url: &str) -> std::process::Command {
    let mut command = gateway(db, operator_url);
    command
        .env("MOMO_OPERATOR_CONNECTORS", "DELTA:Sandbox=paydunya")
        .env("MOMO_PAYDUNYA_URL", operator_url)
        .env("MOMO_PAYDUNYA_MASTER_KEY", "paydunya-master-key")
        .env("MOMO_PAYDUNYA_PRIVATE_KEY", "paydunya-private-key")
        .env("MOMO_PAYDUNYA_TOKEN", "paydunya-token");
    command
}

pub async fn status(client: &reqwest::Client, base: &str, token: &str, id: &str) -> Option<Value> {
    let a = answer(
        client
            .get(format!("{base}/v2/get-status-payment/{id}"))
            .bearer_auth(token),
    )
    .await;
    (a.status == StatusCode::OK).then(|| a.body["data"].clone())
}

async fn a_crash_before_the_operator_call_is_recovered_by_sending_it_once(db: TestDatabase) {
    crash_and_recover(db, gateway, "ALPHA_MONEY_CI", |t| t.id.to_string()).await;
}

/// The same with PayDunya: the first process waits on the disbursement's creation, so no
/// token is recorded; the restarted one finds none, creates the disbursement and submits it
/// once (PayDunya's initiations are counted under our `ref`).
async fn a_crash_before_the_paydunya_call_is_recovered_by_sending_it_once(db: TestDatabase) {
    crash_and_recover(db, paydunya_gateway, "DELTA_MONEY_CI", |t| t.reference.to_string()).await;
}

async fn crash_and_recover(
    db: TestDatabase,
    gateway: fn(&TestDatabase, &str) -> std::process::Command,
    operator: &'static str,
    key: fn(&Transaction) -> String,
) {
    let m = ProcessMerchant::create(&db, "Crash").await;
    let client = reqwest::Client::new();

    // 1. The operator never answers: the transfer is PENDING, the call never sent.
    let (hole, _hole) = black_hole().await;
    let first = process::serve(gateway(&db, &hole));
    let token = m.token(&client, &first.base).await;
    let (sender, base) = (client.clone(), first.base.clone());
    let bearer = token.clone();
    let creation = tokio::spawn(async move {
        sender
            .post(format!("{base}/v1/transfer/mobile-money"))
            .bearer_auth(&bearer)
            .json(&transfer_v1("crash-1", "0701020301", operator, "1000"))
            .send()
            .await
    });
    let recorded = eventually("the transfer recorded", Duration::from_secs(20), async || {
        status(&client, &first.base, &token, "crash-1").await.ok_or("not yet")
    })
    .await;
    assert_eq!(recorded["status"], "PENDING");
    first.kill();
    assert!(creation.await.unwrap().is_err(), "the merchant never got an answer");

    // 2. Restarted against the operator, which never received it. The restarted process waits
    // until no send of the first could still arrive (`check_lease`: counted in its own operator
    // timeout, a short one here) before it sends the payment again.
    let emulator = Emulator::start(EmulatorSettings::default()).await.unwrap();
    let mut restarted = gateway(&db, &emulator.url);
    restarted.env("MOMO_OPERATOR_TIMEOUT_MS", "1000");
    let second = process::serve(restarted);
    let token = m.token(&client, &second.base).await;
    let settled = eventually("the reconciler settling it", Duration::from_secs(30), async || {
        let data = status(&client, &second.base, &token, "crash-1").await.unwrap();
        if data["status"] == "PENDING" {
            Err(data)
        } else {
            Ok(data)
        }
    })
    .await;
    assert_eq!(settled["status"], "SUCCESSFUL", "{settled}");
    let record = m
        .admin
        .payments
        .transaction(&m.sandbox_tenant(), &TransactionRef::from("crash-1"))
        .await
        .unwrap();
    assert_eq!(record.transaction.failure_code, None);
    let initiations: Value = admin(&emulator, &format!("initiations/{}", key(&record.transaction))).await;
    assert_eq!(initiations["executed"], 1, "paid exactly once: {initiations}");
    assert_eq!(initiations["received"], 1, "the first call never left: {initiations}");
    let balance = answer(client.get(format!("{}/v1/balance", second.base)).bearer_auth(&token)).await;
    assert_eq!(balance.body["data"]["reserved"], "0", "the reservation is settled");
    let check = m.admin.payments.check_ledger().await.unwrap();
    assert_eq!((check.postings_sum, check.inconsistent_balances), (0, 0));
    let (exit, _) = second.terminate().await;
    assert!(exit.success());
}
