//! The gateway against the operator emulator's PayDunya over HTTP, ALPHA and DELTA routed to
//! the `paydunya` connector: ALPHA collections with the payer's one-time code, DELTA
//! collections and transfers, notifications authenticated by their hash and settled through a
//! status check, answers that do not add up settling nothing, and no refund. The emulator's
//! delay passes when a test moves its clock, never on its own.

use std::time::Duration;

use momo_gateway::config::Config;
use momo_gateway::domain::{FailureCode, Francs, Transaction, TransactionRef};
use momo_gateway::reconcile::reconciler;
use momo_operator_emulator::{paydunya_hash, RunningEmulator};
use reqwest::StatusCode;
use serde_json::{json, Value};

use crate::support::emulated;
use crate::support::helpers::{answer, gateway_port, later, Answer, TestApp};
use crate::support::requests::{collect_v1, collect_v2, post, transfer_v1};
use momo_test_support::both_backends;
use momo_test_support::Backend;

/// The emulator's Sandbox delay, on its clock: rows 02, 03 and 05 settle when a test moves it.
pub const DELAY: Duration = Duration::from_secs(60);

/// The gateway, the emulator it calls, and a Sandbox token.
pub struct Paid {
    pub app: TestApp,
    pub emulator: RunningEmulator,
    pub token: String,
}

/// The gateway with `routes` (`MOMO_OPERATOR_CONNECTORS`), every protocol pointed at the
/// emulator (MoMo at `momo_url` when given), then `adjust`.
pub async fn paid_with(
    backend: Backend,
    routes: &str,
    momo_url: Option<String>,
    adjust: impl FnOnce(&mut Config),
) -> Option<Paid> {
    let port = gateway_port();
    let emulator = emulated::start(port, DELAY, "Production").await;
    let url = emulator.url.clone();
    let app = TestApp::spawn_with(backend, |c| {
        c.listen = ([127, 0, 0, 1], port).into();
        c.public_url = format!("http://127.0.0.1:{port}");
        c.connectors.routes = momo_gateway::config::connectors::parse_routes(routes).expect("valid routes");
        c.connectors.timeout = Duration::from_millis(500);
        emulated::connect(c, &url);
        c.connectors.momo_url = Some(momo_url.unwrap_or(url));
        c.metrics.public = true;
        adjust(c);
    })
    .await?;
    let token = app.sandbox_token().await;
    Some(Paid { app, emulator, token })
}

async fn with_paydunya(backend: Backend) -> Option<Paid> {
    paid_with(backend, "ALPHA:Sandbox=paydunya,DELTA:Sandbox=paydunya", None, |_| {}).await
}

async fn with_beta_over_paydunya(backend: Backend) -> Option<Paid> {
    paid_with(backend, "BETA:Sandbox=paydunya", None, |_| {}).await
}

both_backends!(with_beta_over_paydunya => a_beta_payer_over_paydunya_is_sent_to_waves_page);

both_backends!(
    with_paydunya =>
    alpha_collections_with_a_code_succeed_fail_and_stay_pending,
    an_alpha_collection_needs_its_code_and_a_wrong_one_fails_it,
    delta_collections_and_transfers_settle_as_the_emulator_decides,
    notifications_without_our_hash_are_refused_and_lies_settle_nothing,
    a_collection_paydunya_carried_is_not_refunded,
);

impl Paid {
    pub async fn collect(&self, operator: &str, id: &str, phone: &str, code: Option<&str>) -> Answer {
        let mut body = collect_v1(id, phone, operator, "1500");
        if let Some(code) = code {
            body["otpCode"] = json!(code);
        }
        post(&self.app, &self.token, "/v1/collecte/mobile-money", &body).await
    }

    pub async fn transfer(&self, operator: &str, id: &str, phone: &str) -> Answer {
        post(
            &self.app,
            &self.token,
            "/v1/transfer/mobile-money",
            &transfer_v1(id, phone, operator, "1000"),
        )
        .await
    }

    pub async fn status(&self, id: &str) -> String {
        let data = emulated::lookup(&self.app, &self.token, id).await;
        data["status"].as_str().unwrap_or_default().to_owned()
    }

    pub async fn settled(&self, id: &str) -> String {
        emulated::settled(&self.app, &self.token, id).await
    }

    pub async fn record(&self, id: &str) -> Transaction {
        let tenant = self.app.sandbox_tenant();
        let found = self
            .app
            .gateway
            .payments
            .transaction(&tenant, &TransactionRef::from(id))
            .await;
        found.expect("the transaction exists").transaction
    }

    /// How many times PayDunya received and executed the SOFTPAY or submission of `id`
    /// (counted under our `ref`).
    pub async fn counts(&self, id: &str) -> (u64, u64) {
        let reference = self.record(id).await.reference;
        let c = emulated::admin(&self.emulator, &format!("initiations/{reference}")).await;
        (c["received"].as_u64().unwrap_or(0), c["executed"].as_u64().unwrap_or(0))
    }

    pub async fn fault(&self, on: &str, fault: &str, times: u32) {
        let answer = reqwest::Client::new()
            .post(format!("{}/_emulator/faults", self.emulator.url))
            .json(&json!({"on": on, "fault": fault, "times": times}))
            .send()
            .await
            .unwrap();
        assert!(answer.status().is_success(), "{:?}", answer.text().await);
    }

    /// Payments `operator` handed to `connector` with `outcome` (`carried`, `fell_back`).
    pub async fn sends(&self, operator: &str, connector: &str, outcome: &str) -> u64 {
        let labels = [("operator", operator), ("connector", connector), ("outcome", outcome)];
        emulated::metric(&self.app, "momo_operator_sends_total", &labels).await
    }

    pub async fn reconcile(&self) {
        reconciler::run_once(&self.app.gateway.payments, later(120_000))
            .await
            .unwrap();
    }
}

async fn alpha_collections_with_a_code_succeed_fail_and_stay_pending(p: Paid) {
    for (id, phone) in [("a01", "0701020301"), ("a03", "0701020303"), ("a06", "0701020306")] {
        let a = p.collect("ALPHA_MONEY_CI", id, phone, Some("1234")).await;
        assert_eq!(a.status, StatusCode::ACCEPTED, "{id}: {}", a.body);
        assert_eq!(
            a.body["data"]["status"], "PENDING",
            "SOFTPAY accepted is not paid: {}",
            a.body
        );
    }
    assert_eq!(
        p.settled("a01").await,
        "SUCCESSFUL",
        "the notification's status check settles it"
    );
    emulated::advance(&p.emulator, DELAY).await;
    assert_eq!(p.settled("a03").await, "FAILED");
    assert_eq!(p.record("a03").await.failure_code, Some(FailureCode::PayerDeclined));
    p.reconcile().await;
    assert_eq!(p.status("a06").await, "PENDING", "nothing settled on a guess");
    for id in ["a01", "a03", "a06"] {
        assert_eq!(p.counts(id).await, (1, 1), "{id}: one SOFTPAY");
        let t = p.record(id).await;
        assert_eq!(t.carrier.connector.as_deref(), Some("paydunya"), "{id}");
        assert!(t.carrier.token.is_some(), "{id}: the invoice's token is recorded");
    }
    p.app.assert_ledger().await;
}

async fn an_alpha_collection_needs_its_code_and_a_wrong_one_fails_it(p: Paid) {
    let a = p.collect("ALPHA_MONEY_CI", "nocode", "0701020301", None).await;
    assert_eq!(a.status, StatusCode::BAD_REQUEST, "{}", a.body);
    let tenant = p.app.sandbox_tenant();
    let stored = p
        .app
        .gateway
        .payments
        .transaction(&tenant, &TransactionRef::from("nocode"))
        .await;
    assert!(stored.is_err(), "nothing recorded");
    let mut v2 = collect_v2("nocode2", json!("0701020301"), "ALPHA_MONEY_CI", json!(1500));
    let a = post(&p.app, &p.token, "/v2/collecte/mobile-money", &v2).await;
    assert_eq!(a.status, StatusCode::BAD_REQUEST, "{}", a.body);
    v2["code_otp"] = json!("0000");
    v2["transaction_id"] = json!("wrong");
    let a = post(&p.app, &p.token, "/v2/collecte/mobile-money", &v2).await;
    assert_ne!(a.status, StatusCode::ACCEPTED, "{}", a.body);
    let t = p.record("wrong").await;
    assert_eq!(t.failure_code, Some(FailureCode::WrongOtp), "{:?}", t.failure_reason);
    assert_eq!(
        p.counts("wrong").await,
        (1, 0),
        "refused by the operator: nothing executed"
    );
    p.app.assert_ledger().await;
}

async fn delta_collections_and_transfers_settle_as_the_emulator_decides(p: Paid) {
    let tenant = p.app.sandbox_tenant();
    p.app
        .gateway
        .balances
        .top_up(&tenant, Francs(100_000), later(0))
        .await
        .unwrap();
    let a = p.collect("DELTA_MONEY_CI", "d-c01", "0701020301", None).await;
    assert_eq!(a.status, StatusCode::ACCEPTED, "{}", a.body);
    let a = p.collect("DELTA_MONEY_CI", "d-c02", "0701020302", None).await;
    assert_eq!(a.status, StatusCode::ACCEPTED, "{}", a.body);
    for (id, phone) in [
        ("d-t01", "0701020301"),
        ("d-t03", "0701020303"),
        ("d-t05", "0701020305"),
    ] {
        let a = p.transfer("DELTA_MONEY_CI", id, phone).await;
        assert!(a.status.is_success(), "{id}: {}", a.body);
    }
    let a = p.transfer("DELTA_MONEY_CI", "d-t04", "0701020304").await;
    assert!(!a.status.is_success(), "refused at submission: {}", a.body);
    assert_eq!(p.record("d-t04").await.failure_code, Some(FailureCode::OperatorRefused));
    assert_eq!(p.settled("d-c01").await, "SUCCESSFUL");
    assert_eq!(p.settled("d-t01").await, "SUCCESSFUL");
    emulated::advance(&p.emulator, DELAY).await;
    assert_eq!(p.settled("d-c02").await, "SUCCESSFUL");
    assert_eq!(p.settled("d-t03").await, "FAILED");
    assert_eq!(p.status("d-t05").await, "PENDING", "row 05 sends no notification");
    p.reconcile().await;
    assert_eq!(
        p.settled("d-t05").await,
        "SUCCESSFUL",
        "the reconciler's check-status settles it"
    );
    for id in ["d-c01", "d-c02", "d-t01", "d-t03", "d-t05"] {
        assert_eq!(p.counts(id).await.1, 1, "{id}: executed once");
    }
    p.app.assert_ledger().await;
}

async fn notifications_without_our_hash_are_refused_and_lies_settle_nothing(p: Paid) {
    let url = p.app.url("/operator-callbacks/DELTA/Sandbox");
    let a = p.collect("DELTA_MONEY_CI", "lie", "0701020302", None).await;
    assert_eq!(a.status, StatusCode::ACCEPTED, "{}", a.body);
    let reference = p.record("lie").await.reference.to_string();
    let form = |hash: &str| format!("data[hash]={hash}&data[status]=completed&data[custom_data][ref]={reference}");
    for body in [
        form(&"0".repeat(128)),
        format!("data[custom_data][ref]={reference}"),
        "<html>".to_owned(),
    ] {
        let sent = p
            .app
            .client
            .post(&url)
            .header("content-type", "application/x-www-form-urlencoded")
            .body(body.clone());
        let a = answer(sent).await;
        assert_eq!(a.status, StatusCode::UNAUTHORIZED, "{body}: {}", a.body);
    }
    // Paid at PayDunya, but its confirmations speak of another amount: nothing is settled on them.
    p.fault("paydunya.invoice.confirm", "answer=other_amount", 100).await;
    emulated::advance(&p.emulator, DELAY).await;
    p.reconcile().await;
    assert_eq!(
        p.status("lie").await,
        "PENDING",
        "nothing settled on an answer that does not add up"
    );
    let cleared = reqwest::Client::new()
        .delete(format!("{}/_emulator/faults", p.emulator.url))
        .send()
        .await
        .unwrap();
    assert!(cleared.status().is_success());
    let right = answer(
        p.app
            .client
            .post(&url)
            .header("content-type", "application/x-www-form-urlencoded")
            .body(form(&paydunya_hash(emulated::PAYDUNYA_MASTER_KEY))),
    )
    .await;
    assert!(right.status.is_success(), "{}", right.body);
    assert_eq!(p.settled("lie").await, "SUCCESSFUL", "once PayDunya tells the truth");
    p.app.assert_ledger().await;
}

async fn a_collection_paydunya_carried_is_not_refunded(p: Paid) {
    let a = p.collect("DELTA_MONEY_CI", "paid", "0701020301", None).await;
    assert_eq!(a.status, StatusCode::ACCEPTED, "{}", a.body);
    assert_eq!(p.settled("paid").await, "SUCCESSFUL");
    let balance_before = answer(p.app.get("/v1/balance").bearer_auth(&p.token)).await.body;
    let a = post(
        &p.app,
        &p.token,
        "/v2/refunds",
        &json!({"transaction_id": "r-paid", "collection_id": "paid"}),
    )
    .await;
    assert_eq!(a.status, StatusCode::CONFLICT, "{}", a.body);
    let text: Value = a.body.clone();
    assert!(text.to_string().contains("gives no payment back"), "{text}");
    let balance_after = answer(p.app.get("/v1/balance").bearer_auth(&p.token)).await.body;
    assert_eq!(balance_before, balance_after, "nothing reserved");
}

/// BETA over PayDunya (`wave-ci`): SOFTPAY answers the payer's Wave page, which the merchant
/// gets as the launch URL in both dialects, as over Wave directly.
async fn a_beta_payer_over_paydunya_is_sent_to_waves_page(p: Paid) {
    let a = p.collect("BETA_MONEY_CI", "beta", "0701020302", None).await;
    assert_eq!(a.status, StatusCode::ACCEPTED, "{}", a.body);
    let token = p
        .record("beta")
        .await
        .carrier
        .token
        .expect("the invoice's token is recorded");
    let page = format!("{}/paydunya/wave/{token}", p.emulator.url);
    assert_eq!(a.body["data"]["betaLaunchUrl"], page.as_str(), "{}", a.body);
    let v2 = answer(p.app.get("/v2/get-status-payment/beta").bearer_auth(&p.token)).await;
    assert_eq!(v2.body["data"]["redirectUrl"], page.as_str(), "{}", v2.body);
    emulated::advance(&p.emulator, DELAY).await;
    assert_eq!(p.settled("beta").await, "SUCCESSFUL");
}
