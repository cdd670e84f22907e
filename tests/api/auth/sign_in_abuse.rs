//! Sign-in under abuse: wrong secrets sent from one address never refuse the merchant's right
//! secret from another, an address that keeps failing is slowed, and keys of any size cost the
//! limiter the same few bytes. Both `/v1/auth` and the dashboard's sign-in.

use momo_gateway::config::Config;
use momo_gateway::net::IpRange;
use reqwest::StatusCode;

use crate::support::helpers::{answer, TestApp};
use momo_test_support::both_backends;
use momo_test_support::process;

both_backends!(
    TestApp::spawn_with(default_limits_behind_a_proxy) =>
    seven_hundred_wrong_secrets_from_one_address_never_refuse_the_right_one_from_another,
    the_dashboard_sign_in_holds_the_same_way,
);

/// The limits of a default start (600 attempts a minute, 10 failures), with the test client
/// playing a reverse proxy so that `X-Forwarded-For` names the client.
fn default_limits_behind_a_proxy(c: &mut Config) {
    c.auth_rate_limit_per_min = 600;
    c.sign_in_failures = 10;
    c.http.trusted_proxies = vec![IpRange::parse("127.0.0.1").unwrap()];
}

async fn sign_in(app: &TestApp, api_key: &str, secret: &str, from: &str) -> reqwest::Response {
    app.post("/v1/auth")
        .basic_auth(api_key, Some(secret))
        .header("X-Environment", "Sandbox")
        .header("X-Forwarded-For", from)
        .send()
        .await
        .unwrap()
}

async fn seven_hundred_wrong_secrets_from_one_address_never_refuse_the_right_one_from_another(app: TestApp) {
    let creds = app.merchant.sandbox.clone();
    let (mut wrong, mut limited) = (0, 0);
    for _ in 0..700 {
        let a = sign_in(&app, &creds.api_key, "not-the-secret", "203.0.113.5").await;
        match a.status() {
            StatusCode::UNAUTHORIZED => wrong += 1,
            StatusCode::TOO_MANY_REQUESTS => {
                assert!(a.headers()["retry-after"].to_str().unwrap().parse::<u64>().unwrap() >= 1);
                limited += 1;
            }
            other => panic!("{other}"),
        }
    }
    assert_eq!((wrong, limited), (10, 690), "ten wrong secrets, then slowed");
    let a = answer(
        app.post("/v1/auth")
            .basic_auth(&creds.api_key, Some(&creds.api_secret))
            .header("X-Environment", "Sandbox")
            .header("X-Forwarded-For", "198.51.100.7"),
    )
    .await;
    assert_eq!(a.status, StatusCode::OK, "the merchant's own address: {}", a.body);
    assert_eq!(
        sign_in(&app, &creds.api_key, &creds.api_secret, "203.0.113.5")
            .await
            .status(),
        StatusCode::TOO_MANY_REQUESTS,
        "the failing address is slowed, even with the right secret"
    );
}

/// `POST /dashboard/login` with `api_key` and `secret` from `from`; the sign-in form's CSRF
/// token is a double-submit cookie, so the client sets both.
async fn dashboard_sign_in(app: &TestApp, api_key: &str, secret: &str, from: &str) -> StatusCode {
    let no_redirects = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    no_redirects
        .post(app.url("/dashboard/login"))
        .header("Cookie", "momo_login_csrf=abcdefghijklmnop")
        .header("X-Forwarded-For", from)
        .form(&[
            ("csrf_token", "abcdefghijklmnop"),
            ("api_key", api_key),
            ("api_secret", secret),
        ])
        .send()
        .await
        .unwrap()
        .status()
}

async fn the_dashboard_sign_in_holds_the_same_way(app: TestApp) {
    let creds = app.merchant.sandbox.clone();
    let mut statuses = Vec::new();
    for _ in 0..40 {
        statuses.push(dashboard_sign_in(&app, &creds.api_key, "not-the-secret", "203.0.113.5").await);
    }
    assert!(
        statuses[..10].iter().all(|s| *s == StatusCode::UNAUTHORIZED),
        "{statuses:?}"
    );
    assert!(
        statuses[10..].iter().all(|s| *s == StatusCode::TOO_MANY_REQUESTS),
        "{statuses:?}"
    );
    assert_eq!(
        dashboard_sign_in(&app, &creds.api_key, &creds.api_secret, "198.51.100.7").await,
        StatusCode::SEE_OTHER,
        "signed in from the merchant's own address"
    );
    // The API's count is its own: the dashboard's failures did not slow `/v1/auth`.
    assert_eq!(
        sign_in(&app, &creds.api_key, &creds.api_secret, "203.0.113.5")
            .await
            .status(),
        StatusCode::OK
    );
}

/// A key of `len` characters that no merchant has, different at every `i`.
fn huge_key(i: usize, len: usize) -> String {
    let prefix = format!("pk_{i:06}_");
    prefix.clone() + &"k".repeat(len - prefix.len())
}

#[tokio::test]
async fn five_hundred_sign_ins_with_60_kib_keys_grow_the_process_by_less_than_16_mb() {
    let dir = tempfile::tempdir().unwrap();
    let mut command = process::command(&format!("sqlite://{}/data/gateway.db", dir.path().display()));
    command.env("MOMO_AUTH_RATE_LIMIT_PER_MIN", "1000000");
    let running = process::serve(command);
    let client = reqwest::Client::new();
    let send = |i: usize| {
        let request = if i.is_multiple_of(2) {
            client
                .post(format!("{}/v1/auth", running.base))
                .basic_auth(huge_key(i, 60 * 1024), Some("wrong"))
        } else {
            client
                .post(format!("{}/dashboard/login", running.base))
                .header("Cookie", "momo_login_csrf=abcdefghijklmnop")
                .form(&[
                    ("csrf_token", "abcdefghijklmnop".to_owned()),
                    ("api_key", huge_key(i, 60 * 1024)),
                    ("api_secret", "wrong".to_owned()),
                ])
        };
        async move {
            let status = request.send().await.unwrap().status();
            assert!(status.is_client_error(), "{i}: {status}");
        }
    };
    // The allocator's own growth first, then the baseline.
    for i in 0..50 {
        send(i).await;
    }
    let before = running.resident_bytes();
    for i in 50..550 {
        send(i).await;
    }
    let grown = running.resident_bytes().saturating_sub(before);
    assert!(grown < 16 << 20, "grew by {} KiB", grown >> 10);
}
