//! The binary itself: configuration errors, the admin command line, and a first start that
//! creates the demo merchant and stops cleanly on SIGTERM.

use std::path::Path;
use std::process::{Command, Output};

use reqwest::StatusCode;
use serde_json::Value;

use crate::support::helpers::answer;
use momo_test_support::process;

fn gateway(db_dir: &Path) -> Command {
    process::command(&format!("sqlite://{}/data/gateway.db", db_dir.display()))
}

fn run(command: &mut Command) -> Output {
    command.output().expect("the binary runs")
}

fn stderr_lines(output: &Output) -> Vec<String> {
    String::from_utf8_lossy(&output.stderr)
        .lines()
        .map(str::to_owned)
        .collect()
}

#[test]
fn an_invalid_setting_stops_the_start_with_one_line_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        ("MOMO_TOKEN_TTL_S", "ten"),
        ("MOMO_LISTEN", "localhost"),
        ("MOMO_DATABASE_URL", "mysql://x"),
        ("MOMO_JWT_SECRET", "too-short"),
        ("MOMO_WEBHOOK_RETRY_SCHEDULE", "5,soon"),
        ("MOMO_MAX_BODY_BYTES", "-1"),
    ];
    for (name, value) in cases {
        let output = run(gateway(dir.path()).env(name, value));
        assert_eq!(output.status.code(), Some(2), "{name}={value}");
        let lines = stderr_lines(&output);
        assert_eq!(lines.len(), 1, "one line: {lines:?}");
        assert!(lines[0].contains(name), "{lines:?} names {name}");
        assert!(lines[0].contains("expected"), "{lines:?} says what is accepted");
    }
    let file = dir.path().join("momo.toml");
    std::fs::write(&file, "token_tll_s = 60\n").unwrap();
    let output = run(gateway(dir.path()).arg("--config").arg(&file).arg("migrate"));
    assert_eq!(output.status.code(), Some(2));
    let lines = stderr_lines(&output);
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(lines[0].contains("token_tll_s"), "{lines:?}");
}

#[test]
fn a_webhook_lease_shorter_than_the_send_timeout_stops_the_start_saying_what_to_change() {
    let dir = tempfile::tempdir().unwrap();
    let output = run(gateway(dir.path())
        .env("MOMO_WEBHOOK_TIMEOUT_MS", "60000")
        .env("MOMO_WEBHOOK_LEASE_S", "30")
        .arg("serve"));
    assert_eq!(output.status.code(), Some(2));
    let lines = stderr_lines(&output);
    assert_eq!(lines.len(), 1, "one line: {lines:?}");
    for said in ["MOMO_WEBHOOK_LEASE_S", "MOMO_WEBHOOK_TIMEOUT_MS", "at least 65"] {
        assert!(lines[0].contains(said), "{lines:?} says {said}");
    }
    assert!(!dir.path().join("data").exists(), "nothing was started");
    let file = dir.path().join("momo.toml");
    std::fs::write(&file, "webhook_timeout_ms = 60000\n").unwrap();
    let output = run(gateway(dir.path()).arg("--config").arg(&file).arg("serve"));
    assert_eq!(output.status.code(), Some(2), "the same from a file");
    assert!(stderr_lines(&output)[0].contains("MOMO_WEBHOOK_LEASE_S (30 s)"));
}

#[test]
fn every_command_has_help() {
    for args in [
        vec!["--help"],
        vec!["serve", "--help"],
        vec!["migrate", "--help"],
        vec!["merchant", "--help"],
        vec!["merchant", "create", "--help"],
        vec!["merchant", "rotate-secret", "--help"],
        vec!["merchant", "rotate-webhook-secret", "--help"],
        vec!["merchant", "set-webhook", "--help"],
        vec!["merchant", "top-up", "--help"],
        vec!["transactions", "--help"],
        vec!["transactions", "resolve", "--help"],
        vec!["transactions", "refund", "--help"],
        vec!["webhooks", "--help"],
        vec!["webhooks", "redeliver", "--help"],
    ] {
        let output = run(Command::new(process::binary()).args(&args));
        assert!(output.status.success(), "{args:?}");
        assert!(String::from_utf8_lossy(&output.stdout).contains("Usage"), "{args:?}");
    }
}

#[test]
fn merchants_are_created_listed_rotated_and_configured_from_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let output = run(gateway(dir.path()).args([
        "merchant",
        "create",
        "--name",
        "Boutique Awa",
        "--webhook-url",
        "https://shop.example.ci/hooks",
        "--json",
    ]));
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let created: Value = serde_json::from_slice(&output.stdout).unwrap();
    let id = created["id"].as_str().unwrap();
    for env in ["Production", "Sandbox"] {
        let e = &created["environments"][env];
        assert!(e["apiKey"].as_str().unwrap().starts_with("pk_"));
        assert!(e["apiSecret"].as_str().unwrap().starts_with("sk_"));
        assert!(e["webhookSecret"].as_str().unwrap().starts_with("whsec_"));
        assert_eq!(e["webhookUrl"], "https://shop.example.ci/hooks");
    }

    let output = run(gateway(dir.path()).args(["merchant", "list", "--json"]));
    let listed: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(listed[0]["id"], id);
    assert!(
        !String::from_utf8_lossy(&output.stdout).contains("sk_"),
        "no secret is ever listed"
    );

    let output = run(gateway(dir.path()).args([
        "merchant",
        "rotate-secret",
        "--merchant",
        id,
        "--env",
        "Sandbox",
        "--json",
    ]));
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let rotated: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_ne!(rotated["apiKey"], created["environments"]["Sandbox"]["apiKey"]);

    let output = run(gateway(dir.path()).args([
        "merchant",
        "set-webhook",
        "--merchant",
        id,
        "--env",
        "Production",
        "--url",
        "ftp://x",
    ]));
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&output.stderr).contains("http"));
    let output = run(gateway(dir.path()).args([
        "merchant",
        "set-webhook",
        "--merchant",
        "nobody",
        "--env",
        "Production",
        "--url",
        "https://x.ci",
    ]));
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&output.stderr).contains("not found"));
    let output = run(gateway(dir.path()).args([
        "merchant",
        "set-webhook",
        "--merchant",
        id,
        "--env",
        "Staging",
        "--url",
        "https://x.ci",
    ]));
    assert_eq!(output.status.code(), Some(2), "clap refuses an unknown environment");
}

#[tokio::test]
async fn a_first_start_creates_the_demo_merchant_and_sigterm_stops_it_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let running = process::serve(process::command(&format!(
        "sqlite://{}/data/gateway.db",
        dir.path().display()
    )));
    let env_file = std::fs::read_to_string(dir.path().join("data/demo-sandbox.env")).unwrap();
    let value = |name: &str| process::demo_value(&env_file, name);
    let client = reqwest::Client::new();
    let a = answer(client.get(format!("{}/health", running.base))).await;
    assert_eq!(a.status, StatusCode::OK);
    let a = answer(
        client
            .post(format!("{}/v1/auth", running.base))
            .basic_auth(value("DEMO_API_KEY"), Some(value("DEMO_API_SECRET")))
            .header("X-Environment", "Sandbox"),
    )
    .await;
    assert_eq!(
        a.status,
        StatusCode::OK,
        "the demo's Sandbox credentials work: {}",
        a.body
    );
    let logs = running.logs.lock().unwrap().join("\n");
    assert!(
        logs.contains("ALPHA:Sandbox=simulator") && logs.contains("ALPHA:Production=refused"),
        "serve prints the routing table, Production unrouted by default: {logs}"
    );
    let (status, stdout) = running.terminate().await;
    assert!(status.success(), "SIGTERM stops it with exit 0: {status:?}");
    assert!(
        stdout.contains(&value("DEMO_API_SECRET")),
        "the secret is shown on the terminal once"
    );
}
