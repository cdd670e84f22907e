//! Every answer is the JSON envelope of its generation: malformed bodies, wrong content types,
//! unknown routes, wrong methods, oversized bodies and internal failures included.

use reqwest::StatusCode;
use serde_json::json;
use sqlx::Connection;

use crate::support::helpers::{answer, TestApp};
use momo_test_support::both_backends;
use momo_test_support::Backend;

both_backends!(
    TestApp::spawn =>
    malformed_or_mistyped_bodies_are_400_naming_the_problem,
    a_non_json_content_type_is_415_and_a_missing_one_is_read_as_json,
    unknown_routes_are_404_in_the_envelope_of_their_prefix_whatever_the_credentials,
    wrong_methods_are_405,
    bodies_over_the_limit_are_413,
    an_internal_failure_is_a_500_that_sends_only_the_request_id,
    health_and_readiness_answer,
);

fn customer() -> serde_json::Value {
    json!({"firstName": "Awa", "lastName": "Koné", "email": "a@example.ci", "phoneNumber": "0701020304", "address": {"countryCode": "CI"}})
}

async fn malformed_or_mistyped_bodies_are_400_naming_the_problem(app: TestApp) {
    let token = app.sandbox_token().await;
    let cases: [(&str, &str); 5] = [
        ("{\"firstName\": ", "not valid JSON"),
        ("{'firstName': 'x'}", "not valid JSON"),
        ("", "empty"),
        (
            r#"{"lastName":"K","email":"a@b.ci","phoneNumber":"0701020304","address":{"countryCode":"CI"}}"#,
            "missing field `firstName`",
        ),
        (
            r#"{"firstName":1,"lastName":"K","email":"a@b.ci","phoneNumber":"0701020304","address":{"countryCode":"CI"}}"#,
            "`firstName`",
        ),
    ];
    for (body, expected) in cases {
        let a = answer(
            app.post("/v1/customer")
                .bearer_auth(&token)
                .header("Content-Type", "application/json")
                .body(body),
        )
        .await;
        assert_eq!(a.status, StatusCode::BAD_REQUEST, "{body}");
        assert_eq!(a.body["statusCode"], 400);
        assert_eq!(a.body["message"], "BadRequestError");
        let reason = a.body["reason"].as_str().unwrap();
        assert!(reason.contains(expected), "{reason:?} should mention {expected:?}");
    }
}

async fn a_non_json_content_type_is_415_and_a_missing_one_is_read_as_json(app: TestApp) {
    let token = app.sandbox_token().await;
    let body = customer().to_string();
    for content_type in [
        "text/plain",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
    ] {
        let a = answer(
            app.post("/v1/customer")
                .bearer_auth(&token)
                .header("Content-Type", content_type)
                .body(body.clone()),
        )
        .await;
        assert_eq!(a.status, StatusCode::UNSUPPORTED_MEDIA_TYPE, "{content_type}");
        assert_eq!(a.body["message"], "UnsupportedMediaTypeError");
        assert_eq!(a.body["statusCode"], 415);
    }
    let a = answer(app.post("/v1/customer").bearer_auth(&token).body(body.clone())).await;
    assert_eq!(a.status, StatusCode::OK, "no Content-Type is read as JSON: {}", a.body);
    let a = answer(
        app.post("/v1/customer")
            .bearer_auth(&token)
            .header("Content-Type", "application/json; charset=utf-8")
            .body(body),
    )
    .await;
    assert_eq!(a.status, StatusCode::OK, "{}", a.body);
}

async fn unknown_routes_are_404_in_the_envelope_of_their_prefix_whatever_the_credentials(app: TestApp) {
    let token = app.sandbox_token().await;
    for with_token in [false, true] {
        for path in ["/v1/nothing-here", "/v1", "/nothing", "/v1/customers/extra/segments"] {
            let mut request = app.get(path);
            if with_token {
                request = request.bearer_auth(&token);
            }
            let a = answer(request).await;
            assert_eq!(a.status, StatusCode::NOT_FOUND, "{path}");
            assert_eq!(a.body["statusCode"], 404, "{path}");
            assert_eq!(a.body["message"], "NotFoundError");
            assert!(a.body["reason"].is_string());
        }
        for path in ["/v2/nothing-here", "/v2"] {
            let mut request = app.post(path);
            if with_token {
                request = request.bearer_auth(&token);
            }
            let a = answer(request).await;
            assert_eq!(a.status, StatusCode::NOT_FOUND, "{path}");
            assert_eq!(
                a.body,
                json!({"code_status": 404, "status": "ERROR", "message": "NOT_FOUND", "reason": a.body["reason"]})
            );
        }
    }
}

async fn wrong_methods_are_405(app: TestApp) {
    let cases = [
        app.client.delete(app.url("/v1/customers")),
        app.client.put(app.url("/v1/customer")),
        app.client.get(app.url("/v1/auth")),
        app.client.patch(app.url("/v1/customer/abc")),
        app.client.post(app.url("/health")),
    ];
    for request in cases {
        let a = answer(request).await;
        assert_eq!(a.status, StatusCode::METHOD_NOT_ALLOWED);
        assert_eq!(a.body["statusCode"], 405);
        assert_eq!(a.body["message"], "MethodNotAllowedError");
    }
}

async fn bodies_over_the_limit_are_413(app: TestApp) {
    let token = app.sandbox_token().await;
    let mut body = customer();
    body["address"]["streetAddress"] = json!("x".repeat(64 * 1024));
    let a = answer(app.post("/v1/customer").bearer_auth(&token).json(&body)).await;
    assert_eq!(a.status, StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(a.body["message"], "PayloadTooLargeError");
    assert_eq!(a.body["statusCode"], 413);
}

async fn an_internal_failure_is_a_500_that_sends_only_the_request_id(app: TestApp) {
    let token = app.sandbox_token().await;
    // Break the database under the running server.
    match app.backend {
        Backend::Sqlite => {
            let mut conn = sqlx::SqliteConnection::connect(&app.database_url).await.unwrap();
            sqlx::query("ALTER TABLE customers RENAME TO customers_gone")
                .execute(&mut conn)
                .await
                .unwrap();
        }
        Backend::Postgres => {
            let mut conn = sqlx::PgConnection::connect(&app.database_url).await.unwrap();
            sqlx::query("ALTER TABLE customers RENAME TO customers_gone")
                .execute(&mut conn)
                .await
                .unwrap();
        }
    }
    for request in [
        app.get("/v1/customers").bearer_auth(&token),
        app.post("/v1/customer").bearer_auth(&token).json(&customer()),
    ] {
        let a = answer(request).await;
        assert_eq!(a.status, StatusCode::INTERNAL_SERVER_ERROR);
        assert_eq!(a.body["statusCode"], 500);
        assert_eq!(a.body["message"], "InternalServerError");
        let reason = a.body["reason"].as_str().unwrap();
        let request_id = a.header("x-request-id").unwrap();
        assert!(reason.contains(request_id), "{reason:?} quotes the request id");
        let lowered = reason.to_lowercase();
        assert!(
            !lowered.contains("customers") && !lowered.contains("table") && !lowered.contains("relation"),
            "{reason:?} leaks internals"
        );
    }
}

async fn health_and_readiness_answer(app: TestApp) {
    let a = answer(app.get("/health")).await;
    assert_eq!(a.status, StatusCode::OK);
    assert_eq!(
        a.body,
        json!({"statusCode": 200, "message": "Successful", "data": {"status": "alive"}})
    );
    let a = answer(app.get("/ready")).await;
    assert_eq!(a.status, StatusCode::OK);
    assert_eq!(a.body["data"]["status"], "ready");
    app.stop().await;
}
