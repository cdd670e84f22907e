//! A real client script drives a whole flow, as an existing integration does:
//! `clients/python/momo_client.py` (standard library only) with the brand operator codes of the
//! live service's client libraries, against a deployment that maps them
//! (`MOMO_OPERATOR_ALIASES`). Token, a collection per operator, a transfer, status lookups, the
//! balance and all transactions: each answer as the merchant reads it.

use std::process::Command;

use serde_json::{json, Value};

use crate::operators::aliases::brand_aliases;
use crate::support::helpers::TestApp;
use momo_test_support::both_backends;
use momo_test_support::tools::runs_or_skip;

both_backends!(
    TestApp::spawn_with(brand_aliases) =>
    the_python_client_runs_a_whole_flow_with_brand_codes,
);

async fn the_python_client_runs_a_whole_flow_with_brand_codes(app: TestApp) {
    if !runs_or_skip("python3", &["--version"], "client script") {
        return;
    }
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/clients/python/momo_client.py");
    let creds = app.merchant.sandbox.clone();
    let base = app.base.clone();
    let output = tokio::task::spawn_blocking(move || {
        Command::new("python3")
            .args(["-X", "utf8", script, "flow", "--base", &base])
            .args(["--key", &creds.api_key, "--secret", &creds.api_secret])
            .output()
            .expect("python3 runs (the README lists it with the tests' needs)")
    })
    .await
    .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "the client's flow: {stderr}");
    let report: Value = serde_json::from_slice(&output.stdout).expect("the client prints JSON");

    assert_eq!(report["authenticated"], true);
    let collections = &report["collections"];
    assert_eq!(
        collections["ORANGE_MONEY_CI"],
        json!({"http": 200, "status": "SUCCESSFUL", "operator": "ORANGE_MONEY_CI", "fees": "20", "launch_url": null}),
        "ALPHA under its brand, with its one-time code and fees"
    );
    let wave = &collections["WAVE_CI"];
    assert_eq!(
        (&wave["http"], &wave["status"], &wave["operator"]),
        (&json!(202), &json!("PENDING"), &json!("WAVE_CI"))
    );
    assert_eq!(wave["fees"], "15", "BETA's fees");
    assert!(
        wave["launch_url"].as_str().is_some_and(|u| u.starts_with("http")),
        "{wave}"
    );
    assert_eq!(
        collections["MTN_MONEY_CI"],
        json!({"http": 200, "status": "SUCCESSFUL", "operator": "MTN_MONEY_CI", "fees": "20", "launch_url": null})
    );
    assert_eq!(
        report["transfer"],
        json!({"http": 200, "status": "SUCCESSFUL", "operator": "MTN_MONEY_CI"})
    );
    let lookups = &report["lookups"];
    for (id, status, code) in [
        ("py-orange_money_ci", "SUCCESSFUL", "ORANGE_MONEY_CI"),
        ("py-wave_ci", "PENDING", "WAVE_CI"),
        ("py-mtn_money_ci", "SUCCESSFUL", "MTN_MONEY_CI"),
        ("py-transfer", "SUCCESSFUL", "MTN_MONEY_CI"),
    ] {
        assert_eq!(
            lookups[id],
            json!({"http": 200, "status": status, "type_payment": code}),
            "{id}"
        );
    }
    assert_eq!(lookups["py-unknown"]["http"], 404);
    let balance = &report["balance"];
    assert_eq!(balance["http"], 200);
    let available: i64 = balance["available"].as_str().unwrap().parse().unwrap();
    let opening = app.gateway.config().sandbox_initial_balance;
    // Two collections of 1,000 less 20 each, one transfer of 500 and its 5 fee.
    assert_eq!(available, opening + 2 * 980 - 505, "{balance}");
    let items = report["transactions"]["items"].as_array().unwrap();
    assert_eq!(items.len(), 4, "{items:?}");
    assert!(
        items
            .iter()
            .all(|t| t["operator"].as_str().is_some_and(|o| o.ends_with("_CI")
                && !o.starts_with("ALPHA")
                && !o.starts_with("BETA")
                && !o.starts_with("GAMMA"))),
        "brand codes in the list: {items:?}"
    );
    app.assert_ledger().await;
}
