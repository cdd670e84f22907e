//! One gateway process, as it runs in production: logs that keep secrets out, and SIGTERM under
//! load. Two processes sharing one PostgreSQL database are in `processes_sharing_postgres.rs`.

use std::collections::HashSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use momo_gateway::config::Config;
use momo_gateway::domain::{Environment, PageRequest, Tenant};
use momo_gateway::store::TransactionFilter;
use reqwest::StatusCode;
use serde_json::{json, Value};

use crate::support::helpers::answer;
use crate::support::requests::{collect_v1, transfer_v2};
use momo_test_support::process::{self, demo_value};
use momo_test_support::receiver::Receiver;
use momo_test_support::until;

pub(super) async fn token(client: &reqwest::Client, base: &str, key: &str, secret: &str) -> String {
    let a = answer(
        client
            .post(format!("{base}/v1/auth"))
            .basic_auth(key, Some(secret))
            .header("X-Environment", "Sandbox"),
    )
    .await;
    assert_eq!(a.status, StatusCode::OK, "{}", a.body);
    a.body["data"]["token"].as_str().unwrap().to_owned()
}

/// Waits (up to a minute) until `condition` holds.
pub(super) async fn eventually(what: &str, condition: impl AsyncFnMut() -> bool) {
    until(what, Duration::from_secs(60), condition).await
}

#[tokio::test]
async fn logs_never_contain_tokens_secrets_or_full_phone_numbers() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}/data/gateway.db", dir.path().display());
    let mut command = process::command(&url);
    command
        .env("MOMO_LOG_FORMAT", "json")
        .env("RUST_LOG", "debug")
        .env("MOMO_WEBHOOK_ALLOW_PRIVATE", "true")
        .env("MOMO_SIMULATOR_DELAY_MS", "100");
    let running = process::serve(command);
    let env_file = std::fs::read_to_string(dir.path().join("data/demo-sandbox.env")).unwrap();
    let (key, secret, webhook_secret) = (
        demo_value(&env_file, "DEMO_API_KEY"),
        demo_value(&env_file, "DEMO_API_SECRET"),
        demo_value(&env_file, "DEMO_WEBHOOK_SECRET"),
    );
    let receiver = Receiver::start(vec![], None).await;
    let listed = process::command(&url)
        .args(["merchant", "list", "--json"])
        .output()
        .unwrap();
    let merchant: Value = serde_json::from_slice(&listed.stdout).unwrap();
    let id = merchant[0]["id"].as_str().unwrap();
    let set = process::command(&url)
        .env("MOMO_WEBHOOK_ALLOW_PRIVATE", "true")
        .args([
            "merchant",
            "set-webhook",
            "--merchant",
            id,
            "--env",
            "Sandbox",
            "--url",
            &receiver.url,
        ])
        .output()
        .unwrap();
    assert!(set.status.success(), "{}", String::from_utf8_lossy(&set.stderr));

    let client = reqwest::Client::new();
    let base = running.base.clone();
    let token = token(&client, &base, &key, &secret).await;
    let bad = answer(
        client
            .post(format!("{base}/v1/auth"))
            .basic_auth(&key, Some("sk_wrong"))
            .header("X-Environment", "Sandbox"),
    )
    .await;
    assert_eq!(bad.status, StatusCode::UNAUTHORIZED);
    let customer = json!({"firstName": "Awa", "lastName": "Koné", "email": "awa@example.ci", "phoneNumber": "0701020304", "address": {"countryCode": "CI"}});
    assert_eq!(
        answer(
            client
                .post(format!("{base}/v1/customer"))
                .bearer_auth(&token)
                .json(&customer)
        )
        .await
        .status,
        StatusCode::OK
    );
    for (i, phone) in ["0701020301", "0701020302"].iter().enumerate() {
        let a = answer(
            client
                .post(format!("{base}/v1/collecte/mobile-money"))
                .bearer_auth(&token)
                .json(&collect_v1(&format!("log{i}"), phone, "ALPHA_MONEY_CI", "1000")),
        )
        .await;
        assert!(a.status.is_success(), "{}", a.body);
    }
    let a = answer(
        client
            .post(format!("{base}/v2/transfers/mobile-money"))
            .bearer_auth(&token)
            .json(&transfer_v2("log-t", json!(501020301), "BETA_CI", json!(1000))),
    )
    .await;
    assert!(a.status.is_success(), "{}", a.body);
    answer(
        client
            .get(format!("{base}/v2/get-status-payment/log0"))
            .bearer_auth(&token),
    )
    .await;
    eventually("three webhooks", async || receiver.received().len() >= 3).await;
    let log_lines = running.logs.clone();
    let (status, _) = running.terminate().await;
    assert!(status.success());

    let logs = log_lines.lock().unwrap().join("\n");
    assert!(logs.lines().count() > 10, "the scenario was logged");
    for line in logs.lines() {
        let parsed: Value = serde_json::from_str(line).unwrap_or_else(|_| panic!("not a JSON log line: {line}"));
        assert!(parsed.get("level").is_some() && parsed.get("timestamp").is_some());
    }
    assert!(
        logs.contains("\"request_id\"")
            && logs.contains("\"route\":\"/v1/collecte/mobile-money\"")
            && logs.contains(&format!("\"merchant\":\"{id}\""))
    );
    for secret in [
        token.as_str(),
        secret.as_str(),
        webhook_secret.as_str(),
        &webhook_secret["whsec_".len()..],
    ] {
        assert!(!logs.contains(secret), "a secret leaked into the logs");
    }
    for phone in [
        "0701020304",
        "0701020301",
        "0701020302",
        "0501020301",
        "501020301",
        "701020301",
    ] {
        assert!(!logs.contains(phone), "the full number {phone} leaked into the logs");
    }
    assert!(
        logs.contains("********01"),
        "numbers appear masked to their last two digits"
    );
}

#[tokio::test]
async fn sigterm_under_load_finishes_in_flight_requests_and_cuts_none_mid_transaction() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}/data/gateway.db", dir.path().display());
    let running = process::serve(process::command(&url));
    let env_file = std::fs::read_to_string(dir.path().join("data/demo-sandbox.env")).unwrap();
    let client = reqwest::Client::new();
    let token = token(
        &client,
        &running.base,
        &demo_value(&env_file, "DEMO_API_KEY"),
        &demo_value(&env_file, "DEMO_API_SECRET"),
    )
    .await;
    let answered = Arc::new(AtomicUsize::new(0));
    // Told at the 100th answer: SIGTERM then finds the load in full flight.
    let hundredth = Arc::new(tokio::sync::Notify::new());
    let mut load = tokio::task::JoinSet::new();
    for worker in 0..16 {
        let (client, base, token, answered) = (client.clone(), running.base.clone(), token.clone(), answered.clone());
        let hundredth = hundredth.clone();
        load.spawn(async move {
            let mut results = Vec::new();
            for i in 0..40 {
                let id = format!("load-{worker}-{i}");
                let sent = client
                    .post(format!("{base}/v1/collecte/mobile-money"))
                    .bearer_auth(&token)
                    .json(&collect_v1(&id, "0701020301", "ALPHA_MONEY_CI", "1000"))
                    .send()
                    .await;
                let outcome = match sent {
                    Ok(response) => {
                        let status = response.status();
                        let body = response.text().await;
                        if answered.fetch_add(1, Ordering::SeqCst) + 1 == 100 {
                            hundredth.notify_one();
                        }
                        Some((
                            status,
                            body.map(|b| serde_json::from_str::<Value>(&b).is_ok()).unwrap_or(false),
                        ))
                    }
                    Err(_) => None,
                };
                results.push((id, outcome));
            }
            results
        });
    }
    tokio::time::timeout(Duration::from_secs(60), hundredth.notified())
        .await
        .expect("100 answers under load");
    let (status, _) = running.terminate().await;
    assert!(status.success(), "exit 0 after SIGTERM: {status:?}");
    let mut confirmed = HashSet::new();
    while let Some(results) = load.join_next().await {
        for (id, outcome) in results.unwrap() {
            if let Some((status, json)) = outcome {
                assert_eq!(status, StatusCode::OK, "{id}");
                assert!(json, "{id}: a whole JSON answer, not a cut one");
                confirmed.insert(id);
            }
        }
    }
    assert!(confirmed.len() >= 100);
    // Every transaction in the database was answered, and every answer is in the database.
    let gateway = momo_gateway::app::open(Config {
        database_url: url,
        ..Config::default()
    })
    .await
    .unwrap();
    let merchant = gateway.merchants.merchants().await.unwrap()[0].id.clone();
    let tenant = Tenant {
        merchant_id: merchant,
        environment: Environment::Sandbox,
    };
    let stored: HashSet<String> = gateway
        .payments
        .transactions(
            &tenant,
            &TransactionFilter::default(),
            &PageRequest {
                limit: 1000,
                after: None,
            },
        )
        .await
        .unwrap()
        .into_iter()
        .map(|r| r.transaction.transaction_id.into_string())
        .collect();
    assert_eq!(
        stored, confirmed,
        "no request was cut off between its transaction and its answer"
    );
    let check = gateway.payments.check_ledger().await.unwrap();
    assert_eq!(
        (
            check.postings_sum,
            check.inconsistent_balances,
            check.final_without_one_event
        ),
        (0, 0, 0)
    );
}
