//! Operating the gateway: rate limits (on by default, counting the client behind a trusted
//! reverse proxy) and metrics.

use momo_gateway::config::Config;
use momo_gateway::domain::Timestamp;
use momo_gateway::net::IpRange;
use reqwest::StatusCode;

use crate::support::helpers::{answer, Creds, TestApp};
use crate::support::requests::{collect_v1, post};
use momo_test_support::both_backends;
use momo_test_support::process;

both_backends!(TestApp::spawn_with(one_request_per_second) => the_api_is_limited_per_merchant_environment_with_retry_after);
both_backends!(TestApp::spawn_with(three_tokens_per_minute) => token_requests_are_limited_per_key_and_address);
both_backends!(TestApp::spawn_with(three_tokens_per_minute) => a_forwarded_address_is_ignored_unless_the_peer_is_a_trusted_proxy);
both_backends!(TestApp::spawn_with(three_tokens_per_minute_behind_a_proxy) => behind_a_trusted_proxy_each_client_has_its_own_token_bucket);
both_backends!(TestApp::spawn => metrics_show_requests_transactions_and_backlogs, events_with_nowhere_to_go_are_unsent_not_failed_deliveries);

fn one_request_per_second(c: &mut Config) {
    c.rate_limit_per_s = 1;
}

fn three_tokens_per_minute(c: &mut Config) {
    c.auth_rate_limit_per_min = 3;
}

/// The test client, on 127.0.0.1, plays a reverse proxy of the 10.0.0.0/8 network.
fn three_tokens_per_minute_behind_a_proxy(c: &mut Config) {
    three_tokens_per_minute(c);
    c.http.trusted_proxies = vec![
        IpRange::parse("127.0.0.1").unwrap(),
        IpRange::parse("10.0.0.0/8").unwrap(),
    ];
}

/// `POST /v1/auth` for `creds` as forwarded with `X-Forwarded-For: forwarded`.
async fn auth_from(app: &TestApp, creds: &Creds, forwarded: &str) -> StatusCode {
    answer(
        app.post("/v1/auth")
            .basic_auth(&creds.api_key, Some(&creds.api_secret))
            .header("X-Environment", creds.environment.as_str())
            .header("X-Forwarded-For", forwarded),
    )
    .await
    .status
}

async fn behind_a_trusted_proxy_each_client_has_its_own_token_bucket(app: TestApp) {
    // Three merchants: the limit reached is the client address's, whatever the keys.
    let merchants = [
        app.merchant.clone(),
        app.new_merchant("Two").await,
        app.new_merchant("Three").await,
    ];
    for m in &merchants {
        assert_eq!(auth_from(&app, &m.sandbox, "203.0.113.5").await, StatusCode::OK);
    }
    let fourth = app.new_merchant("Four").await;
    assert_eq!(
        auth_from(&app, &fourth.sandbox, "203.0.113.5").await,
        StatusCode::TOO_MANY_REQUESTS,
        "the client's own bucket is empty"
    );
    assert_eq!(
        auth_from(&app, &fourth.sandbox, "198.51.100.1, 203.0.113.5, 10.0.0.9").await,
        StatusCode::TOO_MANY_REQUESTS,
        "an address the client adds on the left does not change its bucket"
    );
    assert_eq!(
        auth_from(&app, &fourth.sandbox, "203.0.113.6").await,
        StatusCode::OK,
        "another client behind the same proxy is not counted with it"
    );
}

async fn a_forwarded_address_is_ignored_unless_the_peer_is_a_trusted_proxy(app: TestApp) {
    let merchants = [
        app.merchant.clone(),
        app.new_merchant("Two").await,
        app.new_merchant("Three").await,
    ];
    for (m, forwarded) in merchants.iter().zip(["203.0.113.5", "203.0.113.6", "203.0.113.7"]) {
        assert_eq!(auth_from(&app, &m.sandbox, forwarded).await, StatusCode::OK);
    }
    let fourth = app.new_merchant("Four").await;
    assert_eq!(
        auth_from(&app, &fourth.sandbox, "203.0.113.8").await,
        StatusCode::TOO_MANY_REQUESTS,
        "the peer's address counts, whatever it forwards"
    );
}

#[tokio::test]
async fn rate_limits_are_on_by_default() {
    let dir = tempfile::tempdir().unwrap();
    let mut command = process::command(&format!("sqlite://{}/data/gateway.db", dir.path().display()));
    command
        .env_remove("MOMO_RATE_LIMIT_PER_S")
        .env_remove("MOMO_AUTH_RATE_LIMIT_PER_MIN");
    let running = process::serve(command);
    let env_file = std::fs::read_to_string(dir.path().join("data/demo-sandbox.env")).unwrap();
    let (key, secret) = (
        process::demo_value(&env_file, "DEMO_API_KEY"),
        process::demo_value(&env_file, "DEMO_API_SECRET"),
    );
    let client = reqwest::Client::new();
    // 600 a minute in bursts of 600: a burst of 600 passes, and the refill (ten a second) is
    // slower than these requests, so one of the next 200 is refused.
    let mut granted = 0;
    let refused = loop {
        let a = answer(
            client
                .post(format!("{}/v1/auth", running.base))
                .basic_auth(&key, Some(&secret))
                .header("X-Environment", "Sandbox"),
        )
        .await;
        if a.status != StatusCode::OK {
            break a;
        }
        granted += 1;
        assert!(granted < 800, "no limit after {granted} token requests");
    };
    assert!(
        granted >= 600,
        "a merchant's burst of 600 passes, refused after {granted}"
    );
    assert_eq!(refused.status, StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(refused.body["message"], "TooManyRequestsError");
    assert!(refused.header("retry-after").is_some());
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
    for series in [
        "momo_build_info{version=",
        "process_resident_memory_bytes ",
        "process_cpu_seconds_total ",
    ] {
        assert!(text.contains(series), "{series:?} in:\n{text}");
    }
    // Prometheus asks for OpenMetrics, and gets a complete exposition.
    let openmetrics = app
        .get("/metrics")
        .header("Accept", "application/openmetrics-text; version=1.0.0,text/plain;q=0.5")
        .send()
        .await
        .unwrap();
    assert!(openmetrics.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("application/openmetrics-text"));
    let exposition = openmetrics.text().await.unwrap();
    assert!(exposition.contains("# TYPE momo_auth_failures counter"), "{exposition}");
    assert!(exposition.ends_with("# EOF\n"), "a complete OpenMetrics exposition");
    promtool_accepts(&text);
}

/// `promtool check metrics` (Debian's `prometheus` package; CI installs it) finds nothing wrong
/// with the classic exposition. Where it is not installed the check says it was skipped, and
/// fails under `CI=true`.
fn promtool_accepts(text: &str) {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let Ok(mut child) = Command::new("promtool")
        .args(["check", "metrics"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
    else {
        assert!(
            !momo_test_support::in_ci(),
            "promtool is required when CI=true (.ci/run installs it)"
        );
        let _ = writeln!(std::io::stderr(), "promtool check SKIPPED: promtool is not installed");
        return;
    };
    child.stdin.take().unwrap().write_all(text.as_bytes()).unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(
        output.status.success(),
        "promtool check metrics: {}{}\n{text}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// An event whose merchant set no webhook URL is closed without a delivery: counted as unsent,
/// never as a failed delivery, which would read as the merchant's receiver failing.
async fn events_with_nowhere_to_go_are_unsent_not_failed_deliveries(app: TestApp) {
    let token = app.sandbox_token().await;
    let a = post(
        &app,
        &token,
        "/v1/collecte/mobile-money",
        &collect_v1("unsent", "0701020301", "ALPHA_MONEY_CI", "1000"),
    )
    .await;
    assert_eq!(a.status, StatusCode::OK, "{}", a.body);
    let dispatcher = app.gateway.webhook_dispatcher(&app.gateway.config().webhook).unwrap();
    dispatcher.run_once(Timestamp::now()).await.unwrap();
    let text = app.get("/metrics").send().await.unwrap().text().await.unwrap();
    assert!(text.contains("momo_webhook_events_unsent_total 1"), "{text}");
    assert!(
        !text.contains("momo_webhook_deliveries_total{"),
        "no delivery was attempted: {text}"
    );
}
