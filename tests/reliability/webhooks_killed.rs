//! SIGKILL with webhook events handed to the dying process's dispatcher. Payments settle at once,
//! and each batch hands its events, leased, to the process's own dispatcher; the receiver holds
//! each delivery for 3 s, so at the kill some events are being sent and the last wave of payments
//! waits in the dispatcher's queue. Nothing of that queue survives the process. A second process
//! then starts, with the merchant's webhook URL pointed at a fresh receiver. Checked: every event
//! is delivered, the ones the first process never sent too (once their lease has ended, by the
//! second process's claims); no event unknown; an event sent by both processes carries one body;
//! the second receiver gets each event once.

use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

use momo_gateway::domain::EventState;

use crate::harness::{self, env_count};
use crate::load;
use momo_test_support::process;
use momo_test_support::receiver::{Receiver, Reply};
use momo_test_support::TestDatabase;
use momo_test_support::{both_backends, until};

both_backends!(TestDatabase::create => events_queued_in_a_killed_process_are_delivered_once_their_lease_ends);

/// How long the first receiver holds each delivery: each of the dispatcher's two handoff loops
/// is busy that long with the step it sends.
const HOLD_MS: u64 = 3_000;
/// The lease of a handed event (`MOMO_WEBHOOK_LEASE_S`): the least a 4 s timeout allows.
const LEASE_S: u64 = 9;

async fn events_queued_in_a_killed_process_are_delivered_once_their_lease_ends(db: TestDatabase) {
    let started = Instant::now();
    let count = env_count("MOMO_RELIABILITY_EVENTS", 100) as usize;
    let settings = vec![
        ("MOMO_WEBHOOK_ALLOW_PRIVATE", "true".to_owned()),
        ("MOMO_WEBHOOK_TIMEOUT_MS", "4000".to_owned()),
        ("MOMO_WEBHOOK_LEASE_S", LEASE_S.to_string()),
    ];
    let admin = harness::admin(&db.url, &settings).await;
    let slow = Receiver::start(
        vec![],
        Some(Reply {
            delay_ms: HOLD_MS,
            ..Reply::status(200)
        }),
    )
    .await;
    let merchant = harness::merchant(&admin, "Webhooks killed", Some(&slow.url)).await;
    let first = process::serve(harness::command(&db.url, &settings));
    let client = reqwest::Client::new();
    let token = harness::token(&client, &first.base, &merchant).await;

    // Payments final at once (01 succeeds, 04 fails): one event each, handed as they settle, in
    // three waves. The first keeps one loop sending; the second, the other loop; the third
    // finds both busy for seconds, so its events are still queued at the kill.
    let mut payments = load::final_at_once("wk", count);
    let third = payments.split_off(2 * count / 3);
    let second_wave = payments.split_off(count / 3);
    let pay = |wave| load::send_all(&client, &first.base, &token, wave);
    let mut answered = pay(payments).await;
    until(
        "the first process sending its handed events",
        Duration::from_secs(10),
        async || !slow.received().is_empty(),
    )
    .await;
    answered.extend(pay(second_wave).await);
    tokio::time::sleep(Duration::from_millis(300)).await;
    answered.extend(pay(third).await);
    first.kill();
    for s in answered {
        let status = s.answer.as_ref().expect("an answer").status;
        assert!(status == 200 || status == 504, "{}: {status}", s.payment.id);
    }
    let killed = Instant::now();
    let recorded_before: usize = harness::webhook_events(&admin, &merchant)
        .await
        .iter()
        .filter(|e| e.state == EventState::Delivered)
        .count();
    let sent_before: HashSet<String> = slow.received().into_iter().map(|r| r.id).collect();

    let fast = Receiver::start(vec![], None).await;
    admin
        .merchants
        .set_webhook_url(&merchant.tenant, Some(&fast.url))
        .await
        .expect("the new webhook URL");
    let second = process::serve(harness::command(&db.url, &settings));
    let logs = second.logs.clone();
    until(
        "every event delivered after the kill",
        Duration::from_secs(LEASE_S + 30),
        async || {
            harness::webhook_events(&admin, &merchant)
                .await
                .iter()
                .all(|e| e.state == EventState::Delivered)
        },
    )
    .await;
    let all_delivered = killed.elapsed();

    let events = harness::webhook_events(&admin, &merchant).await;
    let known: HashSet<&str> = events.iter().map(|e| e.id.as_str()).collect();
    let mut bodies: HashMap<String, HashSet<String>> = HashMap::new();
    let (before, after) = (slow.received(), fast.received());
    for r in before.iter().chain(after.iter()) {
        assert!(known.contains(r.id.as_str()), "an event nobody raised: {}", r.id);
        bodies.entry(r.id.clone()).or_default().insert(r.body.clone());
    }
    let after_ids: HashSet<&str> = after.iter().map(|r| r.id.as_str()).collect();
    let never_sent_before = events.iter().filter(|e| !sent_before.contains(e.id.as_str())).count();
    let (exit, _) = second.terminate().await;
    assert!(exit.success());
    let panics = harness::panics(&logs);

    println!(
        "webhooks-killed {}: events={} sent_by_the_killed_process={} (recorded_delivered={recorded_before}) \
         never_sent_before_the_kill={never_sent_before} sent_by_the_next={} (twice={}) all_delivered_within={}ms_of_the_kill \
         lease={LEASE_S}s panics={panics} in {:.1}s",
        harness::backend(&db.url),
        events.len(),
        sent_before.len(),
        after.len(),
        after.len() - after_ids.len(),
        all_delivered.as_millis(),
        started.elapsed().as_secs_f64()
    );
    assert_eq!(events.len(), count, "one event per payment, each final at once");
    assert!(
        never_sent_before > 0,
        "the kill left events in the dispatcher's queue (the scenario did not happen)"
    );
    assert!(
        events
            .iter()
            .all(|e| sent_before.contains(e.id.as_str()) || after_ids.contains(e.id.as_str())),
        "every event reached a receiver"
    );
    assert_eq!(after.len(), after_ids.len(), "the second process sends each event once");
    assert!(
        bodies.values().all(|b| b.len() == 1),
        "an event sent twice carries one body"
    );
    assert_eq!(panics, 0);
    harness::assert_ledger(&admin, "after the deliveries").await;
}
