//! A newcomer's Production, from docs/operators.md ("Pointing Production at real operators"):
//! the gateway started as a process with the routing that page gives, read from the page, every
//! operator's protocol pointed at the emulator. It starts, logs its routes, and takes a
//! collection from each of the four operators in Production.

use reqwest::StatusCode;
use serde_json::json;

use crate::support::emulated::{self, PAYDUNYA_MASTER_KEY};
use crate::support::helpers::{answer, free_port, TEST_JWT_SECRET};
use crate::support::process_merchant::ProcessMerchant;
use crate::support::requests::collect_v1;
use momo_test_support::{both_backends, process, TestDatabase};

both_backends!(TestDatabase::create => the_documented_production_routing_serves_every_operator);

/// The value `export NAME=` has in docs/operators.md's Production section.
fn documented(name: &str) -> String {
    let page = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/operators.md")).unwrap();
    let section = page
        .split("## Pointing Production at real operators")
        .nth(1)
        .expect("docs/operators.md shows how to point Production at real operators");
    let prefix = format!("export {name}=");
    let line = section
        .lines()
        .find_map(|l| l.trim().strip_prefix(prefix.as_str()))
        .unwrap_or_else(|| panic!("docs/operators.md sets {name}"));
    line.split_whitespace().next().unwrap_or_default().to_owned()
}

async fn the_documented_production_routing_serves_every_operator(db: TestDatabase) {
    let routes = documented("MOMO_OPERATOR_CONNECTORS");
    for operator in ["ALPHA", "BETA", "GAMMA", "DELTA"] {
        assert!(routes.contains(&format!("{operator}:Production=")), "{routes}");
    }
    let m = ProcessMerchant::create(&db, "Production").await;
    let port = free_port();
    let emulator = emulated::start(port, std::time::Duration::from_secs(60), "Production").await;
    let url = emulator.url.as_str();
    let mut command = process::command(&db.url);
    command
        .env("MOMO_LISTEN", format!("127.0.0.1:{port}"))
        .env("MOMO_PUBLIC_URL", format!("http://127.0.0.1:{port}"))
        .env("MOMO_JWT_SECRET", TEST_JWT_SECRET)
        .env("MOMO_OPERATOR_CONNECTORS", &routes)
        // The emulator speaks http on this machine; a real deployment's URLs are https.
        .env("MOMO_OPERATOR_ALLOW_HTTP", "true")
        .env("MOMO_MOMO_OPENAPI_URL", url)
        .env(
            "MOMO_MOMO_OPENAPI_COLLECTION",
            "collection-user:collection-key:collection-subscription",
        )
        .env(
            "MOMO_MOMO_OPENAPI_DISBURSEMENT",
            "disbursement-user:disbursement-key:disbursement-subscription",
        )
        .env("MOMO_MOMO_OPENAPI_CALLBACK_TOKEN", "a-callback-secret-for-production")
        .env("MOMO_WAVE_URL", url)
        .env("MOMO_WAVE_API_KEY", "wave-test-key")
        .env("MOMO_WAVE_WEBHOOK_SECRET", "wave-webhook-secret")
        .env("MOMO_PAYDUNYA_URL", url)
        .env("MOMO_PAYDUNYA_MASTER_KEY", PAYDUNYA_MASTER_KEY)
        .env("MOMO_PAYDUNYA_PRIVATE_KEY", "paydunya-private-key")
        .env("MOMO_PAYDUNYA_TOKEN", "paydunya-token");
    let gateway = process::serve(command);
    let logged = gateway.logs.lock().unwrap().join("\n");
    assert!(
        logged.contains("ALPHA:Production=paydunya"),
        "serve logs its routes: {logged}"
    );
    let client = reqwest::Client::new();
    let token = m.production_token(&client, &gateway.base).await;
    for operator in ["ALPHA", "BETA", "GAMMA", "DELTA"] {
        let mut body = collect_v1(
            &format!("prod-{operator}"),
            "0701020301",
            &format!("{operator}_MONEY_CI"),
            "1500",
        );
        if operator == "ALPHA" {
            body["otpCode"] = json!("1234");
        }
        let sent = client
            .post(format!("{}/v1/collecte/mobile-money", gateway.base))
            .bearer_auth(&token)
            .json(&body);
        let a = answer(sent).await;
        assert_eq!(
            a.status,
            StatusCode::ACCEPTED,
            "{operator} is served in Production: {}",
            a.body
        );
    }
    let at_operator = emulated::admin(&emulator, "payments").await;
    for protocol in ["momo-openapi", "wave-checkout", "paydunya"] {
        let reached = at_operator
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["protocol"] == protocol);
        assert!(reached, "{protocol} carried a payment: {at_operator}");
    }
    let (exit, _) = gateway.terminate().await;
    assert!(exit.success());
}
