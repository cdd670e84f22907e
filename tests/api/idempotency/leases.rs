//! Which answers an `Idempotency-Key` keeps, and the lease of a request in flight: a request
//! refused before it wrote anything lets its key go (like its transaction id), and a key held
//! by a request whose process died is in flight until its lease lapses, after which a retry
//! runs again and the transaction id keeps it from paying twice.

use momo_gateway::domain::IdempotencyKey;
use momo_gateway::service::{Admission, RequestShape};
use reqwest::StatusCode;
use serde_json::Value;

use crate::idempotency::keys::{post_keyed, replayed, transactions};
use crate::support::helpers::{later, TestApp};
use crate::support::requests::{collect_v1, post};
use momo_test_support::both_backends;

both_backends!(
    TestApp::spawn =>
    a_request_refused_before_it_wrote_anything_lets_its_key_go,
    a_key_held_by_a_dead_request_is_in_flight_until_its_lease_lapses,
);

const PATH: &str = "/v1/collecte/mobile-money";

/// Claims `key` for `body` at `at`, as a process that then died before answering would have.
async fn claimed_by_a_dead_process(app: &TestApp, key: &str, body: &Value, at: i64) {
    let bytes = serde_json::to_vec(body).unwrap();
    let shape = RequestShape {
        method: "POST",
        target: PATH,
        body: &bytes,
    };
    let key = IdempotencyKey::parse(key).unwrap();
    let admission = app
        .gateway
        .idempotency
        .admit(&app.sandbox_tenant(), &key, shape, later(at))
        .await
        .unwrap();
    assert!(matches!(admission, Admission::Run(_)), "{admission:?}");
}

async fn a_request_refused_before_it_wrote_anything_lets_its_key_go(app: TestApp) {
    let token = app.sandbox_token().await;
    let too_small = collect_v1("refused-1", "0701020302", "ALPHA_MONEY_CI", "99");
    let a = post_keyed(&app, &token, PATH, "attempt-1", &too_small).await;
    assert_eq!(a.status, StatusCode::FORBIDDEN, "{}", a.body);
    // Not kept: the same request runs again (and is refused again, not replayed) ...
    let a = post_keyed(&app, &token, PATH, "attempt-1", &too_small).await;
    assert_eq!(a.status, StatusCode::FORBIDDEN);
    assert!(!replayed(&a), "a refusal before anything was written is not kept");
    // ... and the corrected request may take the key: it is not 422.
    let fixed = collect_v1("refused-1", "0701020302", "ALPHA_MONEY_CI", "1500");
    let a = post_keyed(&app, &token, PATH, "attempt-1", &fixed).await;
    assert_eq!(a.status, StatusCode::ACCEPTED, "{}", a.body);
    assert!(!replayed(&a));
    let a = post_keyed(&app, &token, PATH, "attempt-1", &fixed).await;
    assert!(replayed(&a), "what took effect is kept");
    assert_eq!(transactions(&app, &token).await.len(), 1);
}

async fn a_key_held_by_a_dead_request_is_in_flight_until_its_lease_lapses(app: TestApp) {
    let token = app.sandbox_token().await;
    // Claimed a moment ago: in flight, whatever the body.
    let body = collect_v1("dead-1", "0701020302", "ALPHA_MONEY_CI", "1500");
    claimed_by_a_dead_process(&app, "dead-key-1", &body, 0).await;
    let a = post_keyed(&app, &token, PATH, "dead-key-1", &body).await;
    assert_eq!(a.status, StatusCode::CONFLICT, "{}", a.body);
    assert_eq!(a.body["message"], "IdempotencyKeyInUseError");
    // Claimed 200 s ago, past the lease (90 s by default): the retry runs, and its answer is kept.
    let body = collect_v1("dead-2", "0701020302", "ALPHA_MONEY_CI", "1500");
    claimed_by_a_dead_process(&app, "dead-key-2", &body, -200_000).await;
    let a = post_keyed(&app, &token, PATH, "dead-key-2", &body).await;
    assert_eq!(a.status, StatusCode::ACCEPTED, "{}", a.body);
    assert!(!replayed(&a));
    assert!(replayed(&post_keyed(&app, &token, PATH, "dead-key-2", &body).await));
    // A lapsed lease is the same request's only: another body still meets the key's first one.
    let body = collect_v1("dead-3", "0701020302", "ALPHA_MONEY_CI", "1500");
    claimed_by_a_dead_process(&app, "dead-key-3", &body, -200_000).await;
    let other = collect_v1("dead-4", "0701020302", "ALPHA_MONEY_CI", "1500");
    let a = post_keyed(&app, &token, PATH, "dead-key-3", &other).await;
    assert_eq!(a.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", a.body);
    // The dead request had created its payment: the retry meets the transaction id's
    // uniqueness, and gets the existing transaction, with no second payment.
    let body = collect_v1("dead-5", "0701020302", "ALPHA_MONEY_CI", "1500");
    let created = post(&app, &token, PATH, &body).await;
    assert_eq!(created.status, StatusCode::ACCEPTED);
    claimed_by_a_dead_process(&app, "dead-key-5", &body, -200_000).await;
    let a = post_keyed(&app, &token, PATH, "dead-key-5", &body).await;
    assert_eq!(a.status, StatusCode::CONFLICT, "{}", a.body);
    assert_eq!(a.body["message"], "ConflictError");
    assert_eq!(a.body["data"]["ref"], created.body["data"]["ref"]);
    assert_eq!(transactions(&app, &token).await.len(), 2, "dead-2 and dead-5");
    app.assert_ledger().await;
}
