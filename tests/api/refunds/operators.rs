//! Refunds through the operators' own protocols, at the operator emulator over HTTP, on both
//! databases: MoMo's refund (`referenceIdToRefund`, its own `X-Reference-Id`, settled by callback
//! or lookup) and Wave's checkout refund (a session given back in full, at once), and the rows
//! of the fault table of `docs/operators.md` that apply to a refund. After each: nothing left
//! `PENDING`, nothing executed twice at the operator, nothing reserved, the ledger balanced.
//!
//! The table's other rows do not depend on the kind of payment, and `operators/faults.rs` runs
//! them: the breaker counts an operator's transport failures whatever was sent, and a forged,
//! misrouted or malformed callback is refused before the payment it names is read. A refund
//! never expires (only collections do).

use momo_gateway::domain::{FailureCode, Reference, Status, Timestamp};
use momo_gateway::reconcile::{reconciler, review};
use reqwest::StatusCode;
use serde_json::{json, Value};

use crate::support::helpers::{later, Answer};
use crate::support::operator_faults::{Faulted, MomoCollection, Route, WaveCollection};
use crate::support::requests::{collect_v1, post};
use momo_test_support::both_backends;

both_backends!(
    Faulted::spawn =>
    momo_refunds_name_their_collection_and_settle_by_callback,
    wave_refunds_give_a_session_back_in_full_only,
    a_refund_refused_at_initiation_fails_and_releases_its_reservation,
    a_refund_whose_credentials_are_refused_fails_at_once_with_503,
    a_refund_whose_answer_is_lost_stays_pending_until_the_operator_says,
    a_refund_that_never_arrived_is_sent_again_once,
    a_momo_refund_lost_twice_fails_not_sent,
    a_momo_refund_settles_once_whatever_its_callbacks_and_lookups_say,
    twenty_refunds_at_once_give_back_no_more_than_was_taken,
    a_refund_the_operator_leaves_pending_is_listed_for_review,
);

/// The emulator's endpoint that receives a refund of a collection taken on `route`.
fn refund_point(route: Route) -> &'static str {
    match route {
        MomoCollection => "momo.refund",
        _ => "wave.checkout.refund",
    }
}

/// A collection of 1,500 francs on `route` from a number the emulator pays at once (01),
/// `SUCCESSFUL` once its callback arrived.
async fn paid(f: &Faulted, route: Route, id: &str) {
    let body = collect_v1(
        id,
        "0701020301",
        &format!("{}_MONEY_CI", route.operator().name()),
        "1500",
    );
    let a = post(&f.app, &f.token, "/v1/collecte/mobile-money", &body).await;
    assert!(a.status.is_success(), "{route}: {}", a.body);
    assert_eq!(f.settled(id).await, "SUCCESSFUL", "{route}: {id} paid");
}

async fn refund(f: &Faulted, id: &str, collection: &str, amount: Option<&str>) -> Answer {
    let mut body = json!({"transactionId": id, "collection": collection});
    if let Some(amount) = amount {
        body["amount"] = json!(amount);
    }
    post(&f.app, &f.token, "/v1/refunds", &body).await
}

/// A refund that must come back 202 `PENDING`.
async fn pending_refund(f: &Faulted, route: Route, id: &str, collection: &str, amount: Option<&str>) -> Value {
    let a = refund(f, id, collection, amount).await;
    assert_eq!(
        (a.status, a.body["data"]["status"].as_str()),
        (StatusCode::ACCEPTED, Some("PENDING")),
        "{route}: {id}: {}",
        a.body
    );
    a.body["data"].clone()
}

/// What of `collection` is given back, as its v2 lookup shows it.
async fn refunded(f: &Faulted, collection: &str) -> i64 {
    let shown = &f.lookup(collection).await["amount_refunded"];
    shown.as_str().map_or(0, |francs| francs.parse().unwrap())
}

async fn momo_refunds_name_their_collection_and_settle_by_callback(f: Faulted) {
    paid(&f, MomoCollection, "mr-c").await;
    let data = pending_refund(&f, MomoCollection, "mr-1", "mr-c", Some("500")).await;
    assert_eq!(
        (data["typeTransaction"].as_str(), data["amount"].as_str()),
        (Some("refund"), Some("500"))
    );
    assert_eq!(
        f.settled("mr-1").await,
        "SUCCESSFUL",
        "the operator's callback settles it"
    );
    // The emulator found the collection by `referenceIdToRefund`, or it would have said 404.
    let first = f.record("mr-1").await;
    let made = f.emulator_get("payments").await;
    let at_operator = made
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["key"] == first.id.as_str())
        .expect("the refund reached the operator under its own key")
        .clone();
    assert_eq!(at_operator["flow"], "refund", "{at_operator}");
    assert_eq!(at_operator["wire"]["payee"]["partyId"], "2250701020301", "to the payer");
    assert_eq!(at_operator["wire"]["externalId"], first.reference.as_str());
    assert_eq!(f.counts("mr-1").await, (1, 1));

    pending_refund(&f, MomoCollection, "mr-2", "mr-c", None).await;
    assert_eq!(f.settled("mr-2").await, "SUCCESSFUL");
    assert_eq!(
        f.record("mr-2").await.amounts.amount,
        momo_gateway::domain::Francs(1_000),
        "the rest"
    );
    assert_eq!(refunded(&f, "mr-c").await, 1_500);
    let more = refund(&f, "mr-3", "mr-c", Some("100")).await;
    assert_eq!(more.status, StatusCode::CONFLICT, "{}", more.body);
    f.assert_invariants("MoMo refunds").await;
}

async fn wave_refunds_give_a_session_back_in_full_only(f: Faulted) {
    paid(&f, WaveCollection, "wr-c").await;
    let part = refund(&f, "wr-part", "wr-c", Some("500")).await;
    assert_eq!(part.status, StatusCode::CONFLICT, "{}", part.body);
    assert!(
        part.body["reason"]
            .as_str()
            .unwrap_or_default()
            .contains("only in full"),
        "says why: {}",
        part.body
    );
    assert_eq!(f.reserved().await, "0", "nothing reserved for the refused refund");
    let whole = refund(&f, "wr-1", "wr-c", None).await;
    assert_eq!(
        (whole.status, whole.body["data"]["status"].as_str()),
        (StatusCode::OK, Some("SUCCESSFUL")),
        "Wave refunds at once: {}",
        whole.body
    );
    assert_eq!(refunded(&f, "wr-c").await, 1_500);
    assert_eq!(f.counts("wr-1").await, (1, 1), "sent once, under the refund's own key");
    let again = refund(&f, "wr-2", "wr-c", None).await;
    assert_eq!(again.status, StatusCode::CONFLICT, "{}", again.body);
    f.assert_invariants("Wave refunds").await;
}

async fn a_refund_refused_at_initiation_fails_and_releases_its_reservation(f: Faulted) {
    for (route, tag) in [(MomoCollection, "m"), (WaveCollection, "w")] {
        let collection = format!("{tag}-refused-c");
        paid(&f, route, &collection).await;
        f.fault(refund_point(route), "status=400", 1).await;
        let id = format!("{tag}-refused");
        let a = refund(&f, &id, &collection, None).await;
        assert_eq!(a.body["data"]["status"], "FAILED", "{route}: {}", a.body);
        assert_eq!(
            f.record(&id).await.failure_code,
            Some(FailureCode::OperatorRefused),
            "{route}"
        );
        assert_eq!(
            refunded(&f, &collection).await,
            0,
            "{route}: the collection is whole again"
        );
        assert_eq!(f.reserved().await, "0", "{route}: the reservation is released");
        let retry = refund(&f, &format!("{tag}-retry"), &collection, None).await;
        assert!(retry.status.is_success(), "{route}: refundable again: {}", retry.body);
        f.drain().await;
        assert_eq!(f.status(&format!("{tag}-retry")).await, "SUCCESSFUL", "{route}");
        f.assert_invariants(&format!("refused refund on {route}")).await;
    }
}

async fn a_refund_whose_credentials_are_refused_fails_at_once_with_503(f: Faulted) {
    // MoMo drops its token after a 401 and tries once more with a fresh one: two refusals.
    for (route, tag, times) in [(MomoCollection, "m", 2), (WaveCollection, "w", 1)] {
        let collection = format!("{tag}-creds-c");
        paid(&f, route, &collection).await;
        f.fault(refund_point(route), "status=401", times).await;
        let id = format!("{tag}-creds");
        let a = refund(&f, &id, &collection, None).await;
        assert_eq!(
            (a.status, a.body["data"]["status"].as_str()),
            (StatusCode::SERVICE_UNAVAILABLE, Some("FAILED")),
            "{route}: {}",
            a.body
        );
        assert_eq!(
            f.record(&id).await.failure_code,
            Some(FailureCode::OperatorUnavailable),
            "{route}"
        );
        assert_eq!(f.counts(&id).await.1, 0, "{route}: nothing executed");
        assert_eq!(
            refunded(&f, &collection).await,
            0,
            "{route}: the collection is whole again"
        );
        f.assert_invariants(&format!("refused credentials on a refund on {route}"))
            .await;
    }
}

async fn a_refund_whose_answer_is_lost_stays_pending_until_the_operator_says(f: Faulted) {
    for fault in ["timeout=1s", "reset=after"] {
        for (route, tag) in [(MomoCollection, "m"), (WaveCollection, "w")] {
            let collection = format!("{tag}-lost-c-{}", &fault[..5]);
            paid(&f, route, &collection).await;
            f.fault(refund_point(route), fault, 1).await;
            let id = format!("{tag}-lost-{}", &fault[..5]);
            pending_refund(&f, route, &id, &collection, None).await;
            assert_eq!(
                refunded(&f, &collection).await,
                1_500,
                "{route} {fault}: held while unknown"
            );
            f.drain().await;
            assert_eq!(f.status(&id).await, "SUCCESSFUL", "{route} {fault}");
            assert_eq!(f.counts(&id).await.1, 1, "{route} {fault}: executed once");
            f.assert_invariants(&format!("{fault} on a refund on {route}")).await;
        }
    }
}

async fn a_refund_that_never_arrived_is_sent_again_once(f: Faulted) {
    for (route, tag) in [(MomoCollection, "m"), (WaveCollection, "w")] {
        let collection = format!("{tag}-lost-c");
        paid(&f, route, &collection).await;
        f.fault(refund_point(route), "status=503", 1).await;
        let id = format!("{tag}-lost");
        pending_refund(&f, route, &id, &collection, None).await;
        assert_eq!(f.counts(&id).await, (1, 0), "{route}: not executed");
        f.drain().await;
        assert_eq!(f.status(&id).await, "SUCCESSFUL", "{route}");
        assert_eq!(
            f.counts(&id).await,
            (2, 1),
            "{route}: sent again once, with the same key"
        );
        f.assert_invariants(&format!("a refund that never arrived on {route}"))
            .await;
    }
}

async fn a_momo_refund_lost_twice_fails_not_sent(f: Faulted) {
    paid(&f, MomoCollection, "lost2-c").await;
    f.fault("momo.refund", "status=503", 2).await;
    pending_refund(&f, MomoCollection, "lost2", "lost2-c", Some("700")).await;
    reconciler::run_once(&f.app.gateway.payments, later(60_000))
        .await
        .unwrap();
    assert_eq!(f.counts("lost2").await, (2, 0), "sent again once, lost again");
    reconciler::run_once(&f.app.gateway.payments, later(100_000))
        .await
        .unwrap();
    assert_eq!(f.status("lost2").await, "FAILED");
    assert_eq!(f.record("lost2").await.failure_code, Some(FailureCode::NotSent));
    assert_eq!(refunded(&f, "lost2-c").await, 0, "what it held is released");
    f.assert_invariants("a MoMo refund lost twice").await;
}

async fn a_momo_refund_settles_once_whatever_its_callbacks_and_lookups_say(f: Faulted) {
    paid(&f, MomoCollection, "cb-c").await;
    // The callback's status check is lied to (another amount): nothing settles on the lie; the
    // reconciler's next lookup settles it.
    f.fault("momo.refund.status", "answer=other_amount", 1).await;
    pending_refund(&f, MomoCollection, "cb-lie", "cb-c", Some("500")).await;
    let made = f.callbacks_made("cb-lie", 1).await;
    assert_eq!(made[0]["status"], 200, "{made:?}");
    assert_eq!(f.status("cb-lie").await, "PENDING", "not settled on another amount");
    reconciler::run_once(&f.app.gateway.payments, later(60_000))
        .await
        .unwrap();
    assert_eq!(f.status("cb-lie").await, "SUCCESSFUL");
    // No callback: the reconciler polls.
    f.fault("momo.refund", "callback=drop", 1).await;
    pending_refund(&f, MomoCollection, "cb-drop", "cb-c", Some("100")).await;
    let made = f.callbacks_made("cb-drop", 1).await;
    assert!(
        made[0]["error"].as_str().unwrap_or_default().contains("dropped"),
        "{made:?}"
    );
    f.drain().await;
    assert_eq!(f.status("cb-drop").await, "SUCCESSFUL");
    // Duplicated callbacks, then a stale PENDING one: settled once, final.
    f.fault("momo.refund", "callback=duplicate,callback=out_of_order", 1)
        .await;
    pending_refund(&f, MomoCollection, "cb-dup", "cb-c", Some("500")).await;
    assert_eq!(f.settled("cb-dup").await, "SUCCESSFUL");
    f.callbacks_made("cb-dup", 3).await;
    let settled = f.snapshot("cb-dup").await;
    f.drain().await;
    assert_eq!(f.snapshot("cb-dup").await, settled, "nothing changes once final");
    f.assert_invariants("MoMo refund callbacks and lookups").await;
}

async fn twenty_refunds_at_once_give_back_no_more_than_was_taken(f: Faulted) {
    // MoMo: twenty refunds of 100 francs of a 1,500-franc collection: fifteen fit.
    paid(&f, MomoCollection, "many-m").await;
    let refunds = (0..20).map(|i| {
        let (client, url, token) = (f.app.client.clone(), f.app.url("/v1/refunds"), f.token.clone());
        tokio::spawn(async move {
            let body = json!({"transactionId": format!("many-m-{i}"), "collection": "many-m", "amount": "100"});
            client
                .post(url)
                .bearer_auth(&token)
                .json(&body)
                .send()
                .await
                .unwrap()
                .status()
        })
    });
    let mut recorded = 0;
    for r in refunds {
        match r.await.unwrap() {
            s if s.is_success() => recorded += 1,
            StatusCode::CONFLICT => {}
            other => panic!("a refund got {other}"),
        }
    }
    assert_eq!(recorded, 15, "only those that fit");
    f.drain().await;
    assert_eq!(refunded(&f, "many-m").await, 1_500);
    // Wave: a session is given back once, in full: one of twenty.
    paid(&f, WaveCollection, "many-w").await;
    let refunds = (0..20).map(|i| {
        let (client, url, token) = (f.app.client.clone(), f.app.url("/v1/refunds"), f.token.clone());
        tokio::spawn(async move {
            let body = json!({"transactionId": format!("many-w-{i}"), "collection": "many-w"});
            client
                .post(url)
                .bearer_auth(&token)
                .json(&body)
                .send()
                .await
                .unwrap()
                .status()
        })
    });
    let mut recorded = 0;
    for r in refunds {
        if r.await.unwrap().is_success() {
            recorded += 1;
        }
    }
    assert_eq!(recorded, 1, "one whole refund");
    f.assert_invariants("twenty refunds at once").await;
}

/// A refund the operator keeps pending (money may have left) needs a person once it is older
/// than the collection time to live, as a transfer does: listed by `transactions stuck` and
/// counted in `momo_transfers_needing_review`.
async fn a_refund_the_operator_leaves_pending_is_listed_for_review(f: Faulted) {
    paid(&f, MomoCollection, "review-c").await;
    f.fault("momo.refund", "approve_after=60m", 1).await;
    let refund = pending_refund(&f, MomoCollection, "review-r", "review-c", None).await;
    let stuck = |at| review::stuck_transfers(&f.app.gateway.payments, at);
    assert!(stuck(later(0)).await.unwrap().is_empty(), "just sent");
    let listed = stuck(later(901_000)).await.unwrap();
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert_eq!(
        listed[0].transaction.reference.as_str(),
        refund["ref"].as_str().unwrap()
    );
    let gauges = f.app.gateway.gauges(later(901_000)).await;
    assert_eq!(gauges.database.unwrap().pending_transfers_needing_review, 1);
    let reference = Reference::from(refund["ref"].as_str().unwrap());
    let reason = "operator ticket 7: refund reversed";
    review::resolve(
        &f.app.gateway.payments,
        &reference,
        Status::Failed,
        reason,
        Timestamp::now(),
    )
    .await
    .unwrap();
    assert!(stuck(later(901_000)).await.unwrap().is_empty());
}
