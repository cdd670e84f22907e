//! The README's curl walkthrough, run as written: the gateway as a process on a fresh SQLite
//! file (it creates the demo merchant and saves `data/demo-sandbox.env`), then the shell blocks
//! of "Your first calls, with curl", from the folder a reader would be in. The README cannot
//! drift from the code without this failing.

use std::process::Command;

use crate::support::helpers::free_port;
use momo_test_support::process;

const README: &str = include_str!("../../../README.md");

/// The `sh` blocks between the walkthrough's heading and the next section.
fn walkthrough() -> String {
    let start = README
        .find("## Your first calls, with curl")
        .expect("the README has its walkthrough");
    let section = &README[start..];
    let end = section[3..].find("\n## ").map_or(section.len(), |i| i + 3);
    let mut script = String::new();
    let mut inside = false;
    for line in section[..end].lines() {
        match (inside, line.trim_start()) {
            (false, "```sh") => inside = true,
            (true, "```") => inside = false,
            (true, _) => {
                script.push_str(line);
                script.push('\n');
            }
            _ => {}
        }
    }
    script
}

#[tokio::test]
async fn the_readme_walkthrough_runs_as_written() {
    if Command::new("curl").arg("--version").output().is_err() {
        assert!(!momo_test_support::in_ci(), "curl is required when CI=true");
        eprintln!("readme walkthrough SKIPPED: curl is not installed");
        return;
    }
    let script = walkthrough();
    assert!(
        script.contains("source data/demo-sandbox.env") && script.contains("curl"),
        "{script}"
    );
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let mut command = process::command(&format!("sqlite://{}/data/gateway.db", dir.path().display()));
    command
        .env("MOMO_LISTEN", format!("127.0.0.1:{port}"))
        .env("MOMO_PUBLIC_URL", format!("http://127.0.0.1:{port}"))
        .current_dir(dir.path());
    let gateway = process::serve(command);
    let cwd = dir.path().to_owned();
    let output = tokio::task::spawn_blocking(move || {
        Command::new("bash")
            .args(["-eo", "pipefail", "-c", &script])
            .current_dir(cwd)
            .output()
            .expect("bash runs")
    })
    .await
    .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "the walkthrough failed: {stderr}\n{stdout}");
    for expected in [
        "\"firstName\":\"Awa\"",             // 2. the customer, echoed
        "HTTP/1.1 200",                      // 4. the list, with its headers
        "\"transactionId\":\"order-1001\"",  // 5. the collection
        "\"transaction_id\":\"order-1001\"", // 6. its status, in the v2 envelope
        "\"status\":\"SUCCESSFUL\"",         // 6. and 7.
        "\"transaction_id\":\"payout-1\"",   // 7. the transfer
        "\"available\"",                     // 7. the balance
    ] {
        assert!(
            stdout.contains(expected),
            "{expected} in the walkthrough's output:\n{stdout}"
        );
    }
    for refused in [
        "\"statusCode\":4",
        "\"statusCode\":5",
        "\"status\":\"ERROR\"",
        "\"code_status\":4",
    ] {
        assert!(!stdout.contains(refused), "no step refused ({refused}):\n{stdout}");
    }
    let (exit, _) = gateway.terminate().await;
    assert!(exit.success(), "{exit:?}");
}
