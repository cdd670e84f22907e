//! A crash between a refund's `PENDING` commit and its operator call, as for transfers
//! (`operators/crash.rs`): a collection is paid through the MoMo Open API (the emulator); a
//! second process, whose operator never answers the token request, records the refund
//! `PENDING` and is killed with SIGKILL before the refund is sent. Restarted against the
//! emulator, the gateway learns the operator never received it and sends it once, with the same
//! key: given back exactly once, the collection's refunded amount and the ledger right.

use std::time::Duration;

use momo_gateway::domain::TransactionRef;
use momo_operator_emulator::{Emulator, EmulatorSettings};
use serde_json::{json, Value};

use crate::operators::crash::{black_hole, gateway, status};
use crate::support::emulated::admin;
use crate::support::helpers::answer;
use crate::support::process_merchant::ProcessMerchant;
use crate::support::requests::collect_v1;
use momo_test_support::process;
use momo_test_support::TestDatabase;
use momo_test_support::{both_backends, eventually};

both_backends!(TestDatabase::create => a_crash_before_a_refund_is_sent_is_recovered_by_sending_it_once);

async fn final_status(client: &reqwest::Client, base: &str, token: &str, id: &str) -> Value {
    eventually(
        &format!("{id} settled"),
        Duration::from_secs(30),
        async || match status(client, base, token, id).await {
            Some(data) if data["status"] != "PENDING" => Ok(data),
            other => Err(other),
        },
    )
    .await
}

async fn a_crash_before_a_refund_is_sent_is_recovered_by_sending_it_once(db: TestDatabase) {
    let m = ProcessMerchant::create(&db, "Crash refunds").await;
    let client = reqwest::Client::new();
    let emulator = Emulator::start(EmulatorSettings::default()).await.unwrap();

    // 1. A collection paid through the operator.
    let first = process::serve(gateway(&db, &emulator.url));
    let token = m.token(&client, &first.base).await;
    let paid = answer(
        client
            .post(format!("{}/v1/collecte/mobile-money", first.base))
            .bearer_auth(&token)
            .json(&collect_v1("crash-paid", "0701020301", "ALPHA_MONEY_CI", "2000")),
    )
    .await;
    assert!(paid.status.is_success(), "{}", paid.body);
    let settled = final_status(&client, &first.base, &token, "crash-paid").await;
    assert_eq!(settled["status"], "SUCCESSFUL", "{settled}");
    first.kill();

    // 2. The operator never answers: the refund is PENDING, its call never sent.
    let (hole, _hole) = black_hole().await;
    let second = process::serve(gateway(&db, &hole));
    let token = m.token(&client, &second.base).await;
    let (sender, base, bearer) = (client.clone(), second.base.clone(), token.clone());
    let creation = tokio::spawn(async move {
        sender
            .post(format!("{base}/v1/refunds"))
            .bearer_auth(&bearer)
            .json(&json!({"transactionId": "crash-refund", "collection": "crash-paid", "amount": "1500"}))
            .send()
            .await
    });
    let recorded = eventually("the refund recorded", Duration::from_secs(20), async || {
        status(&client, &second.base, &token, "crash-refund")
            .await
            .ok_or("not yet")
    })
    .await;
    assert_eq!(recorded["status"], "PENDING");
    second.kill();
    assert!(creation.await.unwrap().is_err(), "the merchant never got an answer");

    // 3. Restarted against the operator, which never received it, with a short operator
    // timeout: the resend waits until no send of the killed process could still arrive.
    let mut restarted = gateway(&db, &emulator.url);
    restarted.env("MOMO_OPERATOR_TIMEOUT_MS", "1000");
    let third = process::serve(restarted);
    let token = m.token(&client, &third.base).await;
    let refunded = final_status(&client, &third.base, &token, "crash-refund").await;
    assert_eq!(refunded["status"], "SUCCESSFUL", "{refunded}");
    let tenant = m.sandbox_tenant();
    let record = m
        .admin
        .payments
        .transaction(&tenant, &TransactionRef::from("crash-refund"))
        .await
        .unwrap();
    let initiations: Value = admin(&emulator, &format!("initiations/{}", record.transaction.id)).await;
    assert_eq!(
        (initiations["received"].as_u64(), initiations["executed"].as_u64()),
        (Some(1), Some(1)),
        "given back exactly once, the first call never left: {initiations}"
    );
    let collection = status(&client, &third.base, &token, "crash-paid").await.unwrap();
    assert_eq!(collection["amount_refunded"], "1500", "{collection}");
    let balance = answer(client.get(format!("{}/v1/balance", third.base)).bearer_auth(&token)).await;
    assert_eq!(balance.body["data"]["reserved"], "0", "the reservation is settled");
    let check = m.admin.payments.check_ledger().await.unwrap();
    assert_eq!((check.postings_sum, check.inconsistent_balances), (0, 0));
    let (exit, _) = third.terminate().await;
    assert!(exit.success());
}
