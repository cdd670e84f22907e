//! Faults of what the operator sends back (`operator_faults.rs` runs them on each route): a
//! callback is only ever a hint. Dropped, the reconciler makes up for it; duplicated, stale or
//! late, it settles nothing twice; forged, misrouted or malformed, it settles nothing at all,
//! and the operator's own word settles the payment afterwards. Nothing waits for a while: the
//! emulator's clock is moved past its delay, and the gateway's metrics tell when the status
//! checks the callbacks started are answered, or that none was started.

use std::time::Duration;

use momo_gateway::domain::Environment::{Production, Sandbox};
use momo_gateway::domain::Timestamp;
use momo_gateway::operator::momo::callback::route_token;
use momo_gateway::reconcile::reconciler;
use momo_operator_emulator::{paydunya_hash, wave_signature};
use reqwest::StatusCode;
use serde_json::{json, Value};

use crate::support::emulated::Checks;
use crate::support::helpers::{answer, later, Answer};
use crate::support::operator_faults::by_hand::{
    authentic_callback, momo_callback, paydunya_notification, success_claim, wave_webhook,
};
use crate::support::operator_faults::{Faulted, Route, CALLBACK_TOKEN, PAYDUNYA_MASTER_KEY, WAVE_SECRET};
use crate::support::operator_faults::{PaydunyaCollection, WaveCollection};

/// How late the operator's callback comes in [`late`], on the emulator's clock.
const CALLBACK_DELAY: Duration = Duration::from_secs(300);

/// The callback's answer: 200, with the gateway's receipt `outcome`.
fn assert_receipt(what: &str, a: &Answer, outcome: &str) {
    assert_eq!(a.status, StatusCode::OK, "{what}: {}", a.body);
    assert_eq!(a.body["data"]["outcome"], outcome, "{what}: {}", a.body);
}

/// A callback sent again by hand: Wave's (the same signature) refused 401 as a replay, MoMo's
/// and PayDunya's answered `already_final` on a settled payment.
fn assert_replay_refused_or_final(what: &str, route: Route, a: &Answer) {
    if route.replays_accepted() {
        assert_receipt(what, a, "already_final");
    } else {
        assert_eq!(a.status, StatusCode::UNAUTHORIZED, "{what}: {}", a.body);
    }
}

/// The operator settles the payment (row 02) but its callback is dropped: the reconciler finds it.
pub async fn dropped(f: &Faulted, route: Route) {
    f.fault(route.initiation(), "callback=drop", 1).await;
    let id = f.id(route, "dropped");
    f.pending_payment(route, &id, "02").await;
    f.past_the_delay().await;
    let made = f.callbacks_made(&id, 1).await;
    assert!(
        made[0]["error"].as_str().unwrap_or_default().contains("dropped"),
        "{route}: {made:?}"
    );
    assert_eq!(f.status(&id).await, "PENDING", "{route}: no callback came");
    let report = reconciler::run_once(&f.app.gateway.payments, later(60_000))
        .await
        .unwrap();
    assert_eq!(report.settled, 1, "{route}: polled");
    assert_eq!(f.status(&id).await, "SUCCESSFUL", "{route}");
    assert_eq!(f.counts(&id).await, (1, 1), "{route}");
}

/// Every callback twice: one settlement (the ledger check counts one event per final
/// transaction). MoMo's second is answered (it carries no signature to tell it from the first);
/// Wave's carries the first one's signature: refused as a replay, like any replay later on.
pub async fn duplicated(f: &Faulted, route: Route) {
    f.fault(route.initiation(), "callback=duplicate", 1).await;
    let id = f.id(route, "twice");
    f.pending_payment(route, &id, "02").await;
    let op = route.operator().name();
    let before = Checks::of(&f.app, op).await;
    f.past_the_delay().await;
    let made = f.callbacks_made(&id, 2).await;
    assert_eq!(made.len(), 2, "{route}: {made:?}");
    let again = if route.replays_accepted() { 200 } else { 401 };
    assert_eq!(
        (&made[0]["status"], &made[1]["status"]),
        (&json!(200), &json!(again)),
        "{route}: {made:?}"
    );
    assert_eq!(f.settled(&id).await, "SUCCESSFUL", "{route}");
    // Both callbacks' status checks answered (the second one's on a final payment, if it came
    // while the first one's was running).
    let checked = before.answered(&f.app, op).await;
    let settled = f.snapshot(&id).await;
    assert_replay_refused_or_final(&format!("{route} replayed"), route, &replay(f, &made[0]).await);
    assert_eq!(
        Checks::of(&f.app, op).await,
        checked,
        "{route}: the replay started no status check"
    );
    assert_eq!(f.snapshot(&id).await, settled, "{route}: nothing changes once final");
    assert_eq!(f.counts(&id).await, (1, 1), "{route}");
}

/// The final callback, then a stale one (MoMo's `PENDING` body; Wave's `payment_failed` after
/// `completed`): the payment stays as the operator says it is now.
pub async fn out_of_order(f: &Faulted, route: Route) {
    f.fault(route.initiation(), "callback=out_of_order", 1).await;
    let id = f.id(route, "stale");
    f.pending_payment(route, &id, "02").await;
    let op = route.operator().name();
    let before = Checks::of(&f.app, op).await;
    f.past_the_delay().await;
    let made = f.callbacks_made(&id, 2).await;
    let stale = made[1]["body"].as_str().unwrap_or_default();
    let marker = if route.is_momo() {
        "\"PENDING\""
    } else if route.is_paydunya() {
        "data%5Bstatus%5D=pending"
    } else {
        "checkout.session.payment_failed"
    };
    assert!(stale.contains(marker), "{route}: the stale one came last: {made:?}");
    for callback in &made {
        assert_eq!(callback["status"], 200, "{route}: {callback}");
    }
    assert_eq!(f.settled(&id).await, "SUCCESSFUL", "{route}");
    before.answered(&f.app, op).await;
    assert_eq!(
        f.status(&id).await,
        "SUCCESSFUL",
        "{route}: not undone by the stale one"
    );
    assert_eq!(f.record(&id).await.failure_code, None, "{route}");
    assert_eq!(f.counts(&id).await, (1, 1), "{route}");
}

/// The reconciler settles the payment before its callback comes (5 min late); the callback, and
/// a replay of it, change nothing. Wave sends no payout webhook: a signed event naming the
/// payout (a replay from elsewhere) stands in for it.
pub async fn late(f: &Faulted, route: Route) {
    if route.calls_back() {
        let delay = format!("callback_delay={}s", CALLBACK_DELAY.as_secs());
        f.fault(route.initiation(), &delay, 1).await;
    }
    let id = f.id(route, "late");
    let reference = f.pending_payment(route, &id, "02").await["ref"]
        .as_str()
        .unwrap()
        .to_owned();
    f.past_the_delay().await;
    let report = reconciler::run_once(&f.app.gateway.payments, later(60_000))
        .await
        .unwrap();
    assert_eq!(report.settled, 1, "{route}: polled before the callback came");
    let settled = f.snapshot(&id).await;
    let replayed = if route.calls_back() {
        assert_eq!(f.callbacks_made(&id, 0).await, Vec::<Value>::new(), "{route}: not yet");
        let op = route.operator().name();
        let before = Checks::of(&f.app, op).await;
        f.advance(CALLBACK_DELAY).await;
        let made = f.callbacks_made(&id, 1).await;
        assert_eq!(made[0]["status"], 200, "{route}: {made:?}");
        before.answered(&f.app, op).await;
        replay(f, &made[0]).await
    } else {
        let body = success_claim(route, &reference);
        authentic_callback(f, route, route.operator(), "Sandbox", &body).await
    };
    if route.calls_back() {
        assert_replay_refused_or_final(&format!("{route} late"), route, &replayed);
    } else {
        assert_receipt(&format!("{route} late"), &replayed, "already_final");
    }
    assert_eq!(f.snapshot(&id).await, settled, "{route}: nothing changes once final");
    assert_eq!(f.status(&id).await, "SUCCESSFUL", "{route}");
}

/// Callbacks claiming success for a payment that never resolves (row 06), none authentic: 401
/// each, nothing settled. Then the operator's own callback settles it, except Wave's when the
/// emulator signs it with another secret (refused too: the reconciler finds the payment).
pub async fn forged(f: &Faulted, route: Route) {
    let badly_signed = route == WaveCollection || route == PaydunyaCollection;
    if badly_signed {
        f.fault(route.initiation(), "callback=bad_signature", 1).await;
    }
    let id = f.id(route, "forged");
    let reference = f.pending_payment(route, &id, "06").await["ref"]
        .as_str()
        .unwrap()
        .to_owned();
    let body = success_claim(route, &reference);
    let op = route.operator();
    let checks = Checks::of(&f.app, "*").await;
    let refusals: Vec<(String, Answer)> = if route.is_paydunya() {
        let right = paydunya_hash(PAYDUNYA_MASTER_KEY);
        let forge = async |hash: Option<&str>| paydunya_notification(f, op, "Sandbox", hash, &body).await;
        vec![
            (
                "another key's hash".into(),
                forge(Some(&paydunya_hash("not-the-key"))).await,
            ),
            ("the master key itself".into(), forge(Some(PAYDUNYA_MASTER_KEY)).await),
            ("no hash".into(), forge(None).await),
            ("an empty hash".into(), forge(Some("")).await),
            ("a same-length hash".into(), forge(Some(&"0".repeat(right.len()))).await),
        ]
    } else if route.is_momo() {
        let same_length = "x".repeat(route_token(CALLBACK_TOKEN, op, Sandbox).len());
        let production_token = route_token(CALLBACK_TOKEN, op, Production);
        let sibling_token = route_token(CALLBACK_TOKEN, route.sibling(), Sandbox);
        vec![
            (
                "the secret itself".into(),
                momo_callback(f, op, "Sandbox", Some(CALLBACK_TOKEN), &body).await,
            ),
            (
                "its Production route's token".into(),
                momo_callback(f, op, "Sandbox", Some(&production_token), &body).await,
            ),
            (
                "another operator's token".into(),
                momo_callback(f, op, "Sandbox", Some(&sibling_token), &body).await,
            ),
            ("no token".into(), momo_callback(f, op, "Sandbox", None, &body).await),
            (
                "empty token".into(),
                momo_callback(f, op, "Sandbox", Some(""), &body).await,
            ),
            (
                "same-length token".into(),
                momo_callback(f, op, "Sandbox", Some(&same_length), &body).await,
            ),
        ]
    } else {
        let now = Timestamp::now().unix_seconds();
        let signed = |secret: &str, t: i64, over: &str| Some(wave_signature(secret, t, over.as_bytes()));
        let other_body = success_claim(route, "ANOTHERREF");
        vec![
            (
                "another secret".into(),
                wave_webhook(f, op, "Sandbox", signed("not-the-secret", now, &body), &body).await,
            ),
            (
                "another body".into(),
                wave_webhook(f, op, "Sandbox", signed(WAVE_SECRET, now, &other_body), &body).await,
            ),
            (
                "301 s old".into(),
                wave_webhook(f, op, "Sandbox", signed(WAVE_SECRET, now - 301, &body), &body).await,
            ),
            // Well ahead: our clock may have passed into the next second since `now`.
            (
                "330 s ahead".into(),
                wave_webhook(f, op, "Sandbox", signed(WAVE_SECRET, now + 330, &body), &body).await,
            ),
        ]
    };
    for (how, a) in &refusals {
        assert_eq!(a.status, StatusCode::UNAUTHORIZED, "{route}, {how}: {}", a.body);
    }
    assert_eq!(
        Checks::of(&f.app, "*").await,
        checks,
        "{route}: no forgery started a status check"
    );
    assert_eq!(f.status(&id).await, "PENDING", "{route}: nothing settled on a forgery");
    if badly_signed {
        f.settle_at_operator(&id, "succeeded").await;
        let made = f.callbacks_made(&id, 1).await;
        assert_eq!(
            made[0]["status"], 401,
            "{route}: the badly signed webhook refused: {made:?}"
        );
        assert_eq!(
            Checks::of(&f.app, "*").await,
            checks,
            "{route}: the refused webhook started no status check"
        );
        assert_eq!(f.status(&id).await, "PENDING", "{route}");
        f.drain().await;
        assert_eq!(f.status(&id).await, "SUCCESSFUL", "{route}: found by a status check");
    } else {
        f.paid_at_operator(route, &id).await;
    }
    assert_eq!(f.counts(&id).await, (1, 1), "{route}");
}

/// Authentic callbacks naming the payment at the route of another operator of the same protocol,
/// at its own operator's Production route, and one naming no payment at all: 200 `ignored`,
/// nothing settled. The operator's own callback then settles it.
pub async fn misrouted(f: &Faulted, route: Route) {
    let id = f.id(route, "misrouted");
    let reference = f.pending_payment(route, &id, "06").await["ref"]
        .as_str()
        .unwrap()
        .to_owned();
    let body = success_claim(route, &reference);
    let unknown = success_claim(route, "NOSUCHREF9");
    let checks = Checks::of(&f.app, "*").await;
    for (what, operator, env, body) in [
        ("another operator's", route.sibling(), "Sandbox", &body),
        ("another environment's", route.operator(), "Production", &body),
        ("an unknown reference", route.operator(), "Sandbox", &unknown),
    ] {
        let a = authentic_callback(f, route, operator, env, body).await;
        assert_receipt(&format!("{route}, {what}"), &a, "ignored");
    }
    assert_eq!(
        Checks::of(&f.app, "*").await,
        checks,
        "{route}: no status check started"
    );
    assert_eq!(f.status(&id).await, "PENDING", "{route}: nothing settled");
    f.paid_at_operator(route, &id).await;
    assert_eq!(f.counts(&id).await, (1, 1), "{route}");
}

/// Authentic callbacks whose bodies are not the protocol's, though they name the payment: 400,
/// nothing settled. The operator's own callback then settles it.
pub async fn malformed(f: &Faulted, route: Route) {
    let id = f.id(route, "malformed");
    let reference = f.pending_payment(route, &id, "06").await["ref"]
        .as_str()
        .unwrap()
        .to_owned();
    let whole = success_claim(route, &reference);
    let bodies = if route.is_paydunya() {
        vec![
            "data[status]=completed".to_owned(),
            "data[status]=completed&data[custom_data][ref]=".to_owned(),
            "data[status]=success&data[disburse_id]=".to_owned(),
        ]
    } else if route.is_momo() {
        vec![
            json!({"externalId": reference}).to_string(),
            json!({"externalId": "", "status": "SUCCESSFUL"}).to_string(),
            whole[..whole.len() - 1].to_owned(),
        ]
    } else {
        vec![
            json!({"type": "checkout.session.completed", "data": {"client_reference": reference}}).to_string(),
            json!({"id": "AE_1", "type": "checkout.session.completed", "data": {"client_reference": ""}}).to_string(),
            whole[..whole.len() - 1].to_owned(),
        ]
    };
    let checks = Checks::of(&f.app, "*").await;
    for body in &bodies {
        let a = authentic_callback(f, route, route.operator(), "Sandbox", body).await;
        assert_eq!(a.status, StatusCode::BAD_REQUEST, "{route}: {body}: {}", a.body);
    }
    assert_eq!(
        Checks::of(&f.app, "*").await,
        checks,
        "{route}: no status check started"
    );
    assert_eq!(f.status(&id).await, "PENDING", "{route}: nothing settled");
    f.paid_at_operator(route, &id).await;
    assert_eq!(f.counts(&id).await, (1, 1), "{route}");
}

/// Sends again, by hand, a callback the emulator made.
async fn replay(f: &Faulted, callback: &Value) -> Answer {
    let method = reqwest::Method::from_bytes(callback["method"].as_str().unwrap().as_bytes()).unwrap();
    let mut request = f
        .app
        .client
        .request(method, callback["url"].as_str().unwrap())
        .header("content-type", content_type(callback["body"].as_str().unwrap()))
        .body(callback["body"].as_str().unwrap().to_owned());
    if let Some(signature) = callback["signature"].as_str() {
        request = request.header("Wave-Signature", signature);
    }
    answer(request).await
}

/// A made callback's content type: PayDunya's form, or the others' JSON.
fn content_type(body: &str) -> &'static str {
    if body.starts_with("data") {
        "application/x-www-form-urlencoded"
    } else {
        "application/json"
    }
}
