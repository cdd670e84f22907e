//! The gateway against the operator emulator over HTTP, with BETA collections and DELTA
//! transfers routed to the Wave connector: signed webhooks that settle through a status check,
//! polling when none comes, payouts answered at once or refused, forged webhooks refused. The
//! emulator's delay passes when a test moves its clock, never on its own.

use std::time::Duration;

use momo_gateway::config::Protocol;
use momo_gateway::domain::{Environment, OperatorCode, Timestamp, TransactionRef};
use momo_gateway::reconcile::reconciler;
use momo_operator_emulator::RunningEmulator;
use reqwest::StatusCode;
use serde_json::{json, Value};

use crate::support::emulated::{self, Checks};
use crate::support::helpers::{answer, gateway_port, later, TestApp};
use crate::support::requests::{collect_v1, post, transfer_v1};
use momo_test_support::both_backends;
use momo_test_support::Backend;

/// The emulator's Sandbox delay, on its clock: rows 02 and 05 settle when a test advances it.
const DELAY: Duration = Duration::from_secs(60);

/// The gateway, the emulator it calls, and a Sandbox token.
pub struct Waved {
    app: TestApp,
    emulator: RunningEmulator,
    token: String,
}

async fn with_wave(backend: Backend) -> Option<Waved> {
    let port = gateway_port();
    let emulator = emulated::start(port, DELAY, "Sandbox").await;
    let url = emulator.url.clone();
    let app = TestApp::spawn_with(backend, |c| {
        c.listen = ([127, 0, 0, 1], port).into();
        c.public_url = format!("http://127.0.0.1:{port}");
        c.connectors.routes = vec![
            (OperatorCode::Beta, Environment::Sandbox, Protocol::WaveCheckout.into()),
            (OperatorCode::Delta, Environment::Sandbox, Protocol::WaveCheckout.into()),
        ];
        c.connectors.timeout = Duration::from_millis(500);
        c.connectors.wave_url = Some(url);
        c.connectors.wave_api_key = Some("wave-test-key".to_owned());
        c.connectors.wave_webhook_secret = Some("wave-webhook-secret".to_owned());
    })
    .await?;
    let token = app.sandbox_token().await;
    Some(Waved { app, emulator, token })
}

both_backends!(
    with_wave =>
    wave_webhooks_settle_collections_through_a_status_check,
    wave_payouts_settle_at_once_or_are_refused,
    forged_wave_webhooks_are_refused,
    payout_answers_that_cannot_be_trusted_settle_nothing,
    a_payer_page_lost_with_its_answer_is_found_by_the_next_status_check,
);

impl Waved {
    async fn status(&self, id: &str) -> Value {
        emulated::lookup(&self.app, &self.token, id).await
    }

    async fn settled(&self, id: &str) -> String {
        emulated::settled(&self.app, &self.token, id).await
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

    async fn executed(&self, id: &str) -> u64 {
        let answer = emulated::admin(&self.emulator, &format!("initiations/{}", self.key(id).await)).await;
        answer["executed"].as_u64().unwrap_or(0)
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

async fn wave_webhooks_settle_collections_through_a_status_check(w: Waved) {
    for (id, phone) in [("w01", "0701020301"), ("w02", "0701020302"), ("w05", "0701020305")] {
        let a = post(
            &w.app,
            &w.token,
            "/v1/collecte/mobile-money",
            &collect_v1(id, phone, "BETA_MONEY_CI", "2500"),
        )
        .await;
        assert_eq!(a.status, StatusCode::ACCEPTED, "{}", a.body);
        let launch = a.body["data"]["betaLaunchUrl"].as_str().unwrap_or_default().to_owned();
        assert!(
            launch.starts_with(&format!("{}/c/cos-", w.emulator.url)),
            "Wave's own page, not one of ours: {}",
            a.body
        );
        assert_eq!(
            w.status(id).await["redirectUrl"],
            launch.as_str(),
            "every lookup shows it"
        );
    }
    assert_eq!(w.settled("w01").await, "SUCCESSFUL", "by the signed webhook");
    assert_eq!(w.status("w02").await["status"], "PENDING", "before the delay");
    emulated::advance(&w.emulator, DELAY).await;
    assert_eq!(w.settled("w02").await, "SUCCESSFUL", "after the delay");
    let made = emulated::callbacks_about(&w.emulator, &w.key("w05").await).await;
    assert_eq!(made, Vec::<Value>::new(), "complete at Wave, which sends no webhook");
    assert_eq!(w.status("w05").await["status"], "PENDING", "05 sends no webhook");
    let report = reconciler::run_once(&w.app.gateway.payments, later(60_000))
        .await
        .unwrap();
    assert_eq!(report.settled, 1);
    assert_eq!(w.status("w05").await["status"], "SUCCESSFUL", "found by polling");
    for id in ["w01", "w02", "w05"] {
        assert_eq!(w.executed(id).await, 1, "{id} paid once");
    }
    w.app.assert_ledger().await;
}

async fn wave_payouts_settle_at_once_or_are_refused(w: Waved) {
    let a = post(
        &w.app,
        &w.token,
        "/v1/transfer/mobile-money",
        &transfer_v1("p01", "0701020301", "DELTA_MONEY_CI", "1000"),
    )
    .await;
    assert_eq!(a.status, StatusCode::OK, "a payout succeeded in the answer: {}", a.body);
    assert_eq!(a.body["data"]["status"], "SUCCESSFUL");
    let a = post(
        &w.app,
        &w.token,
        "/v1/transfer/mobile-money",
        &transfer_v1("p04", "0701020304", "DELTA_MONEY_CI", "1000"),
    )
    .await;
    assert_eq!(a.status, StatusCode::GATEWAY_TIMEOUT, "refused at once: {}", a.body);
    assert_eq!(a.body["data"]["status"], "FAILED");
    let a = post(
        &w.app,
        &w.token,
        "/v1/transfer/mobile-money",
        &transfer_v1("p02", "0701020302", "DELTA_MONEY_CI", "1000"),
    )
    .await;
    assert_eq!(a.status, StatusCode::ACCEPTED, "{}", a.body);
    emulated::advance(&w.emulator, DELAY).await;
    // Payouts have no webhook: polling settles them.
    reconciler::run_once(&w.app.gateway.payments, later(60_000))
        .await
        .unwrap();
    assert_eq!(w.status("p02").await["status"], "SUCCESSFUL");
    assert_eq!(w.executed("p01").await, 1);
    assert_eq!(w.executed("p02").await, 1);
    let balance = answer(w.app.get("/v1/balance").bearer_auth(&w.token)).await;
    assert_eq!(balance.body["data"]["reserved"], "0", "{}", balance.body);
    w.app.assert_ledger().await;
}

async fn forged_wave_webhooks_are_refused(w: Waved) {
    let a = post(
        &w.app,
        &w.token,
        "/v1/collecte/mobile-money",
        &collect_v1("w06", "0701020306", "BETA_MONEY_CI", "2500"),
    )
    .await;
    let reference = a.body["data"]["ref"].as_str().unwrap().to_owned();
    let event = json!({"id": "AE_forged", "type": "checkout.session.completed",
        "data": {"client_reference": reference, "checkout_status": "complete", "payment_status": "succeeded"}});
    let url = w.app.url("/operator-callbacks/BETA/Sandbox");
    let unsigned = answer(w.app.client.post(&url).json(&event)).await;
    assert_eq!(unsigned.status, StatusCode::UNAUTHORIZED, "{}", unsigned.body);
    let now = Timestamp::now().unix_seconds();
    let forged = answer(
        w.app
            .client
            .post(&url)
            .header("Wave-Signature", format!("t={now},v1={}", "00".repeat(32)))
            .json(&event),
    )
    .await;
    assert_eq!(forged.status, StatusCode::UNAUTHORIZED);
    // Signed with the right secret, it is only a hint: Wave says the session is still open.
    let before = Checks::of(&w.app, "BETA").await;
    let body = serde_json::to_vec(&event).unwrap();
    let signature = momo_operator_emulator::wave_signature("wave-webhook-secret", now, &body);
    let hint = answer(
        w.app
            .client
            .post(&url)
            .header("Wave-Signature", signature)
            .header("content-type", "application/json")
            .body(body),
    )
    .await;
    assert_eq!(hint.status, StatusCode::OK, "{}", hint.body);
    let checked = before.answered(&w.app, "BETA").await;
    assert_eq!(checked.accepted, before.accepted + 1, "the signed hint started a check");
    assert_eq!(
        w.status("w06").await["status"],
        "PENDING",
        "nothing settled on the webhook's word"
    );
    w.app.assert_ledger().await;
}

async fn payout_answers_that_cannot_be_trusted_settle_nothing(w: Waved) {
    let a = post(
        &w.app,
        &w.token,
        "/v1/transfer/mobile-money",
        &transfer_v1("p02", "0701020302", "DELTA_MONEY_CI", "1000"),
    )
    .await;
    assert_eq!(a.status, StatusCode::ACCEPTED, "{}", a.body);
    emulated::advance(&w.emulator, DELAY).await;
    // Wave paid it; its search answers lie twice, each check after the previous one's backoff.
    for (fault, at) in [("other_amount", 60_000), ("unknown_status", 100_000)] {
        w.fault("wave.payout.search", &format!("answer={fault}")).await;
        let report = reconciler::run_once(&w.app.gateway.payments, later(at)).await.unwrap();
        assert_eq!((report.examined, report.settled), (1, 0), "{fault}");
        assert_eq!(w.status("p02").await["status"], "PENDING", "{fault}");
    }
    let metrics = w.app.get("/metrics").send().await.unwrap().text().await.unwrap();
    for kind in ["amount_mismatch", "unknown_status"] {
        let line = format!("momo_operator_bad_answers_total{{operator=\"DELTA\",kind=\"{kind}\"}} 1");
        assert!(metrics.contains(&line), "{line} in {metrics}");
    }
    reconciler::run_once(&w.app.gateway.payments, later(200_000))
        .await
        .unwrap();
    assert_eq!(w.status("p02").await["status"], "SUCCESSFUL");
    assert_eq!(w.executed("p02").await, 1);
    w.app.assert_ledger().await;
}

async fn a_payer_page_lost_with_its_answer_is_found_by_the_next_status_check(w: Waved) {
    // Wave opens the session, but its answer (with the payer's page) never arrives.
    w.fault("wave.checkout.create", "reset=after").await;
    let a = post(
        &w.app,
        &w.token,
        "/v1/collecte/mobile-money",
        &collect_v1("lost-page", "0701020306", "BETA_MONEY_CI", "2500"),
    )
    .await;
    assert_eq!(a.status, StatusCode::ACCEPTED, "ambiguous: PENDING: {}", a.body);
    assert!(
        w.status("lost-page").await["redirectUrl"].is_null(),
        "no page known yet"
    );
    let report = reconciler::run_once(&w.app.gateway.payments, later(60_000))
        .await
        .unwrap();
    assert_eq!((report.examined, report.settled), (1, 0));
    let page = w.status("lost-page").await["redirectUrl"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(
        page.starts_with(&format!("{}/c/cos-", w.emulator.url)),
        "the session's page, so the payer can pay: {page:?}"
    );
    assert_eq!(w.executed("lost-page").await, 1, "one session");
    w.app.assert_ledger().await;
}
