//! The gateway against the operator emulator over HTTP, with ALPHA routed to the MoMo Open API
//! connector: callbacks that settle through a status check, polling when no callback comes,
//! an initiation that never arrived (sent again, once), a timeout after sending, forged
//! callbacks. After each:
//! nothing initiated twice, nothing left pending once the operator has answered, and the ledger
//! balanced. The emulator's delay passes when a test moves its clock, never on its own.

use std::time::Duration;

use momo_gateway::config::Protocol;
use momo_gateway::domain::{Environment, FailureCode, OperatorCode, TransactionRef};
use momo_gateway::operator::momo::callback::route_token;
use momo_gateway::reconcile::reconciler;
use momo_operator_emulator::{Emulator, EmulatorSettings, RunningEmulator};
use reqwest::StatusCode;
use serde_json::{json, Value};

use crate::support::emulated::{self, Checks, PATIENCE};
use crate::support::helpers::{answer, gateway_port, later, TestApp};
use crate::support::requests::{collect_v1, post, transfer_v1};
use momo_test_support::both_backends;
use momo_test_support::{poll, Backend};

const CALLBACK_TOKEN: &str = "momo-callback-token-for-tests";
/// The emulator's Sandbox delay, on its clock: rows 02 and 05 settle when a test advances it.
const DELAY: Duration = Duration::from_secs(60);

/// The gateway, the emulator it calls, and a Sandbox token.
pub struct Emulated {
    app: TestApp,
    emulator: RunningEmulator,
    token: String,
}

/// The token of ALPHA's Sandbox callbacks, derived from [`CALLBACK_TOKEN`].
fn alpha_sandbox_token() -> String {
    route_token(CALLBACK_TOKEN, OperatorCode::Alpha, Environment::Sandbox)
}

async fn with_emulator(backend: Backend) -> Option<Emulated> {
    let emulator = Emulator::start(EmulatorSettings {
        delay: DELAY,
        ..EmulatorSettings::default()
    })
    .await
    .expect("the emulator starts");
    let url = emulator.url.clone();
    let port = gateway_port();
    let creds = emulated::momo_credentials;
    let app = TestApp::spawn_with(backend, |c| {
        c.listen = ([127, 0, 0, 1], port).into();
        c.public_url = format!("http://127.0.0.1:{port}");
        c.connectors.routes = vec![(OperatorCode::Alpha, Environment::Sandbox, Protocol::MomoOpenApi.into())];
        c.connectors.timeout = Duration::from_millis(500);
        c.connectors.momo_url = Some(url);
        c.connectors.momo_collection = Some(creds("collection"));
        c.connectors.momo_disbursement = Some(creds("disbursement"));
        c.connectors.momo_callback_token = Some(CALLBACK_TOKEN.to_owned());
    })
    .await?;
    let token = app.sandbox_token().await;
    Some(Emulated { app, emulator, token })
}

both_backends!(
    with_emulator =>
    callbacks_settle_collections_and_transfers_through_a_status_check,
    without_a_callback_the_reconciler_polls,
    an_initiation_that_never_arrived_is_sent_again_once,
    a_timeout_after_sending_stays_pending_until_the_operator_answers,
    forged_and_unknown_callbacks_settle_nothing,
    answers_that_cannot_be_trusted_are_counted_and_settle_nothing,
    a_callback_naming_a_reference_with_a_control_character_is_ignored,
);

impl Emulated {
    async fn create(&self, path: &str, body: &Value) -> Value {
        let a = post(&self.app, &self.token, path, body).await;
        assert_eq!(a.status, StatusCode::ACCEPTED, "MoMo answers 202 PENDING: {}", a.body);
        assert_eq!(a.body["data"]["status"], "PENDING");
        a.body["data"].clone()
    }

    async fn status(&self, id: &str) -> String {
        let a = answer(
            self.app
                .get(&format!("/v2/get-status-payment/{id}"))
                .bearer_auth(&self.token),
        )
        .await;
        a.body["data"]["status"].as_str().unwrap_or_default().to_owned()
    }

    /// Waits (up to [`PATIENCE`]) for `id` to leave PENDING; its status then, or `PENDING`.
    async fn settled(&self, id: &str) -> String {
        let found = poll(PATIENCE, async || {
            let status = self.status(id).await;
            if status == "PENDING" {
                Err(status)
            } else {
                Ok(status)
            }
        })
        .await;
        found.unwrap_or_else(|pending| pending)
    }

    /// A `GET` on the emulator's admin API (`path` from `/_emulator/`).
    async fn emulator(&self, path: &str) -> Value {
        emulated::admin(&self.emulator, path).await
    }

    /// The internal id of the transaction `id`: the operator's key for it.
    async fn key(&self, id: &str) -> String {
        let t = self
            .app
            .gateway
            .payments
            .transaction(&self.app.sandbox_tenant(), &TransactionRef::from(id))
            .await
            .unwrap();
        t.transaction.id.to_string()
    }

    /// How many times the operator executed the payment `id` (by its internal id).
    async fn executed(&self, id: &str) -> u64 {
        let t = self
            .app
            .gateway
            .payments
            .transaction(&self.app.sandbox_tenant(), &TransactionRef::from(id))
            .await
            .unwrap();
        self.emulator(&format!("initiations/{}", t.transaction.id)).await["executed"]
            .as_u64()
            .unwrap_or(0)
    }

    async fn fault(&self, on: &str, fault: &str) {
        let answer = reqwest::Client::new()
            .post(format!("{}/_emulator/faults", self.emulator.url))
            .json(&json!({"on": on, "fault": fault, "times": 1}))
            .send()
            .await
            .unwrap();
        assert!(answer.status().is_success(), "{:?}", answer.text().await);
    }
}

async fn callbacks_settle_collections_and_transfers_through_a_status_check(e: Emulated) {
    e.create(
        "/v1/collecte/mobile-money",
        &collect_v1("c01", "0701020301", "ALPHA_MONEY_CI", "1500"),
    )
    .await;
    e.create(
        "/v1/collecte/mobile-money",
        &collect_v1("c04", "0701020304", "ALPHA_MONEY_CI", "1500"),
    )
    .await;
    e.create(
        "/v1/transfer/mobile-money",
        &transfer_v1("t02", "0701020302", "ALPHA_MONEY_CI", "1000"),
    )
    .await;
    assert_eq!(e.settled("c01").await, "SUCCESSFUL");
    assert_eq!(e.settled("c04").await, "FAILED");
    assert_eq!(e.status("t02").await, "PENDING", "before the emulator's delay");
    emulated::advance(&e.emulator, DELAY).await;
    assert_eq!(e.settled("t02").await, "SUCCESSFUL", "after the emulator's delay");
    for id in ["c01", "c04", "t02"] {
        assert_eq!(e.executed(id).await, 1, "{id} initiated once");
    }
    let c04 = e
        .app
        .gateway
        .payments
        .transaction(&e.app.sandbox_tenant(), &TransactionRef::from("c04"))
        .await
        .unwrap();
    assert_eq!(c04.transaction.failure_code, Some(FailureCode::PayerDeclined));
    // The operator's callbacks reached the gateway (not a poll).
    let callbacks = e.emulator("callbacks").await;
    assert!(callbacks.as_array().is_some_and(|c| c.len() >= 3), "{callbacks}");
    e.app.assert_ledger().await;
}

async fn without_a_callback_the_reconciler_polls(e: Emulated) {
    // 05: the operator settles it but never calls back.
    e.create(
        "/v1/collecte/mobile-money",
        &collect_v1("c05", "0701020305", "ALPHA_MONEY_CI", "1500"),
    )
    .await;
    emulated::advance(&e.emulator, DELAY).await;
    let made = emulated::callbacks_about(&e.emulator, &e.key("c05").await).await;
    assert_eq!(
        made,
        Vec::<Value>::new(),
        "settled at the operator, which calls back no one"
    );
    assert_eq!(e.status("c05").await, "PENDING", "no callback came");
    let report = reconciler::run_once(&e.app.gateway.payments, later(60_000))
        .await
        .unwrap();
    assert_eq!(report.settled, 1);
    assert_eq!(e.status("c05").await, "SUCCESSFUL");
    assert_eq!(e.executed("c05").await, 1);
    e.app.assert_ledger().await;
}

async fn an_initiation_that_never_arrived_is_sent_again_once(e: Emulated) {
    // The operator answers 503 without executing anything: ambiguous, so PENDING...
    e.fault("momo.transfer", "status=503").await;
    e.create(
        "/v1/transfer/mobile-money",
        &transfer_v1("lost", "0701020301", "ALPHA_MONEY_CI", "1000"),
    )
    .await;
    assert_eq!(e.executed("lost").await, 0);
    // ...until the status lookup says it never arrived (404): it is sent again, with the same
    // X-Reference-Id, and this time it goes through.
    reconciler::run_once(&e.app.gateway.payments, later(60_000))
        .await
        .unwrap();
    let status = e.settled("lost").await;
    let status = if status == "PENDING" {
        reconciler::run_once(&e.app.gateway.payments, later(120_000))
            .await
            .unwrap();
        e.status("lost").await
    } else {
        status
    };
    assert_eq!(status, "SUCCESSFUL");
    assert_eq!(e.executed("lost").await, 1, "paid once");
    let t = e
        .app
        .gateway
        .payments
        .transaction(&e.app.sandbox_tenant(), &TransactionRef::from("lost"))
        .await
        .unwrap();
    let counts = e.emulator(&format!("initiations/{}", t.transaction.id)).await;
    assert_eq!(counts["received"], 2, "sent twice, executed once: {counts}");
    let balance = answer(e.app.get("/v1/balance").bearer_auth(&e.token)).await;
    assert_eq!(balance.body["data"]["reserved"], "0", "nothing left reserved");
    e.app.assert_ledger().await;
}

async fn a_timeout_after_sending_stays_pending_until_the_operator_answers(e: Emulated) {
    // The operator executes the transfer, then answers after our 500 ms timeout.
    e.fault("momo.transfer", "timeout=1500ms").await;
    e.create(
        "/v1/transfer/mobile-money",
        &transfer_v1("slow", "0701020301", "ALPHA_MONEY_CI", "1000"),
    )
    .await;
    assert_eq!(e.executed("slow").await, 1, "it reached the operator");
    // Its callback settles it; without one, the reconciler would.
    let status = e.settled("slow").await;
    let status = if status == "PENDING" {
        reconciler::run_once(&e.app.gateway.payments, later(60_000))
            .await
            .unwrap();
        e.status("slow").await
    } else {
        status
    };
    assert_eq!(status, "SUCCESSFUL", "a timeout is never a failure");
    assert_eq!(e.executed("slow").await, 1, "never sent twice");
    e.app.assert_ledger().await;
}

async fn forged_and_unknown_callbacks_settle_nothing(e: Emulated) {
    let data = e
        .create(
            "/v1/collecte/mobile-money",
            &collect_v1("c06", "0701020306", "ALPHA_MONEY_CI", "1500"),
        )
        .await;
    let reference = data["ref"].as_str().unwrap().to_owned();
    let forged = json!({"amount": "1500", "currency": "XOF", "externalId": reference, "status": "SUCCESSFUL"});
    let callback = |token: &str| {
        e.app
            .client
            .put(e.app.url(&format!("/operator-callbacks/ALPHA/Sandbox?token={token}")))
            .json(&forged)
    };
    let before = Checks::of(&e.app, "ALPHA").await;
    let a = answer(callback("not-the-token")).await;
    assert_eq!(a.status, StatusCode::UNAUTHORIZED, "{}", a.body);
    // With the right token, the callback is only a hint: the operator says PENDING.
    let a = answer(callback(&alpha_sandbox_token())).await;
    assert_eq!(
        (a.status, a.body["data"]["outcome"].as_str()),
        (StatusCode::OK, Some("checking"))
    );
    let checked = before.answered(&e.app, "ALPHA").await;
    assert_eq!(checked.accepted, before.accepted + 1, "the forged one started no check");
    assert_eq!(
        e.status("c06").await,
        "PENDING",
        "nothing settled on the callback's word"
    );
    // Unknown references and malformed bodies: counted, never a 500.
    let unknown = json!({"externalId": "NOSUCHREF1", "status": "SUCCESSFUL"});
    let url = e.app.url(&format!(
        "/operator-callbacks/ALPHA/Sandbox?token={}",
        alpha_sandbox_token()
    ));
    let a = answer(e.app.client.put(&url).json(&unknown)).await;
    assert_eq!(a.body["data"]["outcome"], "ignored");
    let a = answer(e.app.client.put(&url).body("{not json")).await;
    assert_eq!(a.status, StatusCode::BAD_REQUEST);
    // GAMMA is served by the simulator, which takes no callbacks.
    let a = answer(
        e.app
            .client
            .put(e.app.url("/operator-callbacks/GAMMA/Sandbox"))
            .json(&unknown),
    )
    .await;
    assert_eq!(a.status, StatusCode::NOT_FOUND);
    let metrics = e.app.get("/metrics").send().await.unwrap().text().await.unwrap();
    for (operator, outcome) in [
        ("ALPHA", "unauthenticated"),
        ("ALPHA", "malformed"),
        ("ALPHA", "unknown_reference"),
        ("GAMMA", "unsupported"),
    ] {
        let line = format!("momo_operator_callbacks_total{{operator=\"{operator}\",outcome=\"{outcome}\"}} 1");
        assert!(metrics.contains(&line), "{line} in {metrics}");
    }
    e.app.assert_ledger().await;
}

async fn answers_that_cannot_be_trusted_are_counted_and_settle_nothing(e: Emulated) {
    // 05: the operator settles it SUCCESSFUL and never calls back, so only status checks tell.
    e.create(
        "/v1/collecte/mobile-money",
        &collect_v1("c05", "0701020305", "ALPHA_MONEY_CI", "1500"),
    )
    .await;
    emulated::advance(&e.emulator, DELAY).await;
    // Each check comes after the previous one's backoff.
    let kinds = [
        ("other_amount", "amount_mismatch", 60_000),
        ("other_currency", "currency_mismatch", 100_000),
        ("unknown_status", "unknown_status", 200_000),
        ("malformed", "malformed", 400_000),
    ];
    for (fault, _, at) in kinds {
        e.fault("momo.requesttopay.status", &format!("answer={fault}")).await;
        let report = reconciler::run_once(&e.app.gateway.payments, later(at)).await.unwrap();
        assert_eq!((report.examined, report.settled), (1, 0), "{fault}: asked, not settled");
        assert_eq!(e.status("c05").await, "PENDING", "{fault}");
    }
    let metrics = e.app.get("/metrics").send().await.unwrap().text().await.unwrap();
    for (_, kind, _) in kinds {
        let line = format!("momo_operator_bad_answers_total{{operator=\"ALPHA\",kind=\"{kind}\"}} 1");
        assert!(metrics.contains(&line), "{line} in {metrics}");
    }
    // A truthful answer settles it.
    let report = reconciler::run_once(&e.app.gateway.payments, later(700_000))
        .await
        .unwrap();
    assert_eq!(report.settled, 1);
    assert_eq!(e.status("c05").await, "SUCCESSFUL");
    assert_eq!(e.executed("c05").await, 1);
    e.app.assert_ledger().await;
}

/// An authenticated callback whose body names a reference holding NUL (which PostgreSQL
/// refuses in text) names no payment: ignored and counted, never a database fault.
async fn a_callback_naming_a_reference_with_a_control_character_is_ignored(e: Emulated) {
    let url = e.app.url(&format!(
        "/operator-callbacks/ALPHA/Sandbox?token={}",
        alpha_sandbox_token()
    ));
    for reference in ["REF\u{0}1", "\u{0}", "A\u{1f}"] {
        let body = json!({"externalId": reference, "status": "SUCCESSFUL"});
        let a = answer(e.app.client.put(&url).json(&body)).await;
        assert_eq!(
            (a.status, a.body["data"]["outcome"].as_str()),
            (StatusCode::OK, Some("ignored")),
            "{reference:?}: {}",
            a.body
        );
    }
    let metrics = e.app.get("/metrics").send().await.unwrap().text().await.unwrap();
    let line = "momo_operator_callbacks_total{operator=\"ALPHA\",outcome=\"unknown_reference\"} 3";
    assert!(metrics.contains(line), "{line} in {metrics}");
}
