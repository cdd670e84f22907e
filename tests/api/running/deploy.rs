//! `deploy/`: the Grafana dashboard and the Prometheus alerts read only metrics that `/metrics`
//! exposes (a misspelt name fails here, not silently on a wall screen), their PromQL parses
//! (`promtool check rules`), and the alerts fire as `deploy/prometheus/alerts.test.yml` says
//! (`promtool test rules`). promtool comes with Debian's `prometheus` package, which `.ci/run`
//! installs; where it is missing the promtool half says SKIPPED, and fails under `CI=true`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::support::helpers::TestApp;
use momo_test_support::Backend;

fn deploy(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("deploy").join(path)
}

fn read(path: &str) -> String {
    std::fs::read_to_string(deploy(path)).unwrap_or_else(|e| panic!("deploy/{path}: {e}"))
}

/// The metric names a text names: its words that begin like the gateway's and the process's
/// series. Comment lines (`#`) are left out: they speak of families (`momo_http_*`).
fn metric_names(text: &str) -> BTreeSet<String> {
    text.lines()
        .filter(|line| !line.trim_start().starts_with('#'))
        .flat_map(|line| line.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')))
        .filter(|word| word.starts_with("momo_") || word.starts_with("process_"))
        .map(str::to_owned)
        .collect()
}

/// Every series name an exposition can show: its samples', and for each `# TYPE` the names a
/// counter or a histogram samples under, so a family nothing has touched yet counts too.
fn exposed(exposition: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for line in exposition.lines() {
        if let Some(declared) = line.strip_prefix("# TYPE ") {
            let mut parts = declared.split_whitespace();
            let (Some(name), Some(kind)) = (parts.next(), parts.next()) else {
                continue;
            };
            let suffixes: &[&str] = match kind {
                "counter" => &["_total"],
                "histogram" => &["_bucket", "_sum", "_count"],
                _ => &[""],
            };
            let base = name.strip_suffix("_total").unwrap_or(name);
            names.extend(suffixes.iter().map(|s| format!("{base}{s}")));
        } else if !line.starts_with('#') {
            if let Some(name) = line.split(['{', ' ']).next().filter(|n| !n.is_empty()) {
                names.insert(name.to_owned());
            }
        }
    }
    names
}

/// The PromQL of every panel and variable of a Grafana dashboard.
fn dashboard_queries(dashboard: &Value) -> Vec<String> {
    let mut queries = Vec::new();
    for panel in dashboard["panels"].as_array().expect("a dashboard has panels") {
        for target in panel["targets"].as_array().into_iter().flatten() {
            queries.push(target["expr"].as_str().expect("every target has an expr").to_owned());
        }
    }
    for variable in dashboard["templating"]["list"].as_array().into_iter().flatten() {
        if let Some(query) = variable["definition"].as_str() {
            queries.push(query.to_owned());
        }
    }
    queries
}

/// The names in `text` that `exposed` lacks.
fn unknown(text: &str, exposed: &BTreeSet<String>) -> Vec<String> {
    metric_names(text)
        .into_iter()
        .filter(|n| !exposed.contains(n))
        .collect()
}

async fn exposition() -> String {
    let app = TestApp::spawn(Backend::Sqlite).await.expect("SQLite is always there");
    app.get("/metrics").send().await.unwrap().text().await.unwrap()
}

#[tokio::test]
async fn the_dashboard_and_the_alerts_name_only_metrics_the_gateway_exposes() {
    let exposed = exposed(&exposition().await);
    assert!(exposed.contains("momo_http_requests_total") && exposed.contains("momo_webhook_endpoints_failing"));
    let dashboard: Value = serde_json::from_str(&read("grafana/momo-gateway.json")).expect("the dashboard is JSON");
    let queries = dashboard_queries(&dashboard).join("\n");
    assert!(
        metric_names(&queries).len() > 20,
        "the dashboard reads the gateway's metrics"
    );
    assert_eq!(
        unknown(&queries, &exposed),
        Vec::<String>::new(),
        "the dashboard's queries"
    );
    for file in ["prometheus/alerts.yml", "prometheus/alerts.test.yml"] {
        let text = read(file);
        assert!(metric_names(&text).len() > 5, "{file} names the gateway's metrics");
        assert_eq!(unknown(&text, &exposed), Vec::<String>::new(), "deploy/{file}");
    }
}

#[tokio::test]
async fn a_misspelt_metric_in_the_dashboard_or_an_alert_is_found() {
    let exposed = exposed(&exposition().await);
    let alerts = read("prometheus/alerts.yml").replace("momo_outbox_backlog", "momo_outbox_backlogg");
    assert_eq!(unknown(&alerts, &exposed), ["momo_outbox_backlogg"]);
    let dashboard =
        read("grafana/momo-gateway.json").replace("momo_operator_breaker_state", "momo_operator_breaker_status");
    let queries = dashboard_queries(&serde_json::from_str(&dashboard).unwrap()).join("\n");
    assert_eq!(unknown(&queries, &exposed), ["momo_operator_breaker_status"]);
}

#[test]
fn each_alert_has_a_runbook_in_the_operations_page() {
    let alerts: serde_yaml::Value = serde_yaml::from_str(&read("prometheus/alerts.yml")).unwrap();
    let operations = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/operations.md")).unwrap();
    let mut count = 0;
    for group in alerts["groups"].as_sequence().unwrap() {
        for rule in group["rules"].as_sequence().unwrap() {
            let name = rule["alert"].as_str().expect("every rule is an alert");
            let anchor = format!("docs/operations.md#{}", name.to_lowercase());
            assert_eq!(
                rule["annotations"]["runbook_url"].as_str(),
                Some(anchor.as_str()),
                "{name}"
            );
            assert!(
                operations.contains(&format!("### {name}\n")),
                "docs/operations.md has no runbook for {name}"
            );
            count += 1;
        }
    }
    assert!(count >= 8, "{count} alerts");
}

/// Runs promtool with `args` in `deploy/prometheus`; `None` where it is not installed.
fn promtool(args: &[&str]) -> Option<std::process::Output> {
    match Command::new("promtool")
        .args(args)
        .current_dir(deploy("prometheus"))
        .output()
    {
        Ok(output) => Some(output),
        Err(_) => {
            assert!(
                !momo_test_support::in_ci(),
                "promtool is required when CI=true (.ci/run installs it)"
            );
            eprintln!("promtool checks SKIPPED: promtool is not installed");
            None
        }
    }
}

fn succeeds(output: std::process::Output, what: &str) {
    assert!(
        output.status.success(),
        "{what}: {}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn promtool_checks_the_alerts_runs_their_tests_and_parses_every_panel() {
    let Some(checked) = promtool(&["check", "rules", "alerts.yml"]) else {
        return;
    };
    succeeds(checked, "promtool check rules alerts.yml");
    succeeds(
        promtool(&["test", "rules", "alerts.test.yml"]).unwrap(),
        "promtool test rules",
    );
    // The panels' PromQL as recording rules, which `check rules` parses; Grafana's variables
    // replaced by what they stand for.
    let dashboard: Value = serde_json::from_str(&read("grafana/momo-gateway.json")).unwrap();
    let mut rules = String::from("groups:\n  - name: dashboard\n    rules:\n");
    for (i, query) in dashboard_queries(&dashboard).iter().enumerate() {
        if query.starts_with("label_values(") {
            continue;
        }
        let promql = query.replace("$__rate_interval", "5m").replace("$job", ".*");
        rules.push_str(&format!(
            "      - record: dashboard:panel_{i}\n        expr: {}\n",
            serde_json::to_string(&promql).unwrap()
        ));
    }
    let file = std::env::temp_dir().join(format!("momo-dashboard-rules-{}.yml", std::process::id()));
    std::fs::write(&file, rules).unwrap();
    let output = promtool(&["check", "rules", file.to_str().unwrap()]).unwrap();
    let _ = std::fs::remove_file(&file);
    succeeds(output, "promtool check rules on the dashboard's queries");
}
