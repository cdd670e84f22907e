//! The payment lifecycle at the operator boundary: one last status check before a collection
//! expires, a payment the operator never received, and the circuit breaker of a dead operator.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use async_trait::async_trait;
use momo_gateway::domain::{FailureCode, Timestamp, Transaction, TransactionRef};
use momo_gateway::operator::{Operator, OperatorAnswer, OperatorError, OperatorRequest};
use momo_gateway::reconcile::callbacks::{self, Watermark};
use momo_gateway::reconcile::{expiry, reconciler};
use momo_gateway::store::DueChecks;
use reqwest::StatusCode;
use serde_json::Value;

use crate::support::helpers::{answer, later, TestApp};
use crate::support::requests::{collect_v1, post, transfer_v1};
use momo_test_support::both_backends;

both_backends!(
    TestApp::spawn =>
    expiry_asks_the_operator_one_last_time,
    expiry_waits_while_the_operator_cannot_be_asked,
    a_payment_the_operator_never_received_fails_not_sent,
    a_dead_operator_opens_its_breaker_and_answers_503_at_once,
    simulated_callbacks_read_only_what_became_due,
    a_status_check_is_claimed_by_one_reconciler_at_a_time,
);

/// An operator scripted by the test: what `initiate` and `status` answer, and how often each
/// was called.
struct Scripted {
    initiate: Result<OperatorAnswer, OperatorError>,
    status: Result<OperatorAnswer, OperatorError>,
    initiations: AtomicUsize,
}

impl Scripted {
    fn new(
        initiate: Result<OperatorAnswer, OperatorError>,
        status: Result<OperatorAnswer, OperatorError>,
    ) -> Arc<Scripted> {
        Arc::new(Scripted {
            initiate,
            status,
            initiations: AtomicUsize::new(0),
        })
    }
}

#[async_trait]
impl Operator for Scripted {
    async fn initiate(&self, _: &OperatorRequest<'_>) -> Result<OperatorAnswer, OperatorError> {
        self.initiations.fetch_add(1, Ordering::SeqCst);
        self.initiate.clone()
    }

    async fn status(&self, _: &Transaction, _: Timestamp) -> Result<OperatorAnswer, OperatorError> {
        self.status.clone()
    }

    fn callback(&self, _: &Transaction, _: Timestamp) -> Option<OperatorAnswer> {
        None
    }
}

async fn status_of(app: &TestApp, token: &str, id: &str) -> Value {
    let a = answer(app.get(&format!("/v2/get-status-payment/{id}")).bearer_auth(token)).await;
    assert_eq!(a.status, StatusCode::OK, "{id}: {}", a.body);
    a.body["data"].clone()
}

async fn expiry_asks_the_operator_one_last_time(app: TestApp) {
    let token = app.sandbox_token().await;
    // 02: the payer approved after the delay, but no callback was processed (workers behind).
    for (id, phone) in [("paid", "0701020302"), ("never", "0701020306")] {
        let a = post(
            &app,
            &token,
            "/v1/collecte/mobile-money",
            &collect_v1(id, phone, "GAMMA_MONEY_CI", "1000"),
        )
        .await;
        assert_eq!(a.status, StatusCode::ACCEPTED, "{}", a.body);
    }
    let report = expiry::run_once(&app.gateway.payments, later(901_000)).await.unwrap();
    assert_eq!((report.examined, report.settled), (2, 2));
    assert_eq!(
        status_of(&app, &token, "paid").await["status"],
        "SUCCESSFUL",
        "a paid collection is never expired"
    );
    assert_eq!(status_of(&app, &token, "never").await["status"], "FAILED");
    let tenant = app.sandbox_tenant();
    let never = app
        .gateway
        .payments
        .transaction(&tenant, &TransactionRef::from("never"))
        .await
        .unwrap();
    assert_eq!(never.transaction.failure_code, Some(FailureCode::Expired));
    let paid = app
        .gateway
        .payments
        .transaction(&tenant, &TransactionRef::from("paid"))
        .await
        .unwrap();
    assert_eq!(paid.transaction.failure_code, None);
    app.assert_ledger().await;
}

async fn expiry_waits_while_the_operator_cannot_be_asked(mut app: TestApp) {
    let down = Scripted::new(
        Ok(OperatorAnswer::Pending),
        Err(OperatorError::Transient("connection refused".into())),
    );
    app.replace_operator(down).await;
    let token = app.sandbox_token().await;
    post(
        &app,
        &token,
        "/v1/collecte/mobile-money",
        &collect_v1("unknown", "0701020307", "ALPHA_MONEY_CI", "1000"),
    )
    .await;
    let report = expiry::run_once(&app.gateway.payments, later(901_000)).await.unwrap();
    assert_eq!((report.examined, report.settled), (1, 0), "nothing expires on a guess");
    assert_eq!(status_of(&app, &token, "unknown").await["status"], "PENDING");
    app.assert_ledger().await;
}

async fn a_payment_the_operator_never_received_fails_not_sent(mut app: TestApp) {
    // The initiation times out (ambiguous): it may or may not have arrived. The status check
    // then says the operator never received it.
    let lost = Scripted::new(
        Err(OperatorError::Ambiguous("timed out".into())),
        Ok(OperatorAnswer::NotReceived),
    );
    app.replace_operator(lost.clone()).await;
    let token = app.sandbox_token().await;
    let a = post(
        &app,
        &token,
        "/v1/transfer/mobile-money",
        &transfer_v1("lost", "0701020307", "DELTA_MONEY_CI", "1000"),
    )
    .await;
    assert_eq!(a.status, StatusCode::ACCEPTED, "{}", a.body);
    assert_eq!(a.body["data"]["status"], "PENDING", "ambiguous is never a failure");
    // First check: never received, so it is sent again, once, with the same key (and that
    // times out too).
    let report = reconciler::run_once(&app.gateway.payments, later(60_000))
        .await
        .unwrap();
    assert_eq!(report.settled, 0);
    assert_eq!(lost.initiations.load(Ordering::SeqCst), 2, "sent again once");
    assert_eq!(status_of(&app, &token, "lost").await["status"], "PENDING");
    // Next check: still never received, and already resent: it fails.
    let report = reconciler::run_once(&app.gateway.payments, later(120_000))
        .await
        .unwrap();
    assert_eq!(report.settled, 1);
    assert_eq!(status_of(&app, &token, "lost").await["status"], "FAILED");
    let tenant = app.sandbox_tenant();
    let failed = app
        .gateway
        .payments
        .transaction(&tenant, &TransactionRef::from("lost"))
        .await
        .unwrap();
    assert_eq!(failed.transaction.failure_code, Some(FailureCode::NotSent));
    assert_eq!(lost.initiations.load(Ordering::SeqCst), 2, "never a third time");
    // The reservation is released: the balance is what it was.
    let balance = answer(app.get("/v1/balance").bearer_auth(&token)).await;
    assert_eq!(balance.body["data"]["reserved"], "0", "{}", balance.body);
    assert_eq!(balance.body["data"]["available"], "10000000", "{}", balance.body);
    app.assert_ledger().await;
}

async fn a_dead_operator_opens_its_breaker_and_answers_503_at_once(mut app: TestApp) {
    let dead = Scripted::new(
        Err(OperatorError::Transient("connection refused".into())),
        Err(OperatorError::Transient("connection refused".into())),
    );
    app.replace_operator(dead.clone()).await;
    let token = app.sandbox_token().await;
    for i in 0..7 {
        let a = post(
            &app,
            &token,
            "/v1/collecte/mobile-money",
            &collect_v1(&format!("dead-{i}"), "0701020307", "ALPHA_MONEY_CI", "1000"),
        )
        .await;
        assert_eq!(a.status, StatusCode::SERVICE_UNAVAILABLE, "{}", a.body);
        assert_eq!(a.body["data"]["status"], "FAILED");
    }
    assert_eq!(
        dead.initiations.load(Ordering::SeqCst),
        5,
        "after 5 failures the breaker answers without calling the operator"
    );
    // Another operator is not affected.
    let a = post(
        &app,
        &token,
        "/v1/collecte/mobile-money",
        &collect_v1("gamma", "0701020307", "GAMMA_MONEY_CI", "1000"),
    )
    .await;
    assert_eq!(a.status, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(dead.initiations.load(Ordering::SeqCst), 6, "GAMMA's breaker is closed");
    let metrics = app.get("/metrics").send().await.unwrap().text().await.unwrap();
    assert!(
        metrics.contains("momo_operator_breaker_state{operator=\"ALPHA\"} 2"),
        "{metrics}"
    );
    assert!(
        metrics.contains("momo_operator_calls_total{operator=\"ALPHA\",call=\"initiate\",outcome=\"circuit_open\"} 2"),
        "{metrics}"
    );
    app.assert_ledger().await;
}

async fn simulated_callbacks_read_only_what_became_due(app: TestApp) {
    let token = app.sandbox_token().await;
    // A backlog that never resolves (06), then one payment that does (02).
    for i in 0..5 {
        post(
            &app,
            &token,
            "/v1/collecte/mobile-money",
            &collect_v1(&format!("stuck-{i}"), "0701020306", "GAMMA_MONEY_CI", "1000"),
        )
        .await;
    }
    let watermark = Watermark::default();
    let first = callbacks::run_after(&app.gateway.payments, later(2_500), &watermark, None)
        .await
        .unwrap();
    assert_eq!((first.examined, first.settled), (5, 0));
    let again = callbacks::run_after(&app.gateway.payments, later(3_000), &watermark, None)
        .await
        .unwrap();
    assert_eq!(again.examined, 0, "the backlog is not read again");
    post(
        &app,
        &token,
        "/v1/collecte/mobile-money",
        &collect_v1("due", "0701020302", "GAMMA_MONEY_CI", "1000"),
    )
    .await;
    let next = callbacks::run_after(&app.gateway.payments, later(2_500), &watermark, None)
        .await
        .unwrap();
    assert_eq!((next.examined, next.settled), (1, 1), "only what became due");
    assert_eq!(status_of(&app, &token, "due").await["status"], "SUCCESSFUL");
    app.assert_ledger().await;
}

async fn a_status_check_is_claimed_by_one_reconciler_at_a_time(app: TestApp) {
    let token = app.sandbox_token().await;
    for i in 0..3 {
        post(
            &app,
            &token,
            "/v1/collecte/mobile-money",
            &collect_v1(&format!("due-{i}"), "0701020306", "GAMMA_MONEY_CI", "1000"),
        )
        .await;
    }
    // Two processes' reconcilers, on their own connections, claiming at the same moment.
    let one = momo_gateway::store::connect(&app.database_url).await.unwrap();
    let two = momo_gateway::store::connect(&app.database_url).await.unwrap();
    let (now, lease) = (later(60_000), later(180_000));
    let (a, b) = tokio::join!(
        one.claim_due_checks(DueChecks {
            now,
            created_before: now,
            kind: None,
            lease_until: lease,
            limit: 2
        }),
        two.claim_due_checks(DueChecks {
            now,
            created_before: now,
            kind: None,
            lease_until: lease,
            limit: 2
        })
    );
    let ids = |claimed: Vec<momo_gateway::domain::TransactionRecord>| -> Vec<String> {
        claimed
            .into_iter()
            .map(|r| r.transaction.transaction_id.into_string())
            .collect()
    };
    let (a, b) = (ids(a.unwrap()), ids(b.unwrap()));
    assert_eq!(a.len() + b.len(), 3, "every due check claimed: {a:?} {b:?}");
    assert!(a.iter().all(|id| !b.contains(id)), "never claimed twice: {a:?} {b:?}");
    assert!(
        one.claim_due_checks(DueChecks {
            now,
            created_before: now,
            kind: None,
            lease_until: lease,
            limit: 10
        })
        .await
        .unwrap()
        .is_empty(),
        "leased"
    );
    let after_the_lease = later(181_000);
    assert_eq!(
        one.claim_due_checks(DueChecks {
            now: after_the_lease,
            created_before: after_the_lease,
            kind: None,
            lease_until: later(300_000),
            limit: 10
        })
        .await
        .unwrap()
        .len(),
        3,
        "a lease that runs out makes them due again"
    );
}
