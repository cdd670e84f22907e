//! The requests that provoke each error code (`super`): on one gateway with the simulator, and
//! on gateways set up for the codes one cannot provoke there (a request in flight, a rate
//! limit, a broken database).

use reqwest::{RequestBuilder, StatusCode};
use serde_json::{json, Value};
use sqlx::Connection;

use super::{sent, Table};
use crate::idempotency::keys::Gated;
use crate::support::helpers::{answer, TestApp};
use crate::support::requests::{collect_v1, collect_v2, transfer_v1, transfer_v2};
use momo_test_support::Backend;

/// A body under a content type the server does not read.
fn plain_text(request: RequestBuilder) -> RequestBuilder {
    request.header("Content-Type", "text/plain").body("transaction_id=r")
}

/// The codes a gateway with the simulator answers to one merchant, in both dialects.
pub(super) async fn provoke_on_one_gateway(app: &TestApp, t: &mut Table) {
    let token = app.sandbox_token().await;
    let production = app.token(&app.merchant.production.clone()).await;
    // A collection the simulator pays at once (ending 01): 10,000 francs, 9,800 credited.
    let paid = answer(
        app.post("/v1/collecte/mobile-money")
            .bearer_auth(&token)
            .json(&collect_v1("order-1", "0701020301", "ALPHA_MONEY_CI", "10000")),
    )
    .await;
    assert_eq!(paid.status, StatusCode::OK, "{}", paid.body);
    let (post, get) = (
        |path: &str| app.post(path).bearer_auth(&token),
        |path: &str| app.get(path).bearer_auth(&token),
    );
    let big_reason = "x".repeat(70_000);

    // 400
    t.row(
        "BadRequestError",
        post("/v1/refunds").json(&json!({"collection": "order-1"})),
    )
    .await;
    t.row(
        "INVALID_REQUEST",
        post("/v2/refunds").json(&json!({"collection_id": "order-1"})),
    )
    .await;
    t.row(
        "OPERATOR_NO_SUPPORTED",
        post("/v2/collecte/mobile-money").json(&collect_v2("omega-1", json!("0701020301"), "OMEGA", json!(1000))),
    )
    .await;
    t.row(
        "TRANSACTION_ID_MAX_LENGHT_20",
        post("/v2/refunds").json(&json!({"transaction_id": "x".repeat(21), "collection_id": "order-1"})),
    )
    .await;
    // 401
    t.row("UnauthorizedError", app.get("/v1/customers")).await;
    t.row("TOKEN_EXPIRED", app.get("/v2/get-status-payment/order-1")).await;
    // 403: a negative number is a whole number out of range, as any other.
    t.row(
        "ForbiddenError",
        post("/v1/refunds").json(&json!({"transactionId": "r-1", "collection": "order-1", "amount": -500})),
    )
    .await;
    t.row("ForbiddenError", post("/v1/collecte/card/create").json(&json!({})))
        .await;
    t.row(
        "AMOUNT_OUT_OF_RANGE",
        post("/v2/refunds").json(&json!({"transaction_id": "r-2", "collection_id": "order-1", "amount": -500})),
    )
    .await;
    // The recipient check is off in Production until an administrator switches it on.
    let holder = |dialect: &str| {
        app.get(&format!("/{dialect}/account-holders/GAMMA_MONEY_CI/0701020301"))
            .bearer_auth(&production)
    };
    t.row("ForbiddenError", holder("v1")).await;
    t.row("RECIPIENT_CHECK_NOT_ALLOWED", holder("v2")).await;
    // 404
    t.row(
        "NotFoundError",
        post("/v1/refunds").json(&json!({"transactionId": "r-3", "collection": "no-such-order"})),
    )
    .await;
    t.row("NotFoundError", get("/v1/transaction/no-such-order")).await;
    t.row(
        "TRANSACTION_NOT_FOUND",
        post("/v2/refunds").json(&json!({"transaction_id": "r-4", "collection_id": "no-such-order"})),
    )
    .await;
    t.row("TRANSACTION_NOT_FOUND", get("/v2/get-status-payment/no-such-order"))
        .await;
    t.row("NOT_FOUND", get("/v2/payment-links/lnk_0000000000000000000000"))
        .await;
    t.row("NOT_FOUND", get("/v2/nothing-here")).await;
    // 405
    t.row("MethodNotAllowedError", get("/v1/refunds")).await;
    t.row("METHOD_NOT_ALLOWED", get("/v2/refunds")).await;
    // 409
    t.row(
        "ConflictError",
        post("/v1/collecte/mobile-money").json(&collect_v1("order-1", "0701020301", "ALPHA_MONEY_CI", "1000")),
    )
    .await;
    t.row(
        "ConflictError",
        post("/v1/refunds").json(&json!({"transactionId": "r-5", "collection": "order-1", "amount": "20000"})),
    )
    .await;
    t.row(
        "TRANSACTION_DUPLICATED",
        post("/v2/collecte/mobile-money").json(&collect_v2(
            "order-1",
            json!("0701020301"),
            "GAMMA_MONEY_CI",
            json!(1000),
        )),
    )
    .await;
    t.row(
        "REFUND_NOT_POSSIBLE",
        post("/v2/refunds").json(&json!({"transaction_id": "r-6", "collection_id": "order-1", "amount": 20000})),
    )
    .await;
    // 412: 9,800 francs available.
    t.row(
        "PreconditionFailedError",
        post("/v1/transfer/mobile-money").json(&transfer_v1("big-1", "0701020301", "GAMMA_MONEY_CI", "1000000")),
    )
    .await;
    t.row(
        "AMOUNT_INSUFFISANT",
        post("/v2/transfers/mobile-money").json(&transfer_v2(
            "big-2",
            json!("0701020301"),
            "GAMMA_MONEY_CI",
            json!(1_000_000),
        )),
    )
    .await;
    // 413, 415
    t.row(
        "PayloadTooLargeError",
        post("/v1/refunds").json(&json!({"transactionId": "r-7", "collection": "order-1", "reason": big_reason})),
    )
    .await;
    t.row(
        "PAYLOAD_TOO_LARGE",
        post("/v2/refunds").json(&json!({"transaction_id": "r-8", "collection_id": "order-1", "reason": big_reason})),
    )
    .await;
    t.row("UnsupportedMediaTypeError", plain_text(post("/v1/refunds")))
        .await;
    t.row("UNSUPPORTED_MEDIA_TYPE", plain_text(post("/v2/refunds"))).await;
    // 422
    let customer = json!({"firstName": "Awa", "lastName": "Koné", "email": "awa@example.ci",
                          "phoneNumber": "0701020304", "address": {"countryCode": "CI"}});
    let kept = answer(
        post("/v1/customer")
            .header("Idempotency-Key", "customer-1")
            .json(&customer),
    )
    .await;
    assert_eq!(kept.status, StatusCode::OK, "{}", kept.body);
    t.row(
        "IdempotencyKeyReusedError",
        post("/v1/customer").header("Idempotency-Key", "customer-1").json(
            &json!({"firstName": "Aya", "lastName": "Koné", "email": "aya@example.ci",
                          "phoneNumber": "0701020305", "address": {"countryCode": "CI"}}),
        ),
    )
    .await;
    let first = collect_v2("keyed-2", json!("0701020301"), "GAMMA_MONEY_CI", json!(1000));
    let kept = answer(
        post("/v2/collecte/mobile-money")
            .header("Idempotency-Key", "payment-2")
            .json(&first),
    )
    .await;
    assert_eq!(kept.status, StatusCode::OK, "{}", kept.body);
    t.row(
        "IDEMPOTENCY_KEY_REUSED",
        post("/v2/collecte/mobile-money")
            .header("Idempotency-Key", "payment-2")
            .json(&collect_v2(
                "keyed-2",
                json!("0701020301"),
                "GAMMA_MONEY_CI",
                json!(2000),
            )),
    )
    .await;
    t.row(
        "UnprocessableEntityError",
        post("/v1/payment-links").json(&json!({"minAmount": "5000", "maxAmount": "1000", "description": "Don"})),
    )
    .await;
    t.row(
        "INVALID_PAYMENT_LINK",
        post("/v2/payment-links").json(&json!({"min_amount": 5000, "max_amount": 1000, "description": "Don"})),
    )
    .await;
    let mut checked = transfer_v2("checked-1", json!("0701020309"), "GAMMA_MONEY_CI", json!(1000));
    checked["check_recipient"] = json!(true);
    t.row(
        "RECIPIENT_ACCOUNT_INACTIVE",
        post("/v2/transfers/mobile-money").json(&checked),
    )
    .await;
    let bad_item = transfer_v2("batch-1", json!("0701020301"), "GAMMA_MONEY_CI", json!("abc"));
    t.row(
        "PAYOUT_BATCH_REFUSED",
        post("/v2/payout-batches").json(&json!({"items": [bad_item], "all_or_nothing": true})),
    )
    .await;
    // 503: nothing serves Production by default.
    t.row(
        "ServiceUnavailableError",
        app.post("/v1/collecte/mobile-money")
            .bearer_auth(&production)
            .json(&collect_v1("prod-1", "0701020301", "ALPHA_MONEY_CI", "1000")),
    )
    .await;
    t.row(
        "OPERATOR_IS_UNAVAILABLE",
        app.post("/v2/collecte/mobile-money")
            .bearer_auth(&production)
            .json(&collect_v2(
                "prod-2",
                json!("0701020301"),
                "GAMMA_MONEY_CI",
                json!(1000),
            )),
    )
    .await;
    // 504: the simulator refuses a number ending 04 at once.
    t.row(
        "GatewayTimeoutError",
        post("/v1/collecte/mobile-money").json(&collect_v1("refused-1", "0701020304", "ALPHA_MONEY_CI", "1000")),
    )
    .await;
    t.row(
        "PAYMENT_FAILED_TRY_AGAINST",
        post("/v2/collecte/mobile-money").json(&collect_v2(
            "refused-2",
            json!("0701020304"),
            "GAMMA_MONEY_CI",
            json!(1000),
        )),
    )
    .await;
}

/// 409 in flight: a retry while the first request with its key waits on the operator.
pub(super) async fn provoke_in_flight(backend: Backend, t: &mut Table) {
    let mut app = TestApp::spawn(backend)
        .await
        .expect("a database, as for the first gateway");
    let operator = Gated::new();
    app.replace_operator(operator.clone()).await;
    let token = app.sandbox_token().await;
    let keyed = |path: &str, key: &str, body: &Value| {
        app.post(path)
            .bearer_auth(&token)
            .header("Idempotency-Key", key)
            .json(body)
    };
    let v1 = collect_v1("held-1", "0701020301", "ALPHA_MONEY_CI", "1500");
    let v2 = collect_v2("held-2", json!("0701020301"), "GAMMA_MONEY_CI", json!(1500));
    let first_v1 = tokio::spawn(answer(keyed("/v1/collecte/mobile-money", "held-1", &v1)));
    operator.entered().await;
    let first_v2 = tokio::spawn(answer(keyed("/v2/collecte/mobile-money", "held-2", &v2)));
    operator.entered().await;
    t.row(
        "IdempotencyKeyInUseError",
        keyed("/v1/collecte/mobile-money", "held-1", &v1),
    )
    .await;
    t.row(
        "IDEMPOTENCY_KEY_IN_USE",
        keyed("/v2/collecte/mobile-money", "held-2", &v2),
    )
    .await;
    operator.open();
    for first in [first_v1, first_v2] {
        let a = first.await.expect("the held request is answered");
        assert_eq!(a.status, StatusCode::ACCEPTED, "{}", a.body);
    }
    app.stop().await;
}

/// 429: a merchant over one request a second (in bursts of two).
pub(super) async fn provoke_rate_limits(backend: Backend, t: &mut Table) {
    let app = TestApp::spawn_with(backend, |c| c.rate_limit_per_s = 1)
        .await
        .expect("a database, as for the first gateway");
    let token = app.sandbox_token().await;
    for (code, path) in [
        ("TooManyRequestsError", "/v1/balance"),
        ("TOO_MANY_REQUESTS", "/v2/get-status-payment/order-1"),
    ] {
        // The bucket holds two: a burst of requests soon finds it empty, as a token comes
        // back only once a second.
        let mut sent_before = 0;
        let refused = loop {
            let row = sent(code, app.get(path).bearer_auth(&token)).await;
            if row.answer.status == StatusCode::TOO_MANY_REQUESTS {
                break row;
            }
            sent_before += 1;
            assert!(sent_before < 20, "{path}: 20 requests in a burst, none refused");
        };
        t.0.push(refused);
    }
    app.stop().await;
}

/// 500: the database refuses a query for good (a table gone from under the server).
pub(super) async fn provoke_internal_failures(backend: Backend, t: &mut Table) {
    let app = TestApp::spawn(backend)
        .await
        .expect("a database, as for the first gateway");
    let token = app.sandbox_token().await;
    let rename = "ALTER TABLE customers RENAME TO customers_gone";
    match backend {
        Backend::Sqlite => {
            let mut conn = sqlx::SqliteConnection::connect(&app.database_url).await.unwrap();
            sqlx::query(rename).execute(&mut conn).await.unwrap();
        }
        Backend::Postgres => {
            let mut conn = sqlx::PgConnection::connect(&app.database_url).await.unwrap();
            sqlx::query(rename).execute(&mut conn).await.unwrap();
        }
    }
    t.row("InternalServerError", app.get("/v1/customers").bearer_auth(&token))
        .await;
    t.row(
        "ERROR_INTERNE_TRY_AGAIN",
        app.get("/v2/get-status-payment/order-1").bearer_auth(&token),
    )
    .await;
    app.stop().await;
}
