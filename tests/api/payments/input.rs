//! Bad payment input: each a clear 4xx in the right envelope, nothing written, no operator call.

use momo_gateway::config::Config;
use reqwest::StatusCode;
use serde_json::{json, Value};

use crate::support::helpers::{answer, set, TestApp};
use crate::support::requests::{collect_v1, collect_v2, post, transfer_v2};
use momo_test_support::both_backends;

both_backends!(
    TestApp::spawn =>
    bad_v1_payment_input_is_refused_with_its_field_named,
    bad_v2_payment_input_is_refused_with_its_constant,
    v2_routes_answer_401_and_400_in_the_v2_envelope,
    number_amounts_are_judged_by_every_digit_never_through_a_float,
);

async fn nothing_written(app: &TestApp, token: &str) {
    let list = answer(app.get("/v1/transactions").bearer_auth(token)).await;
    assert_eq!(list.body["data"], json!([]), "nothing was written");
    app.assert_ledger().await;
}

async fn bad_v1_payment_input_is_refused_with_its_field_named(app: TestApp) {
    let token = app.sandbox_token().await;
    let base = collect_v1("bad", "0701020301", "ALPHA_MONEY_CI", "1500");
    let bad = StatusCode::BAD_REQUEST;
    let forbidden = StatusCode::FORBIDDEN;
    let cases: Vec<(&str, Value, StatusCode, &str)> = vec![
        ("/amount", json!(""), bad, "amount"),
        ("/amount", json!("abc"), bad, "amount"),
        ("/amount", json!("1e3"), bad, "amount"),
        ("/amount", json!("-100"), bad, "amount"),
        ("/amount", json!("100.5"), bad, "amount"),
        ("/amount", json!("99"), forbidden, "amount"),
        ("/amount", json!("1000001"), forbidden, "amount"),
        ("/amount", json!("99999999999999999999999999"), forbidden, "amount"),
        ("/amount", json!(99), forbidden, "amount"),
        ("/amount", json!(1500.5), bad, "amount"),
        ("/amount", json!(true), bad, "amount"),
        ("/amount", Value::Null, bad, "amount"),
        ("/amount", json!("<absent>"), bad, "amount"),
        ("/payer", json!("070102030"), bad, "payer"),
        ("/payer", json!("07010203011"), bad, "payer"),
        ("/payer", json!("07O1020301"), bad, "payer"),
        ("/payer", json!("+2260701020301"), bad, "payer"),
        ("/payer", json!("0901020301"), bad, "payer"),
        ("/payer", json!(701020301), bad, "payer"),
        ("/operator", json!("OMEGA_MONEY_CI"), bad, "operator"),
        ("/operator", json!(""), bad, "operator"),
        ("/currency", json!("EUR"), bad, "currency"),
        ("/currency", json!("xof"), bad, "currency"),
        ("/transactionId", json!(""), bad, "transactionId"),
        ("/transactionId", json!("x".repeat(65)), bad, "transactionId"),
        ("/transactionId", json!("a\u{0}b"), bad, "transactionId"),
        ("/transactionId", json!(12), bad, "transactionId"),
        ("/customer", Value::Null, bad, "customer"),
        ("/customer", json!("Awa"), bad, "customer"),
        ("/customer/firstName", json!("<absent>"), bad, "firstName"),
        ("/customer/lastName", json!(""), bad, "lastName"),
        ("/customer/phone", json!("123"), bad, "phone"),
        ("/customer/email", json!("nope"), bad, "email"),
        ("/customer/address", json!("<absent>"), bad, "address"),
        ("/customer/address/countryCode", json!("SN"), bad, "countryCode"),
        ("/urlSuccess", json!("javascript:alert(1)"), bad, "urlSuccess"),
    ];
    for (pointer, value, status, field) in cases {
        let body = set(base.clone(), pointer, value.clone());
        let a = post(&app, &token, "/v1/collecte/mobile-money", &body).await;
        assert_eq!(a.status, status, "{pointer} = {value}: {}", a.body);
        assert_eq!(a.body["statusCode"], status.as_u16());
        let reason = a.body["reason"].as_str().unwrap();
        assert!(reason.contains(field), "{reason:?} names {field}");
    }
    let a = post(&app, &token, "/v1/collecte/mobile-money", &json!(null)).await;
    assert_eq!(a.status, bad);
    nothing_written(&app, &token).await;
}

async fn bad_v2_payment_input_is_refused_with_its_constant(app: TestApp) {
    let token = app.sandbox_token().await;
    let base = collect_v2("bad", json!("0701020301"), "GAMMA_MONEY_CI", json!(1500));
    let cases: Vec<(&str, Value, StatusCode, &str)> = vec![
        ("/amount", json!(99), StatusCode::FORBIDDEN, "AMOUNT_OUT_OF_RANGE"),
        (
            "/amount",
            json!(1_000_001),
            StatusCode::FORBIDDEN,
            "AMOUNT_OUT_OF_RANGE",
        ),
        ("/amount", json!(-100), StatusCode::FORBIDDEN, "AMOUNT_OUT_OF_RANGE"),
        (
            "/amount",
            json!(18446744073709551615u64),
            StatusCode::FORBIDDEN,
            "AMOUNT_OUT_OF_RANGE",
        ),
        ("/amount", json!(1e300), StatusCode::BAD_REQUEST, "INVALID_REQUEST"),
        ("/amount", json!(100.5), StatusCode::BAD_REQUEST, "INVALID_REQUEST"),
        ("/amount", json!("abc"), StatusCode::BAD_REQUEST, "INVALID_REQUEST"),
        ("/amount", json!([1500]), StatusCode::BAD_REQUEST, "INVALID_REQUEST"),
        (
            "/operator",
            json!("OMEGA"),
            StatusCode::BAD_REQUEST,
            "OPERATOR_NO_SUPPORTED",
        ),
        (
            "/transaction_id",
            json!("x".repeat(21)),
            StatusCode::BAD_REQUEST,
            "TRANSACTION_ID_MAX_LENGHT_20",
        ),
        ("/transaction_id", json!(""), StatusCode::BAD_REQUEST, "INVALID_REQUEST"),
        (
            "/transaction_id",
            json!("<absent>"),
            StatusCode::BAD_REQUEST,
            "INVALID_REQUEST",
        ),
        ("/currency", json!("USD"), StatusCode::BAD_REQUEST, "INVALID_REQUEST"),
        ("/code_country", json!("SN"), StatusCode::BAD_REQUEST, "INVALID_REQUEST"),
        (
            "/customer_id",
            json!(70102030),
            StatusCode::BAD_REQUEST,
            "INVALID_REQUEST",
        ),
        (
            "/customer_id",
            json!("07010203"),
            StatusCode::BAD_REQUEST,
            "INVALID_REQUEST",
        ),
        ("/customer_id", Value::Null, StatusCode::BAD_REQUEST, "INVALID_REQUEST"),
        (
            "/customer_id",
            json!({"phone": "0701020301"}),
            StatusCode::BAD_REQUEST,
            "INVALID_REQUEST",
        ),
        ("/name_user", json!(""), StatusCode::BAD_REQUEST, "INVALID_REQUEST"),
    ];
    for (pointer, value, status, message) in cases {
        let body = set(base.clone(), pointer, value.clone());
        let a = post(&app, &token, "/v2/collecte/mobile-money", &body).await;
        assert_eq!(
            (a.status, a.body["message"].as_str().unwrap_or("")),
            (status, message),
            "{pointer} = {value}: {}",
            a.body
        );
        assert_eq!(a.body["status"], "ERROR");
        assert_eq!(a.body["code_status"], status.as_u16());
    }
    let shape_b = json!({"transactionId": "b", "codeCountry": "CI", "operator": "GAMMA_MONEY_CI", "customer": null, "amount": 1000, "currency": "XOF"});
    let a = post(&app, &token, "/v2/collecte/mobile-money", &shape_b).await;
    assert_eq!(a.status, StatusCode::BAD_REQUEST, "{}", a.body);
    assert!(a.body["reason"].as_str().unwrap().contains("customer"));
    let a = post(
        &app,
        &token,
        "/v2/transfers/mobile-money",
        &set(
            transfer_v2("t", json!("0701020301"), "BETA_CI", json!(1000)),
            "/name",
            json!("<absent>"),
        ),
    )
    .await;
    assert_eq!(a.status, StatusCode::BAD_REQUEST);
    assert!(a.body["reason"].as_str().unwrap().contains("name"));
    nothing_written(&app, &token).await;
}

/// `body` as JSON text with its amount written as the raw number `amount`, which `json!` would
/// round through an `f64`.
fn with_raw_amount(body: &Value, amount: &str) -> String {
    let marker = "\"raw-amount\"";
    let text = set(body.clone(), "/amount", json!("raw-amount")).to_string();
    assert!(text.contains(marker));
    text.replace(marker, amount)
}

async fn number_amounts_are_judged_by_every_digit_never_through_a_float(app: TestApp) {
    let token = app.sandbox_token().await;
    let bodies = |id: &str| {
        [
            (
                "/v1/collecte/mobile-money",
                collect_v1(id, "0701020301", "ALPHA_MONEY_CI", "0"),
            ),
            (
                "/v2/collecte/mobile-money",
                collect_v2(id, json!("0701020301"), "GAMMA_MONEY_CI", json!(0)),
            ),
            (
                "/v2/transfers/mobile-money",
                transfer_v2(id, json!("0701020301"), "BETA_CI", json!(0)),
            ),
        ]
    };
    let refused = [
        // Below the minimum and with a fraction, though an f64 reads it as 100.
        ("99.99999999999999999", StatusCode::BAD_REQUEST),
        // A fraction an f64 drops.
        ("1000000.0000000001", StatusCode::BAD_REQUEST),
        ("1500.000000000000000000001", StatusCode::BAD_REQUEST),
        // DECISIONS §3 refuses an exponent, whatever it multiplies to.
        ("1e2", StatusCode::BAD_REQUEST),
        ("1.5e3", StatusCode::BAD_REQUEST),
        ("15E2", StatusCode::BAD_REQUEST),
        ("-1500", StatusCode::FORBIDDEN),
        ("100000000000000000000000000000000000000000", StatusCode::FORBIDDEN),
    ];
    for (path, body) in &bodies("n") {
        for (amount, status) in refused {
            let a = answer(
                app.post(path)
                    .bearer_auth(&token)
                    .header("Content-Type", "application/json")
                    .body(with_raw_amount(body, amount)),
            )
            .await;
            assert_eq!(a.status, status, "{path} {amount}: {}", a.body);
            let reason = a.body["reason"].as_str().unwrap();
            assert!(reason.contains("amount"), "{reason:?} names the amount");
        }
    }
    nothing_written(&app, &token).await;
    for i in 0..3 {
        // A fresh id for each, since v2 collections and transfers share the id space.
        let (path, body) = &bodies(&format!("z{i}"))[i];
        let body = with_raw_amount(body, "1000000.0000000000000000000");
        let a = answer(
            app.post(path)
                .bearer_auth(&token)
                .header("Content-Type", "application/json")
                .body(body),
        )
        .await;
        assert_eq!(a.status, StatusCode::OK, "{path}: {}", a.body);
        assert_eq!(
            a.body["data"]["amount"], "1000000",
            "stored as the whole francs it names"
        );
    }
    app.assert_ledger().await;
}

async fn v2_routes_answer_401_and_400_in_the_v2_envelope(app: TestApp) {
    let token = app.sandbox_token().await;
    let body = collect_v2("x", json!("0701020301"), "GAMMA_MONEY_CI", json!(1000));
    for request in [
        app.post("/v2/collecte/mobile-money").json(&body),
        app.post("/v2/collecte/mobile-money").bearer_auth("garbage").json(&body),
        app.post("/v2/transfers/mobile-money")
            .bearer_auth(&token)
            .header("X-Environment", "Production")
            .json(&body),
        app.get("/v2/get-status-payment/x").bearer_auth(format!("{token}x")),
    ] {
        let a = answer(request).await;
        assert_eq!(a.status, StatusCode::UNAUTHORIZED);
        assert_eq!(
            a.body,
            json!({"code_status": 401, "status": "ERROR", "message": "TOKEN_EXPIRED", "reason": a.body["reason"]})
        );
    }
    for raw in ["{", "", "[]", "{\"transaction_id\": 5}"] {
        let a = answer(
            app.post("/v2/collecte/mobile-money")
                .bearer_auth(&token)
                .header("Content-Type", "application/json")
                .body(raw),
        )
        .await;
        assert_eq!(a.status, StatusCode::BAD_REQUEST, "{raw}");
        assert_eq!(a.body["message"], "INVALID_REQUEST");
        assert_eq!(a.body["code_status"], 400);
    }
    let a = answer(
        app.post("/v2/transfers/mobile-money")
            .bearer_auth(&token)
            .header("Content-Type", "text/plain")
            .body("x"),
    )
    .await;
    assert_eq!(a.status, StatusCode::UNSUPPORTED_MEDIA_TYPE);
    assert_eq!(a.body["message"], "UNSUPPORTED_MEDIA_TYPE");
    let a = answer(
        app.client
            .delete(app.url("/v2/collecte/mobile-money"))
            .bearer_auth(&token),
    )
    .await;
    assert_eq!(a.status, StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(a.body["message"], "METHOD_NOT_ALLOWED");
    let mut big = body.clone();
    big["name_user"] = json!("x".repeat(70_000));
    let a = post(&app, &token, "/v2/collecte/mobile-money", &big).await;
    assert_eq!(a.status, StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(a.body["message"], "PAYLOAD_TOO_LARGE");
    app.assert_ledger().await;
}

both_backends!(TestApp::spawn_with(delta_transfers_disabled) => a_disabled_operator_is_refused);

fn delta_transfers_disabled(c: &mut Config) {
    use momo_gateway::domain::{Kind, OperatorCode};
    c.disabled_operators = vec![(OperatorCode::Delta, Some(Kind::Transfer))];
}

async fn a_disabled_operator_is_refused(app: TestApp) {
    let token = app.sandbox_token().await;
    let a = post(
        &app,
        &token,
        "/v2/transfers/mobile-money",
        &transfer_v2("d", json!("0701020301"), "DELTA_MONEY_CI", json!(1000)),
    )
    .await;
    assert_eq!(
        (a.status, a.body["message"].as_str().unwrap()),
        (StatusCode::BAD_REQUEST, "OPERATOR_NO_SUPPORTED")
    );
    let a = post(
        &app,
        &token,
        "/v2/collecte/mobile-money",
        &collect_v2("d", json!("0701020301"), "DELTA_MONEY_CI", json!(1000)),
    )
    .await;
    assert_eq!(a.status, StatusCode::OK, "collections still work: {}", a.body);
    app.assert_ledger().await;
}
