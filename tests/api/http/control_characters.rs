//! Control characters (NUL above all, which PostgreSQL refuses in text outright) in a path, a
//! query string, a cursor or credentials, before any query, on both databases: in a path the
//! 404 of an id that names nothing (DECISIONS: an unknown id, malformed or not, is 404), in a
//! query string, a cursor or credentials a 400, each in the envelope of the path's generation.
//! Never a 500, never "the database is unavailable".

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use reqwest::StatusCode;
use serde_json::json;

use crate::support::helpers::{answer, Answer, TestApp};
use crate::support::requests::{collect_v1, post};
use momo_test_support::both_backends;

both_backends!(
    TestApp::spawn =>
    control_characters_in_paths_are_404_and_in_queries_400_in_the_envelope_of_the_path,
    a_cursor_or_credentials_holding_a_control_character_are_400,
);

/// Control characters as a path or query carries them: C0, DEL and a C1 (U+0085, two bytes).
const CONTROLS: [&str; 5] = ["%00", "a%00b", "%1F", "%7F", "%C2%85"];

fn assert_v1_not_found(a: &Answer, what: &str) {
    assert_eq!(a.status, StatusCode::NOT_FOUND, "{what}: {}", a.body);
    assert_eq!(a.body["statusCode"], 404, "{what}");
    assert_eq!(a.body["message"], "NotFoundError", "{what}");
    let reason = a.body["reason"].as_str().unwrap();
    assert!(reason.contains("control character"), "{what}: {reason:?}");
}

fn assert_v1_bad_request(a: &Answer, what: &str) {
    assert_eq!(a.status, StatusCode::BAD_REQUEST, "{what}: {}", a.body);
    assert_eq!(a.body["statusCode"], 400, "{what}");
    assert_eq!(a.body["message"], "BadRequestError", "{what}");
    let reason = a.body["reason"].as_str().unwrap();
    assert!(reason.contains("control character"), "{what}: {reason:?}");
}

async fn control_characters_in_paths_are_404_and_in_queries_400_in_the_envelope_of_the_path(app: TestApp) {
    let token = app.sandbox_token().await;
    // Something to find, so a lookup that reached the database could find a row.
    let created = post(
        &app,
        &token,
        "/v1/collecte/mobile-money",
        &collect_v1("c1", "0701020301", "ALPHA_MONEY_CI", "1000"),
    )
    .await;
    assert_eq!(created.status, StatusCode::OK, "{}", created.body);

    for c in CONTROLS {
        let v1_paths = [
            format!("/v1/transaction/{c}"),
            format!("/v1/get-status-payment/c1{c}"),
            format!("/v1/customer/{c}"),
            format!("/v1/customers/fetch-data/{c}"),
            format!("/v1/webhooks/events/{c}"),
            format!("/checkout/{c}"),
        ];
        for path in &v1_paths {
            let a = answer(app.get(path).bearer_auth(&token)).await;
            assert_v1_not_found(&a, path);
        }
        let v1_queries = [
            format!("/v1/transactions?phone={c}"),
            format!("/v1/transactions?status=PENDING{c}"),
            format!("/v1/get-all-transactions?from={c}"),
            format!("/v1/customers?limit=1{c}"),
            format!("/v1/webhooks/events?transactionId={c}"),
            format!("/v1/webhooks/events?{c}=1"),
        ];
        for path in &v1_queries {
            let a = answer(app.get(path).bearer_auth(&token)).await;
            assert_v1_bad_request(&a, path);
        }
        for path in [
            format!("/v1/webhooks/events/{c}/redeliver"),
            format!("/checkout/{c}/approve"),
        ] {
            let a = answer(app.post(&path).bearer_auth(&token).json(&json!({}))).await;
            assert_v1_not_found(&a, &path);
        }
        for path in [
            format!("/v1/webhooks/redeliver?from={c}"),
            format!("/operator-callbacks/ALPHA/Sandbox?token={c}"),
        ] {
            let a = answer(app.post(&path).bearer_auth(&token).json(&json!({}))).await;
            assert_v1_bad_request(&a, &path);
        }
        let path = format!("/v2/get-status-payment/{c}");
        let a = answer(app.get(&path).bearer_auth(&token)).await;
        assert_eq!(a.status, StatusCode::NOT_FOUND, "{path}: {}", a.body);
        assert_eq!(
            a.body,
            json!({"code_status": 404, "status": "ERROR", "message": "TRANSACTION_NOT_FOUND", "reason": a.body["reason"]}),
            "{path}"
        );
        assert!(a.body["reason"].as_str().unwrap().contains("control character"));
    }

    // Before anything else: even without a token, a control character is the first problem.
    let a = answer(app.get("/v1/transaction/%00")).await;
    assert_v1_not_found(&a, "without a token");
    // Routing still comes first: an unknown path is 404 whatever it holds.
    let a = answer(app.get("/v1/nowhere/%00").bearer_auth(&token)).await;
    assert_eq!(a.status, StatusCode::NOT_FOUND, "{}", a.body);
    // Percent-encoded text that is not a control character still reaches the lookup: 404.
    for id in ["%FF", "%20", "%C3%A9"] {
        let a = answer(app.get(&format!("/v2/get-status-payment/{id}")).bearer_auth(&token)).await;
        assert_eq!(a.status, StatusCode::NOT_FOUND, "{id}: {}", a.body);
    }
    let found = answer(app.get("/v1/transaction/c1").bearer_auth(&token)).await;
    assert_eq!(found.status, StatusCode::OK, "{}", found.body);
    app.assert_ledger().await;
}

async fn a_cursor_or_credentials_holding_a_control_character_are_400(app: TestApp) {
    let token = app.sandbox_token().await;
    // A cursor is base64: the control character is inside, where no path check sees it.
    let cursor = URL_SAFE_NO_PAD.encode("1700000000000:\u{0}");
    for path in ["/v1/transactions", "/v1/customers", "/v1/webhooks/events"] {
        let a = answer(app.get(&format!("{path}?cursor={cursor}")).bearer_auth(&token)).await;
        assert_eq!(a.status, StatusCode::BAD_REQUEST, "{path}: {}", a.body);
        assert_eq!(a.body["message"], "BadRequestError");
        assert!(a.body["reason"].as_str().unwrap().contains("cursor"), "{}", a.body);
    }
    let creds = &app.merchant.sandbox;
    for (key, secret) in [
        (format!("{}\u{0}", creds.api_key), creds.api_secret.clone()),
        (creds.api_key.clone(), format!("\u{0}{}", creds.api_secret)),
    ] {
        let a = answer(app.post("/v1/auth").basic_auth(&key, Some(&secret))).await;
        assert_eq!(a.status, StatusCode::BAD_REQUEST, "{}", a.body);
        assert_eq!(a.body["message"], "BadRequestError");
        assert!(
            a.body["reason"].as_str().unwrap().contains("control character"),
            "{}",
            a.body
        );
    }
    app.assert_ledger().await;
}
