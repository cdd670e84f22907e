//! The merchant's webhook receiver down while events pile up. Payments settle at once while
//! nothing listens at the webhook URL (every attempt refused), then the receiver comes up at
//! that URL and answers its first deliveries 503 before it answers 200. With a compressed
//! retry schedule (`MOMO_WEBHOOK_RETRY_SCHEDULE`), every event is delivered; every attempt of
//! an event carries the same `webhook-id` and body, and a valid Standard Webhooks signature
//! (checked here with the HMAC crates, not the gateway's own signing code).

use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use hmac::{Hmac, Mac};
use momo_gateway::domain::{EventState, EventSummary};
use sha2::Sha256;

use crate::harness::{self, env_count};
use crate::load;
use momo_test_support::process;
use momo_test_support::receiver::{Receiver, Reply};
use momo_test_support::TestDatabase;
use momo_test_support::{both_backends, until};

both_backends!(TestDatabase::create => events_piled_up_while_the_receiver_is_down_are_all_delivered_signed_under_one_id);

/// Waits between attempts: about a minute in all, where the default is three days.
const SCHEDULE: &str = "1,1,2,2,3,3,5,5,8,8,13,13";

/// Whether `signature` (`v1,<base64>`, maybe several, space-separated) signs `id.timestamp.body`
/// with the merchant's `whsec_` secret.
fn signed(secret: &str, id: &str, timestamp: &str, body: &str, signature: &str) -> bool {
    let key = STANDARD
        .decode(secret.trim_start_matches("whsec_"))
        .expect("a base64 secret");
    let mut mac = Hmac::<Sha256>::new_from_slice(&key).unwrap();
    mac.update(format!("{id}.{timestamp}.{body}").as_bytes());
    let expected = STANDARD.encode(mac.finalize().into_bytes());
    signature
        .split(' ')
        .any(|s| s.strip_prefix("v1,") == Some(expected.as_str()))
}

async fn events_piled_up_while_the_receiver_is_down_are_all_delivered_signed_under_one_id(db: TestDatabase) {
    let started = Instant::now();
    let count = env_count("MOMO_RELIABILITY_EVENTS", 100) as usize;
    let down = Duration::from_secs(env_count("MOMO_RELIABILITY_RECEIVER_DOWN_S", 5));
    let port = harness::free_port();
    let settings = vec![
        ("MOMO_WEBHOOK_ALLOW_PRIVATE", "true".to_owned()),
        ("MOMO_WEBHOOK_RETRY_SCHEDULE", SCHEDULE.to_owned()),
        ("MOMO_WEBHOOK_TIMEOUT_MS", "2000".to_owned()),
    ];
    let admin = harness::admin(&db.url, &settings).await;
    let url = format!("http://127.0.0.1:{port}/hook");
    let merchant = harness::merchant(&admin, "Webhooks down", Some(&url)).await;
    let gateway = process::serve(harness::command(&db.url, &settings));
    let logs = gateway.logs.clone();
    let client = reqwest::Client::new();
    let token = harness::token(&client, &gateway.base, &merchant).await;

    // Payments final at once (01 succeeds, 04 fails): one event each, all while nothing listens.
    let payments = load::final_at_once("wh", count);
    for s in load::send_all(&client, &gateway.base, &token, payments).await {
        let status = s.answer.as_ref().expect("an answer").status;
        assert!(status == 200 || status == 504, "{}: {status}", s.payment.id);
    }
    until(
        "every event tried while the receiver is down",
        Duration::from_secs(30),
        async || {
            harness::webhook_events(&admin, &merchant)
                .await
                .iter()
                .all(|e| e.attempts > 0)
        },
    )
    .await;
    tokio::time::sleep(down.saturating_sub(started.elapsed())).await;

    // Back, answering its first deliveries 503.
    let refusals = count / 4;
    let receiver = Receiver::start_on(port, vec![Reply::status(503); refusals], None).await;
    let back = Instant::now();
    until(
        "every event delivered once the receiver is back",
        Duration::from_secs(90),
        async || {
            harness::webhook_events(&admin, &merchant)
                .await
                .iter()
                .all(|e| e.state == EventState::Delivered)
        },
    )
    .await;
    let all_delivered = back.elapsed();

    let events = harness::webhook_events(&admin, &merchant).await;
    let by_id: HashMap<&str, &EventSummary> = events.iter().map(|e| (e.id.as_str(), e)).collect();
    let received = receiver.received();
    let mut bodies: HashMap<&str, HashSet<&str>> = HashMap::new();
    let mut bad_signatures = 0;
    for r in &received {
        let event = by_id
            .get(r.id.as_str())
            .unwrap_or_else(|| panic!("an event nobody raised: {}", r.id));
        let body: serde_json::Value = serde_json::from_str(&r.body).expect("a JSON body");
        assert_eq!(
            body["transactionId"],
            event.transaction_id.as_str(),
            "{}: its transaction",
            r.id
        );
        bodies.entry(&r.id).or_default().insert(&r.body);
        bad_signatures += usize::from(!signed(
            &merchant.webhook_secret,
            &r.id,
            &r.timestamp,
            &r.body,
            &r.signature,
        ));
    }
    let refused_ids: HashSet<&str> = received[..refusals].iter().map(|r| r.id.as_str()).collect();
    let delivered: Vec<&str> = received[refusals..].iter().map(|r| r.id.as_str()).collect();
    let delivered_ids: HashSet<&str> = delivered.iter().copied().collect();
    let tried_again = refused_ids.iter().filter(|id| delivered_ids.contains(*id)).count();
    let mut attempts = 0;
    let mut refused_connections = 0;
    for e in &events {
        let (_, tries) = admin
            .webhooks
            .webhook_event(Some(&merchant.tenant), &e.id)
            .await
            .expect("the event");
        assert!(
            tries.len() >= 2,
            "{}: tried while down, then delivered: {tries:?}",
            e.id
        );
        attempts += tries.len();
        refused_connections += tries.iter().filter(|a| a.status_code.is_none()).count();
    }
    let (exit, _) = gateway.terminate().await;
    assert!(exit.success());
    let panics = harness::panics(&logs);

    println!(
        "webhooks-down {}: events={} receiver_down={}s attempts={attempts} (refused_connections={refused_connections} \
         answered_503={refusals}) delivered={}/{} ({}%) within {}ms of its return, same_id_and_body_on_retry={tried_again}/{} \
         bad_signatures={bad_signatures} unknown_ids=0 delivered_twice={} panics={panics} in {:.1}s",
        harness::backend(&db.url),
        events.len(),
        down.as_secs(),
        delivered_ids.len(),
        events.len(),
        100 * delivered_ids.len() / events.len().max(1),
        all_delivered.as_millis(),
        refused_ids.len(),
        delivered.len() - delivered_ids.len(),
        started.elapsed().as_secs_f64()
    );
    assert_eq!(events.len(), count, "one event per payment, each final at once");
    assert_eq!(delivered_ids.len(), count, "every event delivered");
    assert_eq!(
        tried_again,
        refused_ids.len(),
        "each event answered 503 came again under its id"
    );
    assert!(
        bodies.values().all(|b| b.len() == 1),
        "an event's attempts carry one body"
    );
    assert_eq!(bad_signatures, 0, "every attempt is signed with the merchant's secret");
    assert_eq!(delivered.len(), delivered_ids.len(), "no event delivered twice");
    assert_eq!(panics, 0);
    harness::assert_ledger(&admin, "after the deliveries").await;
}
