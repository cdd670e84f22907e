//! Webhook signing secret rotation, through the API and the command line: the new secret is
//! shown once; during the overlap a delivery carries `v1,<new> v1,<old>`, and the official
//! Standard Webhooks library (Python's `standardwebhooks`) verifies it with either secret;
//! after the overlap only the new secret signs.

use std::io::Write;
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::Duration;

use momo_gateway::domain::Timestamp;
use momo_gateway::webhook::signing;
use reqwest::StatusCode;
use serde_json::{json, Value};

use crate::support::helpers::{answer, later, TestApp};
use crate::support::requests::{collect_v1, post};
use crate::support::webhooks::{dispatcher, listen, private_targets_allowed};
use momo_test_support::both_backends;
use momo_test_support::process;
use momo_test_support::receiver::{Received, Receiver};

both_backends!(
    TestApp::spawn_with(private_targets_allowed) =>
    during_the_overlap_a_delivery_verifies_with_the_old_and_the_new_secret,
    after_the_overlap_only_the_new_secret_signs,
    the_command_line_rotation_with_no_overlap_stops_the_old_secret_at_once,
);

const DAY_MS: i64 = 86_400_000;

/// The venv's python with `standardwebhooks`, installed once per test run by
/// `scripts/standardwebhooks-venv.sh` (which `.ci/run` also runs first); `None`, loudly, when
/// it cannot be installed outside CI. Under CI the test fails instead.
fn standardwebhooks_python() -> Option<&'static str> {
    static PYTHON: OnceLock<Result<String, String>> = OnceLock::new();
    let found = PYTHON.get_or_init(|| {
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/standardwebhooks-venv.sh");
        match Command::new(script).output() {
            Ok(out) if out.status.success() => Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned()),
            Ok(out) => Err(String::from_utf8_lossy(&out.stderr).into_owned()),
            Err(e) => Err(e.to_string()),
        }
    });
    match found {
        Ok(python) => Some(python),
        Err(why) => {
            assert!(
                !momo_test_support::in_ci(),
                "the official standardwebhooks library is needed under CI (scripts/standardwebhooks-venv.sh): {why}"
            );
            let _ = writeln!(
                std::io::stderr(),
                "*** SKIPPED: standardwebhooks could not be installed ({why}); the official verifier was not run ***"
            );
            None
        }
    }
}

/// What the official library says of `delivery` under each secret: `verified` or
/// `rejected: <reason>`, one per secret.
fn official_verdicts(python: &str, delivery: &Received, body: &str, secrets: &[&str]) -> Vec<String> {
    let case = json!({
        "secrets": secrets,
        "headers": {
            "webhook-id": delivery.id,
            "webhook-timestamp": delivery.timestamp,
            "webhook-signature": delivery.signature,
        },
        "body": body,
    });
    let mut child = Command::new(python)
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/api/support/standardwebhooks_verify.py"
        ))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(case.to_string().as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_owned)
        .collect()
}

/// `POST /v1/webhooks/secret/rotate` with `token`: the answer's data.
async fn rotate(app: &TestApp, token: &str) -> Value {
    let a = answer(app.post("/v1/webhooks/secret/rotate").bearer_auth(token)).await;
    assert_eq!(a.status, StatusCode::OK, "{}", a.body);
    assert_eq!(a.header("cache-control"), Some("no-store"), "a secret is never cached");
    a.body["data"].clone()
}

/// A collection that succeeds at once, delivered by a dispatcher step `after_ms` after its
/// creation; the delivery.
async fn deliver(app: &TestApp, token: &str, receiver: &Receiver, id: &str, after_ms: i64) -> Received {
    let created = post(
        app,
        token,
        "/v1/collecte/mobile-money",
        &collect_v1(id, "0701020301", "ALPHA_MONEY_CI", "1500"),
    )
    .await;
    assert_eq!(created.status, StatusCode::OK, "{}", created.body);
    assert_eq!(dispatcher(app).run_once(later(after_ms)).await.unwrap().delivered, 1);
    receiver.received().last().cloned().expect("a delivery")
}

fn signature(secret: &str, delivery: &Received) -> String {
    signing::sign(
        secret,
        &delivery.id,
        delivery.timestamp.parse().unwrap(),
        delivery.body.as_bytes(),
    )
    .unwrap()
}

async fn during_the_overlap_a_delivery_verifies_with_the_old_and_the_new_secret(app: TestApp) {
    let (receiver, token) = listen(&app, vec![], None).await;
    let old = app.merchant.sandbox.webhook_secret.clone();
    let before = Timestamp::now();
    let rotated = rotate(&app, &token).await;
    let new = rotated["webhookSecret"].as_str().unwrap().to_owned();
    assert_eq!(rotated["environment"], "Sandbox");
    assert!(new.starts_with("whsec_") && new != old, "{rotated}");
    let until = Timestamp::parse_iso8601(rotated["previousSecretValidUntil"].as_str().unwrap()).unwrap();
    assert!(
        until >= before.plus(Duration::from_secs(86_400))
            && until <= Timestamp::now().plus(Duration::from_secs(86_400)),
        "the default overlap is a day: {rotated}"
    );

    let delivery = deliver(&app, &token, &receiver, "rot-1", 0).await;
    assert_eq!(
        delivery.signature,
        format!("{} {}", signature(&new, &delivery), signature(&old, &delivery)),
        "the new secret's signature first, then the old one's, space-separated"
    );
    let Some(python) = standardwebhooks_python() else {
        return;
    };
    let stranger = "whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=";
    let verdicts = official_verdicts(python, &delivery, &delivery.body, &[&old, &new, stranger]);
    assert_eq!(verdicts[..2], ["verified", "verified"], "{verdicts:?}");
    assert!(verdicts[2].starts_with("rejected"), "{verdicts:?}");
    let tampered = official_verdicts(python, &delivery, &delivery.body.replace("1500", "9500"), &[&old, &new]);
    assert!(tampered.iter().all(|v| v.starts_with("rejected")), "{tampered:?}");
}

async fn after_the_overlap_only_the_new_secret_signs(app: TestApp) {
    let (receiver, token) = listen(&app, vec![], None).await;
    let old = app.merchant.sandbox.webhook_secret.clone();
    let new = rotate(&app, &token).await["webhookSecret"].as_str().unwrap().to_owned();
    let late = deliver(&app, &token, &receiver, "rot-late", DAY_MS + 1_000).await;
    assert_eq!(late.signature, signature(&new, &late), "the old secret no longer signs");

    // A rotation made more than a day ago: a delivery now, which the library's five-minute
    // tolerance accepts, carries the new secret's signature only.
    let long_ago = Timestamp(Timestamp::now().millis() - DAY_MS - 1_000);
    let newest = app
        .gateway
        .merchants
        .rotate_webhook_secret(&app.sandbox_tenant(), long_ago)
        .await
        .unwrap()
        .webhook_secret;
    let delivery = deliver(&app, &token, &receiver, "rot-now", 0).await;
    assert_eq!(delivery.signature, signature(&newest, &delivery));
    let Some(python) = standardwebhooks_python() else {
        return;
    };
    let verdicts = official_verdicts(python, &delivery, &delivery.body, &[&newest, &new, &old]);
    assert_eq!(verdicts[0], "verified", "{verdicts:?}");
    assert!(verdicts[1..].iter().all(|v| v.starts_with("rejected")), "{verdicts:?}");
}

async fn the_command_line_rotation_with_no_overlap_stops_the_old_secret_at_once(app: TestApp) {
    let (receiver, token) = listen(&app, vec![], None).await;
    let old = app.merchant.sandbox.webhook_secret.clone();
    let output = process::command(&app.database_url)
        .env("MOMO_WEBHOOK_SECRET_OVERLAP_S", "0")
        .args([
            "merchant",
            "rotate-webhook-secret",
            "--merchant",
            &app.merchant.id,
            "--env",
            "Sandbox",
            "--json",
        ])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let printed: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(printed["environment"], "Sandbox");
    let new = printed["webhookSecret"].as_str().unwrap().to_owned();
    assert_ne!(new, old);

    let delivery = deliver(&app, &token, &receiver, "rot-cli", 0).await;
    assert_eq!(delivery.signature, signature(&new, &delivery));
    let Some(python) = standardwebhooks_python() else {
        return;
    };
    let verdicts = official_verdicts(python, &delivery, &delivery.body, &[&new, &old]);
    assert_eq!(verdicts[0], "verified", "{verdicts:?}");
    assert!(verdicts[1].starts_with("rejected"), "{verdicts:?}");
}
