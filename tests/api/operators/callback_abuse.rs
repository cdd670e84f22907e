//! Callbacks cannot be made to amplify: however many come for one payment, the operator is
//! asked about it once at a time; a Wave signature is accepted once; each MoMo route has its own
//! callback token, and during a rotation the previous secret's tokens are accepted too, each on
//! its own route only.

use std::sync::Arc;

use momo_gateway::domain::Environment::{Production, Sandbox};
use momo_gateway::domain::Timestamp;
use momo_gateway::operator::momo::callback::route_token;
use momo_operator_emulator::wave_signature;
use reqwest::StatusCode;
use serde_json::json;
use tokio::task::JoinSet;

use crate::support::emulated::{metric, Checks};
use crate::support::helpers::{answer, Answer};
use crate::support::operator_faults::by_hand::{authentic_callback, momo_callback, success_claim, wave_webhook};
use crate::support::operator_faults::{Faulted, Route, CALLBACK_TOKEN, PREVIOUS_CALLBACK_TOKEN, WAVE_SECRET};
use crate::support::operator_faults::{MomoCollection, WaveCollection};
use momo_test_support::both_backends;

both_backends!(
    Faulted::spawn =>
    a_thousand_callbacks_for_one_payment_make_one_status_call,
    a_replayed_wave_signature_is_refused_and_counted_like_a_forgery,
);

both_backends!(
    Faulted::rotating =>
    during_a_rotation_both_secrets_tokens_are_accepted_each_on_its_own_route,
);

const CALLBACKS: usize = 1_000;
/// How many callbacks are on their way at once.
const SENDERS: usize = 50;

/// The `{url, signature, body}` of `CALLBACKS` authentic callbacks claiming `reference` was
/// paid: MoMo's all the same (they carry no signature), Wave's each its own event, signed now.
fn storm(f: &Faulted, route: Route, reference: &str) -> Vec<(String, Option<String>, String)> {
    let op = route.operator();
    let url = f.app.url(&format!("/operator-callbacks/{}/Sandbox", op.name()));
    let now = Timestamp::now().unix_seconds();
    (0..CALLBACKS)
        .map(|n| {
            let mut body = success_claim(route, reference);
            if route.is_momo() {
                let token = route_token(CALLBACK_TOKEN, op, Sandbox);
                (format!("{url}?token={token}"), None, body)
            } else {
                body = body.replace("AE_by_hand", &format!("AE_storm_{n}"));
                let signature = wave_signature(WAVE_SECRET, now, body.as_bytes());
                (url.clone(), Some(signature), body)
            }
        })
        .collect()
}

/// How many of `operator`'s callbacks had `outcome`.
async fn counted(f: &Faulted, operator: &str, outcome: &str) -> u64 {
    let labels = [("operator", operator), ("outcome", outcome)];
    metric(&f.app, "momo_operator_callbacks_total", &labels).await
}

/// Sends `callbacks`, `SENDERS` at a time; their answers.
async fn send_all(f: &Faulted, callbacks: Vec<(String, Option<String>, String)>) -> Vec<Answer> {
    let queue = Arc::new(std::sync::Mutex::new(callbacks));
    let mut senders = JoinSet::new();
    for _ in 0..SENDERS {
        let (client, queue) = (f.app.client.clone(), queue.clone());
        senders.spawn(async move {
            let mut answers = Vec::new();
            loop {
                let next = queue.lock().unwrap().pop();
                let Some((url, signature, body)) = next else {
                    break;
                };
                let mut request = client.post(url).header("content-type", "application/json").body(body);
                if let Some(signature) = signature {
                    request = request.header("Wave-Signature", signature);
                }
                answers.push(answer(request).await);
            }
            answers
        });
    }
    senders.join_all().await.into_iter().flatten().collect()
}

/// The operator has settled the payment but its own callback was dropped; then 1,000 authentic
/// callbacks about it come at once while the operator is slow to answer a status lookup. Each
/// is answered 200; the operator is asked once, and the payment settles once.
async fn a_thousand_callbacks_for_one_payment_make_one_status_call(f: Faulted) {
    for route in [MomoCollection, WaveCollection] {
        f.fault(route.initiation(), "callback=drop", 1).await;
        let id = f.id(route, "storm");
        let reference = f.pending_payment(route, &id, "02").await["ref"]
            .as_str()
            .unwrap()
            .to_owned();
        f.past_the_delay().await;
        f.fault(route.status_lookup(), "latency=300ms", 1).await;
        let op = route.operator().name();
        let coalesced = || counted(&f, op, "already_checking");
        let (before, coalesced_before) = (Checks::of(&f.app, op).await, coalesced().await);
        let answers = send_all(&f, storm(&f, route, &reference)).await;
        assert_eq!(answers.len(), CALLBACKS);
        for a in &answers {
            assert_eq!(a.status, StatusCode::OK, "{route}: {}", a.body);
            let outcome = a.body["data"]["outcome"].as_str().unwrap_or_default();
            assert!(["checking", "already_final"].contains(&outcome), "{route}: {}", a.body);
        }
        let after = before.answered(&f.app, op).await;
        assert_eq!(
            after.status_calls - before.status_calls,
            1,
            "{route}: one status lookup for {CALLBACKS} callbacks"
        );
        assert!(
            coalesced().await > coalesced_before,
            "{route}: callbacks came while the lookup ran"
        );
        assert_eq!(f.status(&id).await, "SUCCESSFUL", "{route}");
        assert_eq!(f.counts(&id).await, (1, 1), "{route}");
    }
    f.assert_invariants("a callback storm").await;
}

/// A Wave webhook sent again with the same `Wave-Signature` (same `t`, same `v1`), by anyone
/// who saw it once: 401 and counted as unauthenticated, however often; no status lookup.
async fn a_replayed_wave_signature_is_refused_and_counted_like_a_forgery(f: Faulted) {
    let route = WaveCollection;
    let id = f.id(route, "replayed");
    let reference = f.pending_payment(route, &id, "06").await["ref"]
        .as_str()
        .unwrap()
        .to_owned();
    let body = success_claim(route, &reference);
    let signature = wave_signature(WAVE_SECRET, Timestamp::now().unix_seconds(), body.as_bytes());
    let op = route.operator();
    let first = wave_webhook(&f, op, "Sandbox", Some(signature.clone()), &body).await;
    assert_eq!(first.body["data"]["outcome"], "checking", "{}", first.body);
    let checked = Checks::of(&f.app, op.name()).await.answered(&f.app, op.name()).await;
    let refused = || counted(&f, op.name(), "unauthenticated");
    let refused_before = refused().await;
    let url = f.app.url(&format!("/operator-callbacks/{}/Sandbox", op.name()));
    let replays = vec![(url, Some(signature), body); 200];
    for a in send_all(&f, replays).await {
        assert_eq!(a.status, StatusCode::UNAUTHORIZED, "{}", a.body);
    }
    assert_eq!(refused().await - refused_before, 200, "each replay counted");
    assert_eq!(
        Checks::of(&f.app, op.name()).await,
        checked,
        "no replay started a status check"
    );
    assert_eq!(f.status(&id).await, "PENDING", "the operator has not settled it");
    // Wave's own webhook, signed afresh, is still taken.
    f.paid_at_operator(route, &id).await;
    f.assert_invariants("a replayed signature").await;
}

/// The callback secret is being rotated: a MoMo payment's callback URL carries the new secret's
/// token for its route; the previous secret's token for that route is accepted as well. The
/// token of another route (its Production twin, another operator) and the secrets themselves
/// are refused.
async fn during_a_rotation_both_secrets_tokens_are_accepted_each_on_its_own_route(f: Faulted) {
    let route = MomoCollection;
    let op = route.operator();
    let id = f.id(route, "rotation");
    let reference = f.pending_payment(route, &id, "06").await["ref"]
        .as_str()
        .unwrap()
        .to_owned();
    let body = success_claim(route, &reference);
    for (what, token) in [
        (
            "the previous secret's",
            route_token(PREVIOUS_CALLBACK_TOKEN, op, Sandbox),
        ),
        ("the new secret's", route_token(CALLBACK_TOKEN, op, Sandbox)),
    ] {
        let a = momo_callback(&f, op, "Sandbox", Some(&token), &body).await;
        assert_eq!(a.status, StatusCode::OK, "{what} token: {}", a.body);
        Checks::of(&f.app, op.name()).await.answered(&f.app, op.name()).await;
    }
    for (what, token) in [
        (
            "the previous secret's Production",
            route_token(PREVIOUS_CALLBACK_TOKEN, op, Production),
        ),
        (
            "another operator's",
            route_token(PREVIOUS_CALLBACK_TOKEN, route.sibling(), Sandbox),
        ),
        ("the previous secret itself", PREVIOUS_CALLBACK_TOKEN.to_owned()),
        ("the new secret itself", CALLBACK_TOKEN.to_owned()),
    ] {
        let a = momo_callback(&f, op, "Sandbox", Some(&token), &body).await;
        assert_eq!(a.status, StatusCode::UNAUTHORIZED, "{what}: {}", a.body);
    }
    // Another environment's route takes its own token (and ignores a Sandbox payment).
    let production = authentic_callback(&f, route, op, "Production", &body).await;
    assert_eq!(production.body["data"]["outcome"], "ignored", "{}", production.body);
    assert_eq!(f.status(&id).await, "PENDING");
    f.paid_at_operator(route, &id).await;
    let made = f.callbacks_made(&id, 1).await;
    let url = made[0]["url"].as_str().unwrap_or_default();
    let token = route_token(CALLBACK_TOKEN, op, Sandbox);
    assert!(url.ends_with(&format!("?token={token}")), "the new token: {url}");
    assert_eq!(json!(made[0]["status"]), json!(200), "{made:?}");
    f.assert_invariants("a rotation").await;
}
