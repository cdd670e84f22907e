//! Faults of the operator's answers (`operator_faults.rs` runs them on each route): answers that
//! cannot be taken at their word settle nothing, at a status check or at initiation; a
//! collection whose status cannot be asked when it expires stays `PENDING` until it can. And the
//! one row that applies to the built-in simulator and no test covers yet: its callbacks after a
//! transfer settled.

use momo_gateway::domain::{FailureCode, TransactionRef};
use momo_gateway::reconcile::{self, callbacks, expiry, reconciler};
use reqwest::StatusCode;

use crate::support::emulated::{Checks, PATIENCE};
use crate::support::helpers::{answer, later, TestApp};
use crate::support::operator_faults::{Faulted, Route};
use crate::support::operator_faults::{
    MomoCollection, MomoTransfer, PaydunyaCollection, PaydunyaDeltaCollection, PaydunyaTransfer, WaveCollection,
    WaveTransfer,
};
use crate::support::requests::{post, transfer_v1};
use momo_test_support::{both_backends, eventually};

/// The lies each route is shown here; the others are shown by the tests `CASES` names.
fn lies(route: Route) -> &'static [&'static str] {
    match route {
        MomoCollection => &[],
        MomoTransfer | WaveCollection | PaydunyaCollection | PaydunyaDeltaCollection | PaydunyaTransfer => {
            &["other_amount", "other_currency", "unknown_status", "malformed"]
        }
        WaveTransfer => &["other_currency", "malformed"],
    }
}

/// A payment the operator settled without calling back (row 05): each status check it lies to
/// settles nothing; the first truthful one settles it. Where the operator calls back, a
/// callback whose status check is lied to settles nothing either.
pub async fn untrustworthy_status(f: &Faulted, route: Route) {
    let id = f.id(route, "lied-to");
    f.pending_payment(route, &id, "05").await;
    f.past_the_delay().await;
    // Each check after the previous one's backoff.
    for (lie, at) in lies(route).iter().zip([60_000, 100_000, 200_000, 400_000]) {
        f.fault(route.status_lookup(), &format!("answer={lie}"), 1).await;
        let report = reconciler::run_once(&f.app.gateway.payments, later(at)).await.unwrap();
        assert_eq!(
            (report.examined, report.settled),
            (1, 0),
            "{route} {lie}: asked, not settled"
        );
        assert_eq!(f.status(&id).await, "PENDING", "{route} {lie}");
    }
    let report = reconciler::run_once(&f.app.gateway.payments, later(700_000))
        .await
        .unwrap();
    assert_eq!(report.settled, 1, "{route}: a truthful answer settles it");
    assert_eq!(f.status(&id).await, "SUCCESSFUL", "{route}");
    assert_eq!(f.counts(&id).await, (1, 1), "{route}");
    if route.calls_back() {
        let hinted = f.id(route, "hinted-lie");
        f.fault(route.status_lookup(), "answer=other_amount", 1).await;
        f.pending_payment(route, &hinted, "02").await;
        let op = route.operator().name();
        let before = Checks::of(&f.app, op).await;
        f.past_the_delay().await;
        let made = f.callbacks_made(&hinted, 1).await;
        assert_eq!(made[0]["status"], 200, "{route}: {made:?}");
        let checked = before.answered(&f.app, op).await;
        assert_eq!(
            checked.accepted,
            before.accepted + 1,
            "{route}: the callback started a check"
        );
        assert_eq!(
            f.status(&hinted).await,
            "PENDING",
            "{route}: the callback's check was lied to"
        );
        let report = reconciler::run_once(&f.app.gateway.payments, later(60_000))
            .await
            .unwrap();
        assert_eq!(report.settled, 1, "{route}: asked again later");
        assert_eq!(f.status(&hinted).await, "SUCCESSFUL", "{route}");
    }
}

/// Wave answers a creation with the session or payout: when that answer lies, the payment is
/// neither paid (a row 01 payout is `succeeded` in the 200) nor failed, but `PENDING` until a
/// truthful status check or webhook.
pub async fn untrustworthy_initiation(f: &Faulted, route: Route) {
    let lies = ["other_amount", "other_currency", "unknown_status", "malformed"];
    for lie in lies {
        f.fault(route.initiation(), &format!("answer={lie}"), 1).await;
        let id = f.id(route, lie);
        f.pending_payment(route, &id, "01").await;
        assert_eq!(f.counts(&id).await, (1, 1), "{route} {lie}: executed");
    }
    f.drain().await;
    for lie in lies {
        let id = f.id(route, lie);
        assert_eq!(f.status(&id).await, "SUCCESSFUL", "{route} {lie}");
        assert_eq!(f.counts(&id).await, (1, 1), "{route} {lie}: never sent again");
    }
}

/// Two collections reach their expiry while the operator's status lookup fails: one never paid
/// (row 06), one paid without a callback (row 05). Neither expires on a guess; at the next pass
/// the paid one is `SUCCESSFUL` and the other `EXPIRED` (a Wave session expired first).
pub async fn unreachable_at_expiry(f: &Faulted, route: Route) {
    let never = f.id(route, "never");
    f.pending_payment(route, &never, "06").await;
    let paid = f.id(route, "paid-late");
    f.pending_payment(route, &paid, "05").await;
    f.past_the_delay().await;
    f.fault(route.status_lookup(), "status=503", 2).await;
    let report = expiry::run_once(&f.app.gateway.payments, later(901_000)).await.unwrap();
    assert_eq!(
        (report.examined, report.settled),
        (2, 0),
        "{route}: nothing expires on a guess"
    );
    assert_eq!(f.status(&never).await, "PENDING", "{route}");
    assert_eq!(f.status(&paid).await, "PENDING", "{route}");
    let report = expiry::run_once(&f.app.gateway.payments, later(912_000)).await.unwrap();
    assert_eq!((report.examined, report.settled), (2, 2), "{route}: asked again");
    assert_eq!(f.status(&paid).await, "SUCCESSFUL", "{route}: paid, never expired");
    assert_eq!(f.status(&never).await, "FAILED", "{route}");
    assert_eq!(
        f.record(&never).await.failure_code,
        Some(FailureCode::Expired),
        "{route}"
    );
    if route == WaveCollection {
        let key = f.record(&never).await.id;
        let session = f.emulator_get(&format!("payments/{key}")).await;
        assert_eq!(session["status"], "expired", "{route}: no payer can pay it now");
    }
    for id in [&never, &paid] {
        assert_eq!(f.counts(id).await, (1, 1), "{route}: {id}");
    }
}

/// Two collections reach their expiry while the operator knows nothing of them: one whose
/// initiation is still on its way (the emulator takes 400 ms over it; in production, a process
/// starved or a connection slow to open), one whose initiation was lost (a 5xx that executed
/// nothing). Neither expires on that first "not received": the one in flight arrives, is paid
/// (row 05, no callback), and is `SUCCESSFUL` at the pass after no send of ours can still
/// arrive; the lost one is `EXPIRED` there, never having reached the operator.
pub async fn unknown_at_expiry(f: &Faulted, route: Route) {
    f.fault(route.initiation(), "status=503", 1).await;
    let lost = f.id(route, "lost-at-expiry");
    f.pending_payment(route, &lost, "05").await;
    f.fault(route.initiation(), "latency=400ms", 1).await;
    let in_flight = f.id(route, "in-flight-at-expiry");
    let (created, first) = tokio::join!(f.create(route, &in_flight, "05"), async {
        // The row is written before the initiation leaves: the expiry sees it while it travels.
        eventually("the in-flight collection's row", PATIENCE, async || {
            let pending = f.pending().await;
            if pending.contains(&in_flight) {
                Ok(())
            } else {
                Err(pending)
            }
        })
        .await;
        expiry::run_once(&f.app.gateway.payments, later(901_000)).await.unwrap()
    });
    assert_eq!(created.status, StatusCode::ACCEPTED, "{route}: {}", created.body);
    assert_eq!(
        (first.examined, first.settled),
        (2, 0),
        "{route}: \"not received\" is not final while our initiation may be on its way"
    );
    assert_eq!(f.status(&in_flight).await, "PENDING", "{route}");
    assert_eq!(f.status(&lost).await, "PENDING", "{route}");
    f.past_the_delay().await;
    let wait = reconcile::missing_for_good_after(f.app.gateway.config()).as_millis() as i64;
    let last = expiry::run_once(&f.app.gateway.payments, later(901_000 + wait + 1_000))
        .await
        .unwrap();
    assert_eq!((last.examined, last.settled), (2, 2), "{route}: asked again once final");
    assert_eq!(f.status(&in_flight).await, "SUCCESSFUL", "{route}: paid, never expired");
    assert_eq!(f.counts(&in_flight).await, (1, 1), "{route}");
    assert_eq!(f.status(&lost).await, "FAILED", "{route}");
    assert_eq!(
        f.record(&lost).await.failure_code,
        Some(FailureCode::Expired),
        "{route}"
    );
    assert_eq!(f.counts(&lost).await, (1, 0), "{route}: never executed, never resent");
}

both_backends!(TestApp::spawn => simulated_callbacks_after_a_transfer_settled_change_nothing);

/// The simulator's transfers settled by the reconciler before the simulated callbacks ran
/// (workers behind): their callbacks, late and then again, change nothing. (Collections:
/// workers::final_states_never_change.)
async fn simulated_callbacks_after_a_transfer_settled_change_nothing(app: TestApp) {
    let token = app.sandbox_token().await;
    let ids = [("t02", "0701020302"), ("t03", "0701020303")];
    for (id, phone) in ids {
        let a = post(
            &app,
            &token,
            "/v1/transfer/mobile-money",
            &transfer_v1(id, phone, "DELTA_MONEY_CI", "1000"),
        )
        .await;
        assert_eq!(a.status, StatusCode::ACCEPTED, "{}", a.body);
    }
    let report = reconciler::run_once(&app.gateway.payments, later(31_000))
        .await
        .unwrap();
    assert_eq!(report.settled, 2, "settled by polling");
    let tenant = app.sandbox_tenant();
    let snapshot = || async {
        let mut shown = Vec::new();
        for (id, _) in ids {
            let t = app
                .gateway
                .payments
                .transaction(&tenant, &TransactionRef::from(id))
                .await
                .unwrap()
                .transaction;
            shown.push(format!(
                "{:?}",
                (t.status, t.updated_at, t.failure_code, t.failure_reason)
            ));
        }
        shown
    };
    let settled = snapshot().await;
    assert!(
        settled[0].starts_with("(Successful") && settled[1].starts_with("(Failed"),
        "{settled:?}"
    );
    for at in [31_000, 35_000] {
        let report = callbacks::run_once(&app.gateway.payments, later(at)).await.unwrap();
        assert_eq!(report.settled, 0, "a late or repeated callback settles nothing");
    }
    assert_eq!(snapshot().await, settled, "nothing changes once final");
    let balance = answer(app.get("/v1/balance").bearer_auth(&token)).await;
    assert_eq!(balance.body["data"]["reserved"], "0", "{}", balance.body);
    app.assert_ledger().await;
}
