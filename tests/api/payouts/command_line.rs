//! `momo-gateway payouts batch --file`, the binary run against the database of a running
//! gateway, on both databases: a CSV's lines get their own outcomes, the command follows the
//! batch while the gateway's sender drains it and prints a summary; a file that is no batch
//! exits 1 having recorded nothing.

use std::io::Write;
use std::process::Output;

use momo_gateway::reconcile::payout_sender::{self, Pace};
use serde_json::Value;

use crate::support::helpers::{answer, later, TestApp};
use momo_test_support::{both_backends, process};

both_backends!(
    TestApp::spawn =>
    a_csv_is_paid_from_the_command_line_and_a_wrong_file_records_nothing,
);

const FILE: &str = "transaction_id,operator,phone,amount,last_name,first_name,email\n\
cli-1,GAMMA_MONEY_CI,0701020301,1500,Koné,Awa,awa@example.ci\n\
cli-2,ALPHA_MONEY_CI,0701020311,2500,Yao,Koffi,\n\
cli-3,GAMMA_MONEY_CI,0701020301,12.5,Koné,Awa,\n\
cli-1,GAMMA_MONEY_CI,0701020301,1500,Koné,Awa,\n";

/// `payouts batch` for the test merchant's Sandbox, with `file`'s text and `args` after.
async fn batch(app: &TestApp, file: &str, args: &[&str]) -> Output {
    let mut csv = tempfile::NamedTempFile::new().unwrap();
    csv.write_all(file.as_bytes()).unwrap();
    let mut command = process::command(&app.database_url);
    command
        .args([
            "payouts",
            "batch",
            "--merchant",
            app.merchant.id.as_str(),
            "--env",
            "Sandbox",
            "--file",
        ])
        .arg(csv.path())
        .args(args);
    tokio::task::spawn_blocking(move || {
        let output = command.output().expect("the binary runs");
        drop(csv);
        output
    })
    .await
    .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

async fn a_csv_is_paid_from_the_command_line_and_a_wrong_file_records_nothing(app: TestApp) {
    // The gateway's sender, as `serve` runs it, while the command waits.
    let payouts = app.gateway.payouts.clone();
    let sender = tokio::spawn(async move {
        let pace = Pace::new(1_000);
        loop {
            payout_sender::run_once(&payouts, &pace, later(0)).await.unwrap();
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
    });
    let done = batch(&app, FILE, &["--label", "November"]).await;
    sender.abort();
    assert!(done.status.success(), "{}{}", text(&done.stdout), text(&done.stderr));
    let out = text(&done.stdout);
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].starts_with("batch pbt_"), "{out}");
    assert!(
        lines[0].ends_with("recorded: 2 of 4 lines accepted (4000 XOF), 2 refused, 0 duplicates"),
        "{out}"
    );
    assert!(lines[1].starts_with("line 4: refused (invalid): amount"), "{out}");
    assert_eq!(
        lines[2],
        "line 5: refused (duplicate_in_batch): transaction id \"cli-1\" is used by an earlier item of this batch"
    );
    assert!(
        lines[3].ends_with("completed: 2 paid (4000 XOF), 0 failed (0 XOF)"),
        "{out}"
    );

    // The same file again, as JSON without waiting: every line is now a duplicate or refused.
    let again = batch(&app, FILE, &["--json", "--no-wait"]).await;
    assert!(again.status.success(), "{}", text(&again.stderr));
    let printed: Value = serde_json::from_str(text(&again.stdout).trim()).unwrap();
    assert_eq!(printed["batch"]["duplicates"], 2, "{printed}");
    assert_eq!(printed["batch"]["accepted"]["count"], 0, "{printed}");

    // A wrong header: exit 1, nothing recorded.
    let token = app.sandbox_token().await;
    let before = answer(app.get("/v1/payout-batches").bearer_auth(&token)).await.body["data"].clone();
    let wrong = batch(&app, "id,operator,phone,amount\nx,GAMMA_MONEY_CI,0701020301,100\n", &[]).await;
    assert_eq!(wrong.status.code(), Some(1));
    let why = text(&wrong.stderr);
    assert!(
        why.contains("is not transaction_id,operator,phone,amount,last_name,first_name,email,check_recipient"),
        "{why}"
    );
    assert!(why.contains("nothing was recorded"), "{why}");
    let after = answer(app.get("/v1/payout-batches").bearer_auth(&token)).await.body["data"].clone();
    assert_eq!(before, after);
    app.assert_ledger().await;
}
