//! Faults of the call that starts a payment (`operator_faults.rs` runs them on each route):
//! nothing sent fails at once; a refusal fails with the operator's reason; anything after
//! sending stays `PENDING` until the operator tells; a payment the operator never received is
//! sent again once with the same key, and fails `NOT_SENT` when that does not help, once no send
//! of ours can still arrive.

use momo_gateway::domain::FailureCode;
use momo_gateway::reconcile::{self, reconciler};
use reqwest::StatusCode;

use crate::support::helpers::{later, Answer};
use crate::support::operator_faults::{Faulted, Route, WaveCollection, BREAKER_COOL_DOWN};

/// A v1 answer of 503: the transaction `FAILED` with `OPERATOR_UNAVAILABLE` in `data`.
fn assert_unavailable(route: Route, a: &Answer) {
    assert_eq!(a.status, StatusCode::SERVICE_UNAVAILABLE, "{route}: {}", a.body);
    assert_eq!(a.body["message"], "ServiceUnavailableError", "{route}");
    assert_eq!(a.body["data"]["status"], "FAILED", "{route}: {}", a.body);
}

/// Nothing listens where the operator should be: 503 at once in both dialects.
pub async fn connection_refused(f: &Faulted, route: Route) {
    let id = f.id(route, "refused");
    assert_unavailable(route, &f.create(route, &id, "01").await);
    let t = f.record(&id).await;
    assert_eq!(t.failure_code, Some(FailureCode::OperatorUnavailable), "{route}");
    let a = f.create_v2(route, &f.id(route, "refused-v2"), "01").await;
    assert_eq!(
        (a.status, a.body["message"].as_str()),
        (StatusCode::SERVICE_UNAVAILABLE, Some("OPERATOR_IS_UNAVAILABLE")),
        "{route}: {}",
        a.body
    );
    let report = reconciler::run_once(&f.app.gateway.payments, later(60_000))
        .await
        .unwrap();
    assert_eq!(report.examined, 0, "{route}: nothing left for the reconciler");
}

/// The operator refuses our credentials before any payment call: 503, and the payment was
/// never sent (MoMo: the token is refused, so no request to pay leaves; Wave: the call is refused
/// before anything is executed).
pub async fn credentials_refused(f: &Faulted, route: Route) {
    let (on, refusals) = if route.is_momo() {
        ("momo.token", ["status=401", "status=503"])
    } else {
        (route.initiation(), ["status=401", "status=429"])
    };
    for (n, refusal) in refusals.into_iter().enumerate() {
        f.fault(on, refusal, 1).await;
        let id = f.id(route, &format!("creds{n}"));
        assert_unavailable(route, &f.create(route, &id, "01").await);
        let t = f.record(&id).await;
        assert_eq!(
            t.failure_code,
            Some(FailureCode::OperatorUnavailable),
            "{route} {refusal}"
        );
        let received = u64::from(!route.is_momo());
        assert_eq!(
            f.counts(&id).await,
            (received, 0),
            "{route} {refusal}: no payment executed"
        );
    }
}

/// Five initiations cut by a reset (ambiguous: each stays PENDING) open the operator's breaker:
/// the sixth fails at once without reaching the operator. After the cool-down, the reconciler's
/// checks probe the operator, find the five never received, and send each again once.
pub async fn breaker_opens(f: &Faulted, route: Route) {
    f.fault(route.initiation(), "reset", 5).await;
    let cut: Vec<String> = (0..5).map(|i| f.id(route, &format!("cut{i}"))).collect();
    for id in &cut {
        f.pending_payment(route, id, "01").await;
        assert_eq!(f.counts(id).await, (1, 0), "{route}: {id} reached it, never executed");
    }
    let fast = f.id(route, "fast");
    assert_unavailable(route, &f.create(route, &fast, "01").await);
    assert_eq!(
        f.counts(&fast).await,
        (0, 0),
        "{route}: the open breaker never called the operator"
    );
    f.app.gateway.breaker_clock().advance(BREAKER_COOL_DOWN);
    f.drain().await;
    for id in &cut {
        assert_eq!(f.status(id).await, "SUCCESSFUL", "{route}: {id}");
        assert_eq!(f.counts(id).await, (2, 1), "{route}: {id} sent again once, paid once");
    }
    assert_eq!(f.status(&fast).await, "FAILED", "{route}: final stays final");
}

/// A 4xx at initiation: `FAILED` at once with the operator's reason, 504, never sent again.
pub async fn refused(f: &Faulted, route: Route) {
    f.fault(route.initiation(), "status=400", 1).await;
    let id = f.id(route, "4xx");
    let a = f.create(route, &id, "01").await;
    assert_eq!(a.status, StatusCode::GATEWAY_TIMEOUT, "{route}: {}", a.body);
    assert_eq!(a.body["message"], "GatewayTimeoutError", "{route}");
    assert_eq!(a.body["data"]["status"], "FAILED", "{route}");
    let t = f.record(&id).await;
    assert_eq!(t.failure_code, Some(route.refusal_code()), "{route}");
    let reason = t.failure_reason.unwrap_or_default();
    assert!(reason.contains("400"), "{route}: the operator's answer in {reason:?}");
    assert_eq!(f.counts(&id).await, (1, 0), "{route}: refused before executing");
    let report = reconciler::run_once(&f.app.gateway.payments, later(60_000))
        .await
        .unwrap();
    assert_eq!(report.examined, 0, "{route}: a refusal is final");
    assert_eq!(f.counts(&id).await, (1, 0), "{route}: never sent again");
}

/// The operator executes the payment (row 01: paid at once), then its answer is lost (`fault`):
/// 202 `PENDING`, never `FAILED`, until its callback or a status check settles it.
pub async fn after_sending(f: &Faulted, route: Route, fault: &str) {
    f.fault(route.initiation(), fault, 1).await;
    let id = f.id(route, fault.split('=').next().unwrap());
    f.pending_payment(route, &id, "01").await;
    assert_eq!(f.counts(&id).await, (1, 1), "{route} {fault}: executed");
    if route.calls_back() {
        assert_eq!(f.settled(&id).await, "SUCCESSFUL", "{route} {fault}: by its callback");
    } else {
        assert_eq!(f.status(&id).await, "PENDING", "{route} {fault}: no callback comes");
        let report = reconciler::run_once(&f.app.gateway.payments, later(60_000))
            .await
            .unwrap();
        assert_eq!(report.settled, 1, "{route} {fault}: by a status check");
        assert_eq!(f.status(&id).await, "SUCCESSFUL", "{route} {fault}");
    }
    assert_eq!(f.record(&id).await.failure_code, None, "{route} {fault}");
    assert_eq!(f.counts(&id).await, (1, 1), "{route} {fault}: never sent again");
}

/// A 5xx that executed nothing: `PENDING`; the status check finds it never arrived and sends it
/// again, once, with the same key; it settles as the resend does.
pub async fn never_arrived(f: &Faulted, route: Route) {
    f.fault(route.initiation(), "status=503", 1).await;
    let id = f.id(route, "lost");
    f.pending_payment(route, &id, "01").await;
    assert_eq!(f.counts(&id).await, (1, 0), "{route}: never executed");
    f.drain().await;
    assert_eq!(f.status(&id).await, "SUCCESSFUL", "{route}: settled as the resend");
    assert_eq!(f.counts(&id).await, (2, 1), "{route}: sent twice, executed once");
    if route == WaveCollection {
        // The payer pays on the session the resend created: the merchant must be able to send
        // them there.
        let key = f.record(&id).await.id;
        let session = f.emulator_get(&format!("payments/{key}")).await;
        assert_eq!(
            f.lookup(&id).await["redirectUrl"],
            session["wire"]["wave_launch_url"],
            "{route}: the resent session's launch URL is kept"
        );
    }
}

/// Never arrived, and the resend is lost the same way: the next check fails it `NOT_SENT`, and
/// it is never sent a third time.
pub async fn never_arrived_twice(f: &Faulted, route: Route) {
    f.fault(route.initiation(), "status=503", 2).await;
    let id = f.id(route, "lost2");
    f.pending_payment(route, &id, "01").await;
    let report = reconciler::run_once(&f.app.gateway.payments, later(60_000))
        .await
        .unwrap();
    assert_eq!(
        (report.examined, report.settled),
        (1, 0),
        "{route}: resent, unknown again"
    );
    assert_eq!(f.counts(&id).await, (2, 0), "{route}: sent again once, lost again");
    assert_eq!(f.status(&id).await, "PENDING", "{route}");
    let report = reconciler::run_once(&f.app.gateway.payments, later(100_000))
        .await
        .unwrap();
    assert_eq!(report.settled, 1, "{route}: still never received, already resent");
    assert_eq!(f.status(&id).await, "FAILED", "{route}");
    assert_eq!(f.record(&id).await.failure_code, Some(FailureCode::NotSent), "{route}");
    assert_eq!(f.counts(&id).await, (2, 0), "{route}: never a third time");
}

/// Never arrived, and first asked about more than ten minutes later: too old to send again, it
/// fails `NOT_SENT` once that "not received" is final, without a resend.
pub async fn never_arrived_long_ago(f: &Faulted, route: Route) {
    f.fault(route.initiation(), "status=503", 1).await;
    let id = f.id(route, "old");
    f.pending_payment(route, &id, "01").await;
    let report = reconciler::run_once(&f.app.gateway.payments, later(700_000))
        .await
        .unwrap();
    assert_eq!((report.examined, report.settled), (1, 0), "{route}: found missing");
    assert_eq!(f.status(&id).await, "PENDING", "{route}");
    let wait = reconcile::missing_for_good_after(f.app.gateway.config()).as_millis() as i64;
    let report = reconciler::run_once(&f.app.gateway.payments, later(700_000 + wait + 1_000))
        .await
        .unwrap();
    assert_eq!((report.examined, report.settled), (1, 1), "{route}: missing for good");
    assert_eq!(f.status(&id).await, "FAILED", "{route}");
    assert_eq!(f.record(&id).await.failure_code, Some(FailureCode::NotSent), "{route}");
    assert_eq!(f.counts(&id).await, (1, 0), "{route}: too old to send again");
}
