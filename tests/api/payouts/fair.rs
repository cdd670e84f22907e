//! The payout queue is fair: while merchant A's 5,000-item Sandbox batch drains, merchant B's
//! one-item Production batch and merchant C's one-item Sandbox batch, both made after A's, are
//! sent in the sender's very next step (Production before Sandbox, and round the merchants
//! within an environment), not after A's 5,000.

use momo_gateway::reconcile::payout_sender::{self, Pace};
use momo_gateway::reconcile::review;
use reqwest::StatusCode;
use serde_json::{json, Value};

use crate::support::helpers::{answer, later, production_simulated, TestApp};
use crate::support::requests::{collect_v1, post, transfer_v1};
use momo_test_support::both_backends;

both_backends!(
    TestApp::spawn_with(production_simulated) =>
    a_single_payout_is_sent_in_the_next_step_while_another_merchants_large_batch_drains,
);

both_backends!(
    TestApp::spawn =>
    a_batch_transfer_needs_review_only_once_it_was_sent_long_enough_ago,
);

/// The sender's pace in this test: a step sends at most this many transfers per operator.
const RATE: u32 = 100;

async fn batch_status(app: &TestApp, token: &str, id: &str) -> Value {
    answer(app.get(&format!("/v1/payout-batches/{id}")).bearer_auth(token))
        .await
        .body["data"]
        .clone()
}

async fn one_item_batch(app: &TestApp, token: &str, id: &str) -> String {
    let items = json!([transfer_v1(id, "0701020301", "GAMMA_MONEY_CI", "1000")]);
    let made = post(app, token, "/v1/payout-batches", &json!({"items": items})).await;
    assert_eq!(made.status, StatusCode::ACCEPTED, "{}", made.body);
    made.body["data"]["batch"]["id"].as_str().unwrap().to_owned()
}

async fn a_single_payout_is_sent_in_the_next_step_while_another_merchants_large_batch_drains(app: TestApp) {
    let a = app.sandbox_token().await;
    let items: Vec<Value> = (0..5_000)
        .map(|i| {
            let phone = format!("07{:08}", 10_000_000 + i * 10 + 1);
            transfer_v1(&format!("a-{i}"), &phone[..10], "GAMMA_MONEY_CI", "100")
        })
        .collect();
    let large = post(&app, &a, "/v1/payout-batches", &json!({"items": items})).await;
    assert_eq!(large.status, StatusCode::ACCEPTED);
    let large = large.body["data"]["batch"]["id"].as_str().unwrap().to_owned();

    let merchant_b = app.new_merchant("Merchant B").await;
    let b = app.token(&merchant_b.production).await;
    let funded = post(
        &app,
        &b,
        "/v1/collecte/mobile-money",
        &collect_v1("b-funds", "0701020301", "GAMMA_MONEY_CI", "5000"),
    )
    .await;
    assert_eq!(funded.status, StatusCode::OK, "{}", funded.body);
    let b_batch = one_item_batch(&app, &b, "b-payout").await;
    let merchant_c = app.new_merchant("Merchant C").await;
    let c = app.token(&merchant_c.sandbox).await;
    let c_batch = one_item_batch(&app, &c, "c-payout").await;

    let pace = Pace::new(RATE);
    let step = payout_sender::run_once(&app.gateway.payouts, &pace, later(0))
        .await
        .unwrap();
    assert!(step.examined <= RATE as usize, "one step keeps the pace: {step:?}");
    for (token, id, who) in [(&b, &b_batch, "B's Production"), (&c, &c_batch, "C's Sandbox")] {
        let done = batch_status(&app, token, id).await;
        assert_eq!(
            done["status"], "completed",
            "{who} payout sent in the first step: {done}"
        );
    }
    let draining = batch_status(&app, &a, &large).await;
    let sent = draining["successful"]["count"].as_u64().unwrap();
    assert!(
        (1..=RATE as u64 - 2).contains(&sent),
        "A's batch drains at the pace left: {draining}"
    );
}

/// The review list (`transactions stuck`, `momo_transfers_needing_review`) holds transfers
/// pending long after they were sent: a batch's transfer waiting in the queue is not one, nor
/// one sent a moment ago from a batch recorded long before.
async fn a_batch_transfer_needs_review_only_once_it_was_sent_long_enough_ago(app: TestApp) {
    let token = app.sandbox_token().await;
    // Numbers ending 06: the operator never settles a transfer to them.
    let items = json!([transfer_v1("never", "0701020306", "GAMMA_MONEY_CI", "1000")]);
    let made = post(&app, &token, "/v1/payout-batches", &json!({"items": items})).await;
    assert_eq!(made.status, StatusCode::ACCEPTED, "{}", made.body);
    let stuck = |at| review::stuck_transfers(&app.gateway.payments, at);
    assert!(stuck(later(901_000)).await.unwrap().is_empty(), "queued: nothing sent");
    let gauges = app.gateway.gauges(later(901_000)).await;
    assert_eq!(gauges.database.unwrap().pending_transfers_needing_review, 0);
    // Sent ten minutes after its batch was recorded.
    let pace = Pace::new(RATE);
    payout_sender::run_once(&app.gateway.payouts, &pace, later(600_000))
        .await
        .unwrap();
    assert!(
        stuck(later(901_000)).await.unwrap().is_empty(),
        "sent five minutes before"
    );
    assert_eq!(
        stuck(later(1_501_000)).await.unwrap().len(),
        1,
        "sent fifteen minutes before"
    );
}
