//! A caller's request identity is kept: a valid `X-Request-Id` is the request's id (echoed),
//! a valid W3C `traceparent` is echoed and its trace id is the request id when no
//! `X-Request-Id` came. Invalid values are ignored: the request gets an id of ours.

use reqwest::StatusCode;

use crate::support::helpers::{answer, TestApp};
use momo_test_support::both_backends;

both_backends!(
    TestApp::spawn =>
    a_valid_request_id_or_traceparent_is_kept_and_echoed,
);

const TRACEPARENT: &str = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

/// Ours: 32 lowercase hex digits.
fn is_ours(id: &str) -> bool {
    id.len() == 32 && id.bytes().all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
}

async fn a_valid_request_id_or_traceparent_is_kept_and_echoed(app: TestApp) {
    let token = app.sandbox_token().await;
    let a = answer(
        app.get("/v1/customers")
            .bearer_auth(&token)
            .header("X-Request-Id", "shop-42/abc.def"),
    )
    .await;
    assert_eq!(a.status, StatusCode::OK);
    assert_eq!(a.header("x-request-id"), Some("shop-42/abc.def"));
    assert_eq!(a.header("traceparent"), None);

    // An error answer in its envelope keeps it too.
    let a = answer(
        app.get("/v2/get-status-payment/nothing")
            .bearer_auth(&token)
            .header("X-Request-Id", "r-404"),
    )
    .await;
    assert_eq!(a.status, StatusCode::NOT_FOUND);
    assert_eq!(a.header("x-request-id"), Some("r-404"));

    let a = answer(
        app.get("/v1/customers")
            .bearer_auth(&token)
            .header("traceparent", TRACEPARENT),
    )
    .await;
    assert_eq!(a.header("x-request-id"), Some("4bf92f3577b34da6a3ce929d0e0e4736"));
    assert_eq!(a.header("traceparent"), Some(TRACEPARENT));
    let a = answer(
        app.get("/v1/customers")
            .bearer_auth(&token)
            .header("traceparent", TRACEPARENT)
            .header("X-Request-Id", "mine"),
    )
    .await;
    assert_eq!(
        (a.header("x-request-id"), a.header("traceparent")),
        (Some("mine"), Some(TRACEPARENT))
    );

    let long = "x".repeat(129);
    for bad in ["two words", long.as_str()] {
        let a = answer(app.get("/v1/customers").bearer_auth(&token).header("X-Request-Id", bad)).await;
        assert_eq!(a.status, StatusCode::OK, "an invalid id is no error");
        assert!(is_ours(a.header("x-request-id").unwrap()), "{bad:?} is replaced");
    }
    let a = answer(
        app.get("/v1/customers")
            .bearer_auth(&token)
            .header("traceparent", "00-zz-00-01"),
    )
    .await;
    assert!(is_ours(a.header("x-request-id").unwrap()));
    assert_eq!(a.header("traceparent"), None, "an invalid traceparent is not echoed");
    let a = answer(app.get("/v1/customers").bearer_auth(&token)).await;
    assert!(is_ours(a.header("x-request-id").unwrap()));
}
