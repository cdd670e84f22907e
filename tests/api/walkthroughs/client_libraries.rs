//! The client libraries a merchant's developer integrates with, each driving a whole flow
//! through its own methods against a real gateway process (SQLite, its workers running):
//! `clients/typescript` and `clients/python`. Token, collections and transfers in both
//! generations, refunds, a payment link, a payout batch of three (and one from CSV), the
//! recipient check, customers, lists, the balance, the statement and the settlement report,
//! idempotency keys, typed errors, and a webhook received and verified with the Standard
//! Webhooks library of the language. Each flow prints a JSON line per check and
//! `{"done": true, …}`; a failed check exits non-zero.
//!
//! They need `node` and `npm`, and `python3` with `venv` (CI installs them; their packages come
//! from the npm registry and PyPI on first run). Where one is missing the test says SKIPPED, and
//! fails under `CI=true`.

use std::process::Command;

use momo_gateway::config::Config;
use serde_json::Value;

use crate::support::helpers::TestApp;
use momo_test_support::tools::runs_or_skip;
use momo_test_support::{ports, process, Backend};

fn allow_private(c: &mut Config) {
    c.webhook.allow_private = true;
}

/// Runs `script` (it prepares a client and prints a last line), returning that line.
fn prepare(script: &str) -> String {
    let output = Command::new("bash")
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/").to_owned() + script)
        .output()
        .expect("bash runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "scripts/{script}: {stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    stdout.lines().last().unwrap_or_default().trim().to_owned()
}

/// Starts a gateway process on `app`'s database with the merchant's webhooks pointed at a port
/// the flow listens on, runs `program args` as the flow, and returns its checks by name.
async fn run_flow(app: &TestApp, program: String, args: Vec<String>) -> Vec<Value> {
    let port = ports::free_port();
    app.gateway
        .merchants
        .set_webhook_url(
            &app.sandbox_tenant(),
            Some(&format!("http://127.0.0.1:{port}/webhooks")),
        )
        .await
        .unwrap();
    let mut command = process::command(&app.database_url);
    command.env("MOMO_WEBHOOK_ALLOW_PRIVATE", "true");
    let gateway = process::serve(command);
    let (base, creds) = (gateway.base.clone(), app.merchant.sandbox.clone());
    let output = tokio::task::spawn_blocking(move || {
        Command::new(&program)
            .args(&args)
            .env("MOMO_BASE_URL", base)
            .env("MOMO_API_KEY", &creds.api_key)
            .env("MOMO_API_SECRET", &creds.api_secret)
            .env("MOMO_WEBHOOK_PORT", port.to_string())
            .output()
            .expect("the flow runs")
    })
    .await
    .unwrap();
    gateway.kill();
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "the flow failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let lines: Vec<Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not a JSON line ({e}): {l}")))
        .collect();
    let done = lines.last().expect("the flow printed").clone();
    assert_eq!(done["done"], true, "{stdout}");
    let checks: Vec<Value> = lines.into_iter().filter(|l| l.get("check").is_some()).collect();
    assert_eq!(done["checks"].as_u64(), Some(checks.len() as u64), "{stdout}");
    for check in &checks {
        assert_eq!(check["ok"], true, "{check}");
    }
    checks
}

/// Holds a flow to what every client must show: a check per resource the merchant calls.
fn covers(checks: &[Value], names: &[&str]) {
    let ran: Vec<&str> = checks.iter().filter_map(|c| c["check"].as_str()).collect();
    for name in names {
        assert!(ran.iter().any(|r| r.starts_with(name)), "no {name} check in {ran:?}");
    }
}

/// What both flows must cover (each names its checks its own way, with these beginnings).
const RESOURCES: &[&str] = &[
    "token",
    "collection_v1",
    "collection_v2",
    "status",
    "transfer_v1",
    "transfer_v2",
    "refund_v1",
    "refund_v2",
    "payment_link",
    "payout_batch_json",
    "payout_batch_csv",
    "recipient_check",
    "customer",
    "transactions_list",
    "balance",
    "statement",
    "settlement_report",
    "idempoten",
    "webhook_secret_rotate",
    "webhook_received",
    "webhook_event",
];

#[tokio::test]
async fn the_typescript_client_runs_a_merchants_whole_flow() {
    let what = "TypeScript client";
    if !runs_or_skip("node", &["--version"], what) || !runs_or_skip("npm", &["--version"], what) {
        return;
    }
    assert_eq!(prepare("typescript-client.sh"), "ready");
    let app = TestApp::spawn_with(Backend::Sqlite, allow_private)
        .await
        .expect("SQLite is always there");
    let flow = concat!(env!("CARGO_MANIFEST_DIR"), "/clients/typescript/test/flow.mjs").to_owned();
    let checks = run_flow(&app, "node".to_owned(), vec![flow]).await;
    covers(&checks, RESOURCES);
    covers(&checks, &["error_typed"]);
}

#[tokio::test]
async fn the_python_client_runs_a_merchants_whole_flow() {
    // Debian splits `venv` and `ensurepip` out of `python3`.
    if !runs_or_skip("python3", &["-c", "import venv, ensurepip"], "Python client") {
        return;
    }
    let python = prepare("python-client.sh");
    let app = TestApp::spawn_with(Backend::Sqlite, allow_private)
        .await
        .expect("SQLite is always there");
    let flow = concat!(env!("CARGO_MANIFEST_DIR"), "/clients/python/tests/flow.py").to_owned();
    let checks = run_flow(&app, python, vec![flow]).await;
    covers(&checks, RESOURCES);
    covers(&checks, &["typed_error"]);
}
