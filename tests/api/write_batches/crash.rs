//! SIGKILL while the batch writers are busy: 16 clients create collections (answered at once,
//! so each is a creation batch and a settlement batch) and transfers against the gateway as a
//! process, and it is killed in the middle. Every request that got a 2xx is stored, once, with
//! its settlement; nothing is half-written: the ledger balances and no transfer's reservation is
//! left without its transaction.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use momo_gateway::domain::TransactionRef;
use reqwest::StatusCode;

use crate::support::helpers::TEST_JWT_SECRET;
use crate::support::process_merchant::ProcessMerchant;
use crate::support::requests::{collect_v1, transfer_v1};
use momo_test_support::both_backends;
use momo_test_support::process;
use momo_test_support::TestDatabase;

both_backends!(TestDatabase::create => a_kill_during_batches_loses_no_answered_payment_and_half_writes_nothing);

/// How many payments are answered before the kill.
const LOAD_BEFORE_THE_KILL: usize = 200;

async fn a_kill_during_batches_loses_no_answered_payment_and_half_writes_nothing(db: TestDatabase) {
    let m = ProcessMerchant::create(&db, "Batches").await;
    let mut command = process::command(&db.url);
    command.env("MOMO_JWT_SECRET", TEST_JWT_SECRET);
    let gateway = process::serve(command);
    let client = reqwest::Client::new();
    let token = m.token(&client, &gateway.base).await;

    // 16 clients, each creating until the gateway is gone; the ids that got a 2xx are kept.
    let answered = Arc::new(Mutex::new(Vec::<String>::new()));
    // Told at the 200th 2xx: the kill then comes with every client mid-request.
    let under_load = Arc::new(tokio::sync::Notify::new());
    let mut clients = tokio::task::JoinSet::new();
    for worker in 0..16 {
        let (client, base, token, answered) = (client.clone(), gateway.base.clone(), token.clone(), answered.clone());
        let under_load = under_load.clone();
        clients.spawn(async move {
            for i in 0.. {
                let id = format!("k{worker}x{i}");
                let (path, body) = if i % 4 == 3 {
                    ("transfer", transfer_v1(&id, "0701020301", "GAMMA_MONEY_CI", "1000"))
                } else {
                    ("collecte", collect_v1(&id, "0701020301", "GAMMA_MONEY_CI", "1000"))
                };
                let sent = client
                    .post(format!("{base}/v1/{path}/mobile-money"))
                    .bearer_auth(&token)
                    .json(&body)
                    .send()
                    .await;
                match sent {
                    Ok(r) if r.status().is_success() => {
                        let mut answered = answered.lock().unwrap();
                        answered.push(id);
                        if answered.len() == LOAD_BEFORE_THE_KILL {
                            under_load.notify_one();
                        }
                    }
                    Ok(r) => assert_eq!(r.status(), StatusCode::PRECONDITION_FAILED, "{id}"),
                    Err(_) => return, // the gateway is gone
                }
            }
        });
    }
    tokio::time::timeout(Duration::from_secs(60), under_load.notified())
        .await
        .expect("the load runs");
    gateway.kill();
    while clients.join_next().await.is_some() {}

    let answered = answered.lock().unwrap().clone();
    assert!(answered.len() > 50, "the load ran: {} answered", answered.len());
    let tenant = m.sandbox_tenant();
    for id in &answered {
        let record = m
            .admin
            .payments
            .transaction(&tenant, &TransactionRef::from(id.as_str()))
            .await
            .unwrap_or_else(|e| panic!("{id} was answered 2xx but is not stored: {e}"));
        assert!(
            record.transaction.status.is_final(),
            "{id} was answered final (the simulator settles 01 at once): {:?}",
            record.transaction.status
        );
    }
    let check = m.admin.payments.check_ledger().await.unwrap();
    assert_eq!(
        (check.postings_sum, check.inconsistent_balances),
        (0, 0),
        "nothing half-written"
    );
}
