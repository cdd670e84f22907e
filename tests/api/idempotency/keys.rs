//! `Idempotency-Key` on the merchant's POSTs: a retry after a lost answer replays it and pays
//! once, concurrent requests with one key make one operator call, another body is 422, a key
//! expires and is purged, a key over 255 characters is 400; in both generations, for customers
//! and for the webhook secret rotation. The lease of a crashed request and the answers that
//! let their key go are in `idempotency_leases.rs`.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use momo_gateway::app::{self, Server};
use momo_gateway::domain::{Timestamp, Transaction};
use momo_gateway::operator::{Operator, OperatorAnswer, OperatorError, OperatorRequest};
use momo_gateway::reconcile::idempotency_keys;
use reqwest::StatusCode;
use serde_json::{json, Value};
use tokio::sync::{Notify, Semaphore};

use crate::support::helpers::{answer, later, Answer, TestApp};
use crate::support::requests::{collect_v1, collect_v2, transfer_v2};
use momo_test_support::{both_backends, eventually};

both_backends!(
    TestApp::spawn_production_simulated =>
    the_same_key_with_another_request_is_422_in_the_generation_of_the_path,
);

both_backends!(
    TestApp::spawn =>
    a_retry_after_a_lost_answer_replays_it_and_pays_once,
    twenty_concurrent_requests_with_one_key_make_one_operator_call,
    two_gateways_on_one_database_run_a_key_once,
    a_key_is_kept_a_day_then_purged_and_free_again,
    a_key_over_255_characters_is_400,
    a_customer_creation_and_a_webhook_secret_rotation_replay_their_first_answer,
);

/// An operator that holds every initiation until the test opens its gate, and counts them.
pub struct Gated {
    pub initiations: AtomicUsize,
    entered: Notify,
    gate: Semaphore,
}

impl Gated {
    pub fn new() -> Arc<Gated> {
        Arc::new(Gated {
            initiations: AtomicUsize::new(0),
            entered: Notify::new(),
            gate: Semaphore::new(0),
        })
    }

    /// Waits until an initiation has reached the operator.
    pub async fn entered(&self) {
        tokio::time::timeout(Duration::from_secs(30), self.entered.notified())
            .await
            .expect("an initiation reaches the operator");
    }

    /// Lets every initiation, held or to come, through.
    pub fn open(&self) {
        self.gate.add_permits(Semaphore::MAX_PERMITS / 2);
    }

    pub fn calls(&self) -> usize {
        self.initiations.load(Ordering::SeqCst)
    }
}

#[async_trait]
impl Operator for Gated {
    async fn initiate(&self, _: &OperatorRequest<'_>) -> Result<OperatorAnswer, OperatorError> {
        self.initiations.fetch_add(1, Ordering::SeqCst);
        self.entered.notify_one();
        let _pass = self.gate.acquire().await;
        Ok(OperatorAnswer::Pending)
    }

    async fn status(&self, _: &Transaction, _: Timestamp) -> Result<OperatorAnswer, OperatorError> {
        Ok(OperatorAnswer::Pending)
    }

    fn callback(&self, _: &Transaction, _: Timestamp) -> Option<OperatorAnswer> {
        None
    }
}

/// Sends `body` to `path` with `token` and `key` as the `Idempotency-Key`.
pub async fn post_keyed(app: &TestApp, token: &str, path: &str, key: &str, body: &Value) -> Answer {
    answer(
        app.post(path)
            .bearer_auth(token)
            .header("Idempotency-Key", key)
            .json(body),
    )
    .await
}

/// Whether an answer is a replay of a kept one.
pub fn replayed(a: &Answer) -> bool {
    a.header("idempotent-replayed") == Some("true")
}

/// The tenant's transactions, as the merchant lists them.
pub async fn transactions(app: &TestApp, token: &str) -> Vec<Value> {
    let list = answer(app.get("/v1/transactions").bearer_auth(token)).await;
    assert_eq!(list.status, StatusCode::OK);
    list.body["data"].as_array().expect("a list").clone()
}

/// Retries `attempt` until it is no longer answered 409 in flight, for work that finishes in
/// the background; at most 30 s.
async fn once_answered(mut attempt: impl AsyncFnMut() -> Answer) -> Answer {
    eventually("the first request to finish", Duration::from_secs(30), async || {
        let a = attempt().await;
        if a.status != StatusCode::CONFLICT {
            return Ok(a);
        }
        assert_eq!(a.body["message"], "IdempotencyKeyInUseError", "{}", a.body);
        Err(a.body)
    })
    .await
}

async fn a_retry_after_a_lost_answer_replays_it_and_pays_once(mut app: TestApp) {
    let operator = Gated::new();
    app.replace_operator(operator.clone()).await;
    let token = app.sandbox_token().await;
    let body = collect_v1("lost-1", "0701020302", "ALPHA_MONEY_CI", "1500");
    // The first request reaches the operator, and its client gives up: it never reads the answer.
    let first = app
        .post("/v1/collecte/mobile-money")
        .bearer_auth(&token)
        .header("Idempotency-Key", "order-1234")
        .json(&body)
        .send();
    let client = tokio::spawn(first);
    operator.entered().await;
    client.abort();
    assert!(client.await.is_err(), "the client gave up before the answer");
    // While the first request waits on the operator, a retry is told it is in flight.
    let early = post_keyed(&app, &token, "/v1/collecte/mobile-money", "order-1234", &body).await;
    assert_eq!(early.status, StatusCode::CONFLICT, "{}", early.body);
    assert_eq!(early.body["message"], "IdempotencyKeyInUseError");
    assert!(early.body.get("data").is_none(), "no transaction to show yet");
    assert!(!replayed(&early));
    operator.open();
    let retry =
        once_answered(async || post_keyed(&app, &token, "/v1/collecte/mobile-money", "order-1234", &body).await).await;
    assert_eq!(retry.status, StatusCode::ACCEPTED, "{}", retry.body);
    assert!(replayed(&retry), "the retry is the first answer, replayed");
    assert_eq!(retry.body["data"]["transactionId"], "lost-1");
    assert_eq!(retry.body["data"]["status"], "PENDING");
    let again = post_keyed(&app, &token, "/v1/collecte/mobile-money", "order-1234", &body).await;
    assert_eq!(again.body, retry.body, "every replay is the same answer");
    assert_eq!(operator.calls(), 1, "one operator call");
    let list = transactions(&app, &token).await;
    assert_eq!(list.len(), 1, "one transaction");
    assert_eq!(list[0]["ref"], retry.body["data"]["ref"]);
    app.assert_ledger().await;
}

async fn twenty_concurrent_requests_with_one_key_make_one_operator_call(mut app: TestApp) {
    let operator = Gated::new();
    app.replace_operator(operator.clone()).await;
    let token = app.sandbox_token().await;
    let body = transfer_v2("burst-1", json!("0701020302"), "GAMMA_MONEY_CI", json!(1000));
    let mut requests = tokio::task::JoinSet::new();
    for _ in 0..20 {
        let request = app
            .post("/v2/transfers/mobile-money")
            .bearer_auth(&token)
            .header("Idempotency-Key", "payout-77")
            .json(&body);
        requests.spawn(answer(request));
    }
    // The operator holds the request that claimed the key: the 19 others are answered meanwhile.
    let mut answers = Vec::new();
    for _ in 0..19 {
        answers.push(requests.join_next().await.expect("an answer").expect("request task"));
    }
    for a in &answers {
        assert_eq!(a.status, StatusCode::CONFLICT, "{}", a.body);
        assert_eq!(a.body["message"], "IDEMPOTENCY_KEY_IN_USE");
        assert_eq!(a.body["status"], "ERROR");
    }
    operator.open();
    let first = requests
        .join_next()
        .await
        .expect("the last answer")
        .expect("request task");
    assert_eq!(first.status, StatusCode::ACCEPTED, "{}", first.body);
    assert!(!replayed(&first));
    let retry = post_keyed(&app, &token, "/v2/transfers/mobile-money", "payout-77", &body).await;
    assert!(replayed(&retry));
    assert_eq!((retry.status, &retry.body), (first.status, &first.body));
    assert_eq!(operator.calls(), 1, "one operator call");
    assert_eq!(transactions(&app, &token).await.len(), 1, "one transaction");
    app.assert_ledger().await;
}

async fn two_gateways_on_one_database_run_a_key_once(app: TestApp) {
    // A second gateway, as another process would be: its own pools and writers, one database.
    let second = app::open(app.gateway.config().clone()).await.expect("a second gateway");
    let second = Server::start(second).await.expect("the second server starts");
    let bases = [app.base.clone(), format!("http://{}", second.addr)];
    let token = app.sandbox_token().await;
    let body = collect_v1("two-gateways", "0701020302", "ALPHA_MONEY_CI", "1500");
    let mut requests = tokio::task::JoinSet::new();
    for i in 0..20 {
        let request = app
            .client
            .post(format!("{}/v1/collecte/mobile-money", bases[i % 2]))
            .bearer_auth(&token)
            .header("Idempotency-Key", "shared-key")
            .json(&body);
        requests.spawn(answer(request));
    }
    let answers: Vec<Answer> = requests.join_all().await;
    let ran: Vec<&Answer> = answers
        .iter()
        .filter(|a| a.status.is_success() && !replayed(a))
        .collect();
    assert_eq!(ran.len(), 1, "one request ran");
    for a in &answers {
        if replayed(a) {
            assert_eq!((a.status, &a.body), (ran[0].status, &ran[0].body));
        } else if a.status == StatusCode::CONFLICT {
            assert_eq!(a.body["message"], "IdempotencyKeyInUseError", "{}", a.body);
        } else {
            assert!(std::ptr::eq(a, ran[0]), "unexpected {} {}", a.status, a.body);
        }
    }
    assert_eq!(transactions(&app, &token).await.len(), 1, "one transaction");
    second.stop().await.expect("the second server stops");
    app.assert_ledger().await;
}

async fn the_same_key_with_another_request_is_422_in_the_generation_of_the_path(app: TestApp) {
    let token = app.sandbox_token().await;
    let body = collect_v1("mismatch-1", "0701020302", "ALPHA_MONEY_CI", "1500");
    let first = post_keyed(&app, &token, "/v1/collecte/mobile-money", "k-1", &body).await;
    assert!(first.status.is_success(), "{}", first.body);
    for (path, other) in [
        (
            "/v1/collecte/mobile-money",
            collect_v1("mismatch-1", "0701020302", "ALPHA_MONEY_CI", "1600"),
        ),
        (
            "/v1/collecte/mobile-money",
            collect_v1("mismatch-2", "0701020302", "ALPHA_MONEY_CI", "1500"),
        ),
        // The same body on another path is another request.
        ("/v1/transfer/mobile-money", body.clone()),
    ] {
        let a = post_keyed(&app, &token, path, "k-1", &other).await;
        assert_eq!(a.status, StatusCode::UNPROCESSABLE_ENTITY, "{path}: {}", a.body);
        assert_eq!(a.body["statusCode"], 422);
        assert_eq!(a.body["message"], "IdempotencyKeyReusedError");
        assert!(a.body["reason"].as_str().unwrap().contains("Idempotency-Key"));
    }
    // v2: the v2 envelope.
    let v2 = collect_v2("mismatch-3", json!("0701020302"), "GAMMA_MONEY_CI", json!(1000));
    let a = post_keyed(&app, &token, "/v2/collecte/mobile-money", "k-2", &v2).await;
    assert!(a.status.is_success(), "{}", a.body);
    let changed = collect_v2("mismatch-3", json!("0701020302"), "GAMMA_MONEY_CI", json!(2000));
    let a = post_keyed(&app, &token, "/v2/collecte/mobile-money", "k-2", &changed).await;
    assert_eq!(a.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", a.body);
    assert_eq!(a.body["code_status"], 422);
    assert_eq!(a.body["message"], "IDEMPOTENCY_KEY_REUSED");
    // Keys belong to a merchant environment: another environment's or merchant's "k-1" is free.
    let production = app.token(&app.merchant.production.clone()).await;
    let other = app.new_merchant("Other").await;
    let other_token = app.token(&other.sandbox).await;
    for token in [&production, &other_token] {
        let a = post_keyed(&app, token, "/v1/collecte/mobile-money", "k-1", &body).await;
        assert!(a.status.is_success(), "{}", a.body);
        assert!(!replayed(&a));
    }
    assert_eq!(transactions(&app, &token).await.len(), 2, "nothing more in Sandbox");
    app.assert_ledger().await;
}

async fn a_key_is_kept_a_day_then_purged_and_free_again(app: TestApp) {
    let token = app.sandbox_token().await;
    let body = collect_v1("expiry-1", "0701020302", "ALPHA_MONEY_CI", "1500");
    let first = post_keyed(&app, &token, "/v1/collecte/mobile-money", "daily", &body).await;
    assert!(first.status.is_success(), "{}", first.body);
    const HOUR_MS: i64 = 3_600_000;
    let report = idempotency_keys::run_once(&app.gateway.idempotency, later(23 * HOUR_MS))
        .await
        .unwrap();
    assert_eq!(report.examined, 0, "nothing expires within the day");
    let a = post_keyed(&app, &token, "/v1/collecte/mobile-money", "daily", &body).await;
    assert!(replayed(&a));
    assert_eq!(a.body, first.body);
    let report = idempotency_keys::run_once(&app.gateway.idempotency, later(25 * HOUR_MS))
        .await
        .unwrap();
    assert_eq!(report.examined, 1, "the key is purged after a day");
    // The key is free again: a new request with it runs (another body is no longer 422).
    let next = collect_v1("expiry-2", "0701020302", "ALPHA_MONEY_CI", "1500");
    let a = post_keyed(&app, &token, "/v1/collecte/mobile-money", "daily", &next).await;
    assert!(a.status.is_success(), "{}", a.body);
    assert!(!replayed(&a));
    assert_eq!(a.body["data"]["transactionId"], "expiry-2");
    assert_eq!(transactions(&app, &token).await.len(), 2);
}

async fn a_key_over_255_characters_is_400(app: TestApp) {
    let token = app.sandbox_token().await;
    let body = collect_v1("long-key", "0701020302", "ALPHA_MONEY_CI", "1500");
    let long = "k".repeat(256);
    let a = post_keyed(&app, &token, "/v1/collecte/mobile-money", &long, &body).await;
    assert_eq!(a.status, StatusCode::BAD_REQUEST, "{}", a.body);
    assert_eq!(a.body["message"], "BadRequestError");
    assert!(a.body["reason"].as_str().unwrap().contains("Idempotency-Key"));
    let v2 = collect_v2("long-key", json!("0701020302"), "GAMMA_MONEY_CI", json!(1000));
    let a = post_keyed(&app, &token, "/v2/collecte/mobile-money", &long, &v2).await;
    assert_eq!(a.status, StatusCode::BAD_REQUEST, "{}", a.body);
    assert_eq!(a.body["message"], "INVALID_REQUEST");
    assert!(transactions(&app, &token).await.is_empty(), "nothing ran");
    // 255 characters is a key.
    let a = post_keyed(&app, &token, "/v1/collecte/mobile-money", &"k".repeat(255), &body).await;
    assert!(a.status.is_success(), "{}", a.body);
}

async fn a_customer_creation_and_a_webhook_secret_rotation_replay_their_first_answer(app: TestApp) {
    let token = app.sandbox_token().await;
    let customer = json!({"firstName": "Awa", "lastName": "Koné", "email": "awa@example.ci",
                          "phoneNumber": "0701020302", "address": {"countryCode": "CI"}});
    let first = post_keyed(&app, &token, "/v1/customer", "customer-1", &customer).await;
    assert_eq!(first.status, StatusCode::OK, "{}", first.body);
    let again = post_keyed(&app, &token, "/v1/customer", "customer-1", &customer).await;
    assert!(replayed(&again));
    assert_eq!(
        (again.status, &again.body),
        (first.status, &first.body),
        "the same customer"
    );
    let list = answer(app.get("/v1/customers").bearer_auth(&token)).await;
    assert_eq!(list.body["data"].as_array().unwrap().len(), 1, "one customer");
    // A rotation whose answer was lost gives the same new secret again, not a third one.
    let empty = json!({});
    let rotated = post_keyed(&app, &token, "/v1/webhooks/secret/rotate", "rotate-1", &empty).await;
    assert_eq!(rotated.status, StatusCode::OK, "{}", rotated.body);
    let replay = post_keyed(&app, &token, "/v1/webhooks/secret/rotate", "rotate-1", &empty).await;
    assert!(replayed(&replay));
    assert_eq!(
        replay.body["data"]["webhookSecret"],
        rotated.body["data"]["webhookSecret"]
    );
    let fresh = post_keyed(&app, &token, "/v1/webhooks/secret/rotate", "rotate-2", &empty).await;
    assert_ne!(
        fresh.body["data"]["webhookSecret"],
        rotated.body["data"]["webhookSecret"]
    );
}
