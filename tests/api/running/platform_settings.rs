//! The binary under a hosting platform's conventions: `PORT` and `DATABASE_URL` when no `MOMO_*`
//! variable says otherwise, `MOMO_CONFIG` for the settings file, and the demo banner in the log
//! format (one JSON object per line when logs are JSON).

use std::process::Output;

use reqwest::StatusCode;
use serde_json::Value;

use crate::support::helpers::{answer, free_port};
use momo_test_support::both_backends;
use momo_test_support::process;
use momo_test_support::TestDatabase;

both_backends!(
    TestDatabase::create =>
    database_url_is_the_database_when_momo_database_url_is_not_set,
);

fn run(command: &mut std::process::Command) -> Output {
    command.output().expect("the binary runs")
}

fn stdout_json(output: &Output) -> Value {
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_slice(&output.stdout).expect("JSON on stdout")
}

async fn database_url_is_the_database_when_momo_database_url_is_not_set(db: TestDatabase) {
    let mut platform = process::command("sqlite://unused");
    platform.env_remove("MOMO_DATABASE_URL").env("DATABASE_URL", &db.url);
    let created = stdout_json(&run(platform.args([
        "merchant",
        "create",
        "--name",
        "Platform shop",
        "--json",
    ])));
    // MOMO_DATABASE_URL wins: a DATABASE_URL it overrides is not even read.
    let mut both = process::command(&db.url);
    both.env("DATABASE_URL", "mysql://not-read");
    let listed = stdout_json(&run(both.args(["merchant", "list", "--json"])));
    assert_eq!(listed[0]["id"], created["id"], "the same database: {listed}");
    // Alone, an invalid DATABASE_URL stops the start, named.
    let mut bad = process::command("sqlite://unused");
    bad.env_remove("MOMO_DATABASE_URL").env("DATABASE_URL", "mysql://x");
    let output = run(bad.arg("migrate"));
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("DATABASE_URL"));
}

#[tokio::test]
async fn port_is_served_on_every_interface_when_momo_listen_is_not_set() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}/gateway.db", dir.path().display());
    let port = free_port();
    let mut command = process::command(&url);
    command.env_remove("MOMO_LISTEN").env("PORT", port.to_string());
    let running = process::serve(command);
    assert_eq!(running.base, format!("http://0.0.0.0:{port}"));
    let health = answer(reqwest::Client::new().get(format!("http://127.0.0.1:{port}/health"))).await;
    assert_eq!(health.status, StatusCode::OK);
    let (status, stdout) = running.terminate().await;
    assert!(status.success());
    assert!(
        !stdout.contains("demo merchant"),
        "not a loopback address: no demo merchant"
    );

    let mut command = process::command(&url);
    command.env("PORT", port.to_string());
    let running = process::serve(command);
    assert!(
        running.base.starts_with("http://127.0.0.1:") && !running.base.ends_with(&format!(":{port}")),
        "MOMO_LISTEN (127.0.0.1:0) wins over PORT: {}",
        running.base
    );
    running.terminate().await;
}

#[test]
fn momo_config_names_the_settings_file() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("momo.toml");
    std::fs::write(&file, "token_tll_s = 60\n").unwrap();
    let url = format!("sqlite://{}/gateway.db", dir.path().display());
    let output = run(process::command(&url).env("MOMO_CONFIG", &file).arg("migrate"));
    assert_eq!(output.status.code(), Some(2), "the file was read");
    assert!(String::from_utf8_lossy(&output.stderr).contains("token_tll_s"));
    let db = dir.path().join("from-file.db");
    std::fs::write(&file, format!("database_url = \"sqlite://{}\"\n", db.display())).unwrap();
    let mut command = process::command(&url);
    command.env_remove("MOMO_DATABASE_URL").env("MOMO_CONFIG", &file);
    let output = run(command.arg("migrate"));
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(db.exists(), "the database the file names");
}

#[tokio::test]
async fn with_json_logs_the_demo_banner_is_one_json_log_line() {
    let dir = tempfile::tempdir().unwrap();
    let mut command = process::command(&format!("sqlite://{}/data/gateway.db", dir.path().display()));
    command.env("MOMO_LOG_FORMAT", "json");
    let running = process::serve(command);
    let logs = running.logs.clone();
    let (status, stdout) = running.terminate().await;
    assert!(status.success());
    let env_file = std::fs::read_to_string(dir.path().join("data/demo-sandbox.env")).unwrap();
    let lines: Vec<&str> = stdout.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 1, "one line: {stdout}");
    let banner: Value = serde_json::from_str(lines[0]).expect("a JSON object");
    assert_eq!(banner["level"], "INFO");
    assert!(banner["timestamp"].as_str().unwrap().ends_with('Z'), "{banner}");
    let fields = &banner["fields"];
    assert!(
        fields["message"].as_str().unwrap().contains("demo merchant"),
        "{banner}"
    );
    for (field, name) in [
        ("api_key", "DEMO_API_KEY"),
        ("api_secret", "DEMO_API_SECRET"),
        ("webhook_secret", "DEMO_WEBHOOK_SECRET"),
    ] {
        assert_eq!(fields[field], process::demo_value(&env_file, name), "{field}");
    }
    assert!(fields["saved_to"].as_str().unwrap().ends_with("demo-sandbox.env"));
    for line in logs.lock().unwrap().iter() {
        let log: Value = serde_json::from_str(line).unwrap_or_else(|_| panic!("a JSON log line: {line}"));
        assert!(log["fields"].is_object(), "{line}");
        assert!(
            !line.contains(&process::demo_value(&env_file, "DEMO_API_SECRET")),
            "the secret is never logged"
        );
    }
}
