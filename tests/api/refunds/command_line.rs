//! `momo-gateway transactions refund`, the binary run against the database of a running
//! gateway, on both databases: it refunds as the API does (reserved, sent, its reason kept,
//! found through the API), prints the refund, and exits 1 with a clear message, having
//! recorded nothing, on a refusal.

use std::process::Output;

use reqwest::StatusCode;
use serde_json::Value;

use crate::support::helpers::{answer, TestApp};
use crate::support::requests::{collect_v1, post};
use momo_test_support::{both_backends, process};

both_backends!(
    TestApp::spawn =>
    staff_refund_a_collection_from_the_command_line_and_refusals_exit_1_recording_nothing,
);

/// `transactions refund` for the test merchant's Sandbox, with `args` after.
fn refund(app: &TestApp, args: &[&str]) -> Output {
    let merchant = ["--merchant", app.merchant.id.as_str(), "--env", "Sandbox"];
    process::command(&app.database_url)
        .args(["transactions", "refund"])
        .args(merchant)
        .args(args)
        .output()
        .expect("the binary runs")
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

async fn refunds_of(app: &TestApp, token: &str, collection: &str) -> Vec<Value> {
    let listed = answer(
        app.get(&format!("/v1/transactions?refundOf={collection}"))
            .bearer_auth(token),
    )
    .await;
    assert_eq!(listed.status, StatusCode::OK, "{}", listed.body);
    listed.body["data"].as_array().unwrap().clone()
}

async fn staff_refund_a_collection_from_the_command_line_and_refusals_exit_1_recording_nothing(app: TestApp) {
    let token = app.sandbox_token().await;
    let paid = post(
        &app,
        &token,
        "/v1/collecte/mobile-money",
        &collect_v1("order-1", "0701020301", "ALPHA_MONEY_CI", "10000"),
    )
    .await;
    assert_eq!(paid.status, StatusCode::OK, "{}", paid.body);
    let collection = paid.body["data"]["ref"].as_str().unwrap().to_owned();

    // By the collection's ref, in part, as text.
    let done = refund(
        &app,
        &[
            "--id",
            &collection,
            "--amount",
            "4000",
            "--reason",
            "Colis abîmé",
            "--transaction-id",
            "support-1",
        ],
    );
    assert!(done.status.success(), "{}", stderr(&done));
    let printed = String::from_utf8_lossy(&done.stdout);
    assert!(
        printed.starts_with("refund ")
            && printed.contains("(transaction id support-1)")
            && printed.contains(&format!("of collection {collection}: 4000 XOF, SUCCESSFUL")),
        "{printed}"
    );
    // By the merchant's transaction id, the rest, as JSON.
    let done = refund(&app, &["--id", "order-1", "--reason", "Annulation", "--json"]);
    assert!(done.status.success(), "{}", stderr(&done));
    let printed: Value = serde_json::from_slice(&done.stdout).unwrap();
    assert_eq!(
        (
            printed["amount"].as_str(),
            printed["status"].as_str(),
            printed["refundOf"].as_str(),
            printed["reason"].as_str()
        ),
        (
            Some("6000"),
            Some("SUCCESSFUL"),
            Some(collection.as_str()),
            Some("Annulation")
        ),
        "{printed}"
    );
    assert!(printed["transactionId"].as_str().unwrap().starts_with("refund-"));

    // The API finds both, with their reasons, as refunds made through it.
    let refunds = refunds_of(&app, &token, &collection).await;
    let seen: Vec<(&str, &str, &str)> = refunds
        .iter()
        .map(|r| {
            (
                r["amount"].as_str().unwrap(),
                r["status"].as_str().unwrap(),
                r["reason"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        seen,
        [
            ("6000", "SUCCESSFUL", "Annulation"),
            ("4000", "SUCCESSFUL", "Colis abîmé")
        ]
    );

    // Refusals: exit 1, one clear line, nothing recorded.
    let other = post(
        &app,
        &token,
        "/v1/collecte/mobile-money",
        &collect_v1("order-2", "0701020301", "ALPHA_MONEY_CI", "5000"),
    )
    .await;
    assert_eq!(other.status, StatusCode::OK, "{}", other.body);
    let cases: [(&[&str], &str); 4] = [
        (&["--id", "order-1", "--reason", "Encore"], "refunded in full already"),
        (
            &["--id", "order-2", "--amount", "6000", "--reason", "Trop"],
            "5000 remain to refund of order-2",
        ),
        (
            &["--id", "no-such-order", "--reason", "x"],
            "no collection no-such-order",
        ),
        (
            &[
                "--id",
                "order-2",
                "--amount",
                "100",
                "--reason",
                "Déjà",
                "--transaction-id",
                "support-1",
            ],
            "transaction id support-1 is already",
        ),
    ];
    for (args, says) in cases {
        let refused = refund(&app, args);
        assert_eq!(refused.status.code(), Some(1), "{args:?}: {}", stderr(&refused));
        let said = stderr(&refused);
        assert!(
            said.contains("refund refused: ") && said.contains(says),
            "{args:?}: {said}"
        );
    }
    assert!(
        refunds_of(&app, &token, paid_ref(&app, &token, "order-2").await.as_str())
            .await
            .is_empty()
    );
    // Arguments clap refuses name themselves (status 2), before anything opens.
    let refused = refund(&app, &["--id", "order-2", "--reason", "ligne\nsuivante"]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(stderr(&refused).contains("--reason"), "{}", stderr(&refused));
    let refused = refund(&app, &["--id", "order-2", "--amount", "12.5", "--reason", "x"]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(stderr(&refused).contains("--amount"), "{}", stderr(&refused));
    app.assert_ledger().await;
}

async fn paid_ref(app: &TestApp, token: &str, id: &str) -> String {
    let found = answer(app.get(&format!("/v1/transaction/{id}")).bearer_auth(token)).await;
    found.body["data"]["ref"].as_str().unwrap().to_owned()
}
