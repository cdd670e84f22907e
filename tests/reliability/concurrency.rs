//! Races, from outside the gateway process. 200 concurrent creations of one transaction id,
//! spread over collections and transfers, v1 and v2 (and a v2 body on `/v1/transfers`), store
//! one payment, call the operator once, and answer the other 199 with 409 naming it. 50
//! concurrent transfers worth more than the balance never take it below zero, while another
//! client reads the balance throughout.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use momo_gateway::domain::Kind;
use rand::seq::SliceRandom;
use serde_json::Value;

use crate::harness::{self, Merchant};
use crate::load::{self, Generation, Payment};
use momo_test_support::both_backends;
use momo_test_support::process::{self, Running};
use momo_test_support::TestDatabase;

both_backends!(
    TestDatabase::create =>
    two_hundred_creations_of_one_id_store_one_and_answer_199_conflicts,
    fifty_transfers_beyond_the_balance_never_take_it_below_zero,
);

/// The gateway process (on the simulator) and a merchant opened with `balance` francs.
async fn start(db: &TestDatabase, balance: i64) -> (momo_gateway::service::Gateway, Merchant, Running, String) {
    let settings = vec![("MOMO_SANDBOX_INITIAL_BALANCE", balance.to_string())];
    let admin = harness::admin(&db.url, &settings).await;
    let merchant = harness::merchant(&admin, "Races", None).await;
    let gateway = process::serve(harness::command(&db.url, &settings));
    let token = harness::token(&reqwest::Client::new(), &gateway.base, &merchant).await;
    (admin, merchant, gateway, token)
}

/// The five ways to create a payment: a path, the envelope it answers in, and a body.
fn variant(i: usize, id: &str) -> (&'static str, Generation, Value) {
    let payment = |kind, generation| Payment {
        id: id.to_owned(),
        kind,
        generation,
        operator: "GAMMA",
        ending: "01",
    };
    match i % 5 {
        0 => (
            "/v1/collecte/mobile-money",
            Generation::V1,
            payment(Kind::Collection, Generation::V1).body(),
        ),
        1 => (
            "/v2/collecte/mobile-money",
            Generation::V2,
            payment(Kind::Collection, Generation::V2).body(),
        ),
        2 => (
            "/v1/transfer/mobile-money",
            Generation::V1,
            payment(Kind::Transfer, Generation::V1).body(),
        ),
        3 => (
            "/v2/transfers/mobile-money",
            Generation::V2,
            payment(Kind::Transfer, Generation::V2).body(),
        ),
        _ => (
            "/v1/transfers/mobile-money",
            Generation::V2,
            payment(Kind::Transfer, Generation::V2).body(),
        ),
    }
}

/// Operator initiations counted by the process's `/metrics`.
async fn initiations(base: &str) -> u64 {
    let metrics = reqwest::get(format!("{base}/metrics"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    metrics
        .lines()
        .filter(|l| l.starts_with("momo_operator_calls_total{") && l.contains("call=\"initiate\""))
        .filter_map(|l| l.rsplit(' ').next()?.parse::<u64>().ok())
        .sum()
}

async fn two_hundred_creations_of_one_id_store_one_and_answer_199_conflicts(db: TestDatabase) {
    let started = Instant::now();
    let (admin, merchant, gateway, token) = start(&db, 10_000_000).await;
    let client = reqwest::Client::new();
    let mut order: Vec<usize> = (0..200).collect();
    order.shuffle(&mut rand::thread_rng());
    let tasks: Vec<_> = order
        .into_iter()
        .map(|i| {
            let (client, base, token) = (client.clone(), gateway.base.clone(), token.clone());
            tokio::spawn(async move {
                let (path, generation, body) = variant(i, "one-id-for-all");
                let answer = load::send_to(&client, &base, &token, path, generation, &body).await;
                (path, answer.expect("an answer"))
            })
        })
        .collect();
    let mut answers = Vec::new();
    for task in tasks {
        answers.push(task.await.unwrap());
    }
    let created: Vec<_> = answers.iter().filter(|(_, a)| (200..300).contains(&a.status)).collect();
    let conflicts: Vec<_> = answers.iter().filter(|(_, a)| a.status == 409).collect();
    assert_eq!((created.len(), conflicts.len()), (1, 199), "one payment, 199 × 409");
    let (winner_path, winner) = created[0];
    assert!(
        conflicts.iter().all(|(_, a)| a.reference == winner.reference),
        "every 409 names the payment that exists"
    );
    let stored = harness::stored(&admin, &merchant.tenant).await;
    assert_eq!(stored.len(), 1, "one payment stored");
    let record = &stored["one-id-for-all"].transaction;
    assert_eq!(Some(record.reference.as_str()), winner.reference.as_deref());
    let calls = initiations(&gateway.base).await;
    assert_eq!(calls, 1, "the operator was called once");
    harness::assert_ledger(&admin, "after the race").await;
    let (exit, _) = gateway.terminate().await;
    assert!(exit.success());
    println!(
        "concurrency-one-id {}: requests=200 over 5 paths (v1/v2 collections, v1/v2 transfers, v2 body on \
         /v1/transfers) created=1 (by {winner_path}, a {:?}) 409s=199 naming it other=0 stored=1 \
         operator_initiations={calls} in {:.1}s",
        harness::backend(&db.url),
        record.kind(),
        started.elapsed().as_secs_f64()
    );
}

fn francs(body: &Value, field: &str) -> i64 {
    body["data"][field]
        .as_str()
        .and_then(|s| s.parse().ok())
        .expect("an amount")
}

async fn fifty_transfers_beyond_the_balance_never_take_it_below_zero(db: TestDatabase) {
    let started = Instant::now();
    let (admin, merchant, gateway, token) = start(&db, 10_000).await;
    let client = reqwest::Client::new();
    // Watches the balance while the transfers race.
    let racing = Arc::new(AtomicBool::new(true));
    let watcher = {
        let (client, url, token, racing) = (
            client.clone(),
            format!("{}/v1/balance", gateway.base),
            token.clone(),
            racing.clone(),
        );
        tokio::spawn(async move {
            let (mut reads, mut lowest, mut negative) = (0, i64::MAX, 0);
            while racing.load(Ordering::SeqCst) {
                let body: Value = client
                    .get(&url)
                    .bearer_auth(&token)
                    .send()
                    .await
                    .unwrap()
                    .json()
                    .await
                    .unwrap();
                let (available, reserved) = (francs(&body, "available"), francs(&body, "reserved"));
                lowest = lowest.min(available);
                negative += usize::from(available < 0 || reserved < 0);
                reads += 1;
            }
            (reads, lowest, negative)
        })
    };
    // 1,000 francs and a 1 % fee each: 9 fit in 10,000.
    let transfers = (0..50_usize)
        .map(|i| Payment {
            id: format!("race-{i}"),
            kind: Kind::Transfer,
            generation: if i.is_multiple_of(2) {
                Generation::V1
            } else {
                Generation::V2
            },
            operator: "GAMMA",
            ending: "01",
        })
        .collect();
    let sent = load::send_all(&client, &gateway.base, &token, transfers).await;
    racing.store(false, Ordering::SeqCst);
    let (reads, lowest, negative) = watcher.await.unwrap();
    let status = |s: &load::Sent| s.answer.as_ref().expect("an answer").status;
    let accepted = sent.iter().filter(|s| status(s) == 200).count();
    let refused = sent.iter().filter(|s| status(s) == 412).count();
    let balance: Value = client
        .get(format!("{}/v1/balance", gateway.base))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let (available, reserved) = (francs(&balance, "available"), francs(&balance, "reserved"));
    harness::assert_ledger(&admin, "after the race").await;
    let stored = harness::stored(&admin, &merchant.tenant).await;
    let (exit, _) = gateway.terminate().await;
    assert!(exit.success());
    println!(
        "concurrency-overdraft {}: transfers=50 of 1010 (1000 + fee) against 10000: accepted={accepted} \
         refused_412={refused} other={} stored={} balance_reads={reads} lowest_available_seen={lowest} negative_seen={negative} \
         final_available={available} reserved={reserved} in {:.1}s",
        harness::backend(&db.url),
        50 - accepted - refused,
        stored.len(),
        started.elapsed().as_secs_f64()
    );
    assert_eq!(
        (accepted, refused),
        (9, 41),
        "as many as the balance pays for, the rest 412"
    );
    assert_eq!(stored.len(), 9, "a refused transfer stores nothing");
    assert_eq!((available, reserved), (10_000 - 9 * 1010, 0));
    assert_eq!(negative, 0, "the balance never went below zero");
}
