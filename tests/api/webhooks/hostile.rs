//! Webhooks against a hostile environment or receiver: a proxy in the environment, which must
//! not carry webhooks around the address guard, and a receiver asking to wait for ever.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use reqwest::StatusCode;
use serde_json::Value;
use tokio::io::AsyncWriteExt;

use momo_gateway::domain::Timestamp;

use crate::support::helpers::{answer, later, TestApp};
use crate::support::requests::{collect_v1, post};
use crate::support::webhooks::{dispatcher, event_of, listen, private_targets_allowed};
use momo_test_support::process;
use momo_test_support::receiver::{Receiver, Reply};
use momo_test_support::{both_backends, eventually};

both_backends!(TestApp::spawn_with(private_targets_allowed) => a_huge_retry_after_waits_a_day_at_most);

/// A stand-in for a proxy: counts the connections it gets and answers each with a 502.
async fn counting_proxy() -> (String, Arc<AtomicUsize>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let count = Arc::new(AtomicUsize::new(0));
    let seen = count.clone();
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            seen.fetch_add(1, Ordering::SeqCst);
            let _ = stream
                .write_all(b"HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")
                .await;
        }
    });
    (url, count)
}

#[tokio::test]
async fn a_proxy_in_the_environment_is_not_used_for_webhooks() {
    let (proxy, proxied) = counting_proxy().await;
    let receiver = Receiver::start(vec![], None).await;
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}/data/gateway.db", dir.path().display());
    let with_proxy = |mut command: std::process::Command| {
        for name in [
            "HTTP_PROXY",
            "HTTPS_PROXY",
            "ALL_PROXY",
            "http_proxy",
            "https_proxy",
            "all_proxy",
        ] {
            command.env(name, &proxy);
        }
        command.env_remove("NO_PROXY").env_remove("no_proxy");
        command.env("MOMO_WEBHOOK_ALLOW_PRIVATE", "true");
        command
    };
    let created = with_proxy(process::command(&url))
        .args([
            "merchant",
            "create",
            "--name",
            "Shop",
            "--webhook-url",
            &receiver.url,
            "--json",
        ])
        .output()
        .unwrap();
    assert!(created.status.success(), "{}", String::from_utf8_lossy(&created.stderr));
    let merchant: Value = serde_json::from_slice(&created.stdout).unwrap();
    let sandbox = &merchant["environments"]["Sandbox"];
    let running = process::serve(with_proxy(process::command(&url)));

    let client = reqwest::Client::builder().no_proxy().build().unwrap();
    let auth = answer(
        client
            .post(format!("{}/v1/auth", running.base))
            .basic_auth(sandbox["apiKey"].as_str().unwrap(), sandbox["apiSecret"].as_str())
            .header("X-Environment", "Sandbox"),
    )
    .await;
    assert_eq!(auth.status, StatusCode::OK, "{}", auth.body);
    let token = auth.body["data"]["token"].as_str().unwrap();
    let paid = answer(
        client
            .post(format!("{}/v1/collecte/mobile-money", running.base))
            .bearer_auth(token)
            .json(&collect_v1("proxied", "0701020301", "ALPHA_MONEY_CI", "1500")),
    )
    .await;
    assert_eq!(paid.status, StatusCode::OK, "{}", paid.body);
    eventually("the webhook", Duration::from_secs(30), async || {
        if receiver.received().is_empty() {
            Err(format!(
                "nothing yet; the proxy got {} connections",
                proxied.load(Ordering::SeqCst)
            ))
        } else {
            Ok(())
        }
    })
    .await;
    assert_eq!(
        proxied.load(Ordering::SeqCst),
        0,
        "the webhook went straight to its target"
    );
}

async fn a_huge_retry_after_waits_a_day_at_most(app: TestApp) {
    let wait_for_ever = Reply {
        retry_after: Some("18446744073709551615"),
        ..Reply::status(503)
    };
    let (receiver, token) = listen(&app, vec![wait_for_ever], None).await;
    post(
        &app,
        &token,
        "/v1/collecte/mobile-money",
        &collect_v1("forever", "0701020301", "ALPHA_MONEY_CI", "1500"),
    )
    .await;
    let d = dispatcher(&app);
    let first = later(0);
    assert_eq!(d.run_once(first).await.unwrap().retrying, 1);
    let id = receiver.received()[0].id.clone();
    let next = Timestamp::parse_iso8601(event_of(&app, &token, &id).await["nextAttemptAt"].as_str().unwrap()).unwrap();
    assert_eq!(
        next.millis() - first.millis(),
        86_400_000,
        "Retry-After is capped at a day"
    );
    let day_later = Timestamp(first.millis() + 86_400_000);
    assert_eq!(d.run_once(day_later).await.unwrap().delivered, 1);
}
