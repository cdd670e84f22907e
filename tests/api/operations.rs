//! Operating the gateway: rate limits and metrics.

use momo_gateway::config::Config;
use reqwest::StatusCode;

use crate::both_backends;
use crate::helpers::{answer, TestApp};
use crate::requests::{collect_v1, post};

both_backends!(TestApp::spawn_with(one_request_per_second) => the_api_is_limited_per_merchant_environment_with_retry_after);
both_backends!(TestApp::spawn_with(three_tokens_per_minute) => token_requests_are_limited_per_key_and_address);
both_backends!(TestApp::spawn => metrics_show_requests_transactions_and_backlogs);

fn one_request_per_second(c: &mut Config) {
    c.rate_limit_per_s = 1;
}

fn three_tokens_per_minute(c: &mut Config) {
    c.auth_rate_limit_per_min = 3;
}

async fn the_api_is_limited_per_merchant_environment_with_retry_after(app: TestApp) {
    let token = app.sandbox_token().await;
    // A burst of twice the rate passes, the next request is refused.
    for _ in 0..2 {
        assert_eq!(
            answer(app.get("/v1/customers").bearer_auth(&token)).await.status,
            StatusCode::OK
        );
    }
    let refused = answer(app.get("/v1/customers").bearer_auth(&token)).await;
    assert_eq!(refused.status, StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(refused.body["message"], "TooManyRequestsError");
    assert_eq!(refused.body["statusCode"], 429);
    let retry: u64 = refused.header("retry-after").expect("Retry-After").parse().unwrap();
    assert!((1..=2).contains(&retry));
    let v2 = answer(app.get("/v2/get-status-payment/x").bearer_auth(&token)).await;
    assert_eq!(
        (v2.status, v2.body["message"].as_str().unwrap()),
        (StatusCode::TOO_MANY_REQUESTS, "TOO_MANY_REQUESTS")
    );
    assert!(v2.header("retry-after").is_some());
    // Another environment, another bucket.
    let production = app.token(&app.merchant.production.clone()).await;
    assert_eq!(
        answer(app.get("/v1/customers").bearer_auth(&production)).await.status,
        StatusCode::OK
    );
}

async fn token_requests_are_limited_per_key_and_address(app: TestApp) {
    let creds = app.merchant.sandbox.clone();
    for _ in 0..3 {
        assert_eq!(app.auth(&creds).await.status, StatusCode::OK);
    }
    let refused = app.auth(&creds).await;
    assert_eq!(refused.status, StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(refused.body["message"], "TooManyRequestsError");
    assert!(refused.header("retry-after").unwrap().parse::<u64>().unwrap() >= 1);
    // The address is limited too: guessing with other keys does not help.
    let other = app.new_merchant("Other").await;
    assert_eq!(app.auth(&other.sandbox).await.status, StatusCode::TOO_MANY_REQUESTS);
}

async fn metrics_show_requests_transactions_and_backlogs(app: TestApp) {
    let token = app.sandbox_token().await;
    post(
        &app,
        &token,
        "/v1/collecte/mobile-money",
        &collect_v1("m1", "0701020301", "ALPHA_MONEY_CI", "1000"),
    )
    .await;
    post(
        &app,
        &token,
        "/v1/collecte/mobile-money",
        &collect_v1("m2", "0701020302", "GAMMA_MONEY_CI", "1000"),
    )
    .await;
    answer(app.get("/v1/customer/nope").bearer_auth(&token)).await;
    answer(app.get("/v1/customers").bearer_auth("garbage")).await;
    let response = app.get("/metrics").send().await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    assert!(response.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/plain"));
    let text = response.text().await.unwrap();
    for line in [
        "momo_http_requests_total{route=\"/v1/collecte/mobile-money\",method=\"POST\",status=\"200\"} 1",
        "momo_http_requests_total{route=\"/v1/collecte/mobile-money\",method=\"POST\",status=\"202\"} 1",
        "momo_http_requests_total{route=\"/v1/customer/{id}\",method=\"GET\",status=\"404\"} 1",
        "momo_http_request_duration_seconds_count{route=\"/v1/collecte/mobile-money\",method=\"POST\"} 2",
        "momo_transactions_total{operator=\"ALPHA\",type=\"collecte\",outcome=\"SUCCESSFUL\"} 1",
        "momo_transactions_total{operator=\"GAMMA\",type=\"collecte\",outcome=\"PENDING\"} 1",
        "momo_pending_transactions 1",
        "momo_outbox_backlog 1",
        "momo_auth_failures_total{kind=\"bearer\"} 1",
    ] {
        assert!(text.contains(line), "missing {line:?} in:\n{text}");
    }
    assert!(text.contains("momo_db_pool_connections"));
    assert!(text.contains("momo_oldest_pending_transaction_age_seconds"));
}
