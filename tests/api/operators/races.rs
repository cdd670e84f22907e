//! Orders of events the simulation (`tests/simulation`) and an outside review found, replayed
//! against the emulator over HTTP: a reconciler's status check that lands while the creation is
//! still sending. Each ends with one movement of money and a gateway that agrees with the
//! operator.

use std::time::Duration;

use momo_gateway::domain::FailureCode;
use momo_gateway::domain::{Francs, Timestamp, TransactionRef};
use momo_gateway::reconcile::{expiry, reconciler};
use reqwest::StatusCode;
use serde_json::{json, Value};

use super::paydunya::{paid_with, Paid};
use crate::support::emulated;
use crate::support::helpers::later;
use crate::support::requests::{collect_v1, transfer_v1};
use momo_test_support::{both_backends, eventually, Backend};

async fn momo_then_paydunya(backend: Backend) -> Option<Paid> {
    paid_with(backend, "GAMMA:Sandbox=momo-openapi|paydunya", None, |c| {
        c.reconcile.after = Duration::from_millis(300);
        c.reconcile.collection_ttl = Duration::from_secs(60);
        c.connectors.timeout = Duration::from_secs(10);
    })
    .await
}

async fn alpha_over_paydunya(backend: Backend) -> Option<Paid> {
    paid_with(backend, "ALPHA:Sandbox=paydunya", None, |c| {
        c.reconcile.after = Duration::ZERO;
        c.connectors.timeout = Duration::from_secs(5);
    })
    .await
}

both_backends!(
    momo_then_paydunya =>
    a_status_check_during_a_fallback_sends_nothing_to_the_connector_left,
    a_collection_that_fell_back_expires_with_nothing_asked_of_the_connector_it_left,
);
both_backends!(alpha_over_paydunya => a_status_check_while_the_invoice_is_made_neither_resends_nor_fails_it);

/// Replaces the emulator's fault rules with `rules`.
async fn faults(p: &Paid, rules: Value) {
    let answer = reqwest::Client::new()
        .post(format!("{}/_emulator/faults", p.emulator.url))
        .json(&json!({ "rules": rules }))
        .send()
        .await
        .unwrap();
    assert!(answer.status().is_success(), "{:?}", answer.text().await);
}

/// Sends `body` to `path` as the merchant, on a task of its own: the creation in flight.
fn in_flight(p: &Paid, path: &str, body: Value) -> tokio::task::JoinHandle<StatusCode> {
    let request = p.app.post(path).bearer_auth(&p.token).json(&body);
    tokio::spawn(async move { request.send().await.expect("an answer").status() })
}

/// Waits until the gateway has recorded `id` (its creation is then on its way to the operator).
async fn recorded(p: &Paid, id: &str) {
    let tenant = p.app.sandbox_tenant();
    eventually(&format!("{id} recorded"), Duration::from_secs(10), async || {
        let found = p
            .app
            .gateway
            .payments
            .transaction(&tenant, &TransactionRef::from(id))
            .await;
        found.map(|_| ()).map_err(|e| e.to_string())
    })
    .await;
}

/// A reconciler pass at the machine's time plus `ahead`, on a task of its own.
fn reconciler_pass(p: &Paid, ahead: Duration) -> tokio::task::JoinHandle<()> {
    let payments = p.app.gateway.payments.clone();
    tokio::spawn(async move {
        reconciler::run_once(&payments, Timestamp::now().plus(ahead))
            .await
            .expect("a pass");
    })
}

/// GAMMA over `momo-openapi|paydunya`: MoMo refuses the creation's transfer after 1.5 s, and
/// again with a fresh token (401 twice: nothing sent), so the creation moves it to PayDunya; the
/// reconciler's status lookup, asked of MoMo while the row still named it, answers 404 after
/// 5 s, once the move is made. Before the fix the
/// reconciler resent the transfer to MoMo on its stale row, and both operators paid.
async fn a_status_check_during_a_fallback_sends_nothing_to_the_connector_left(p: Paid) {
    let tenant = p.app.sandbox_tenant();
    p.app
        .gateway
        .balances
        .top_up(&tenant, Francs(10_000), later(0))
        .await
        .unwrap();
    faults(
        &p,
        json!([
            {"on": "momo.transfer", "fault": "latency=1500ms,status=401", "times": 2},
            {"on": "momo.transfer.status", "fault": "latency=5000ms", "times": 1},
        ]),
    )
    .await;
    let creation = in_flight(
        &p,
        "/v1/transfer/mobile-money",
        transfer_v1("moved", "0701020302", "GAMMA_MONEY_CI", "1000"),
    );
    recorded(&p, "moved").await;
    let pass = reconciler_pass(&p, Duration::from_millis(400));
    assert!(creation.await.unwrap().is_success(), "the creation is answered");
    pass.await.unwrap();
    let t = p.record("moved").await;
    assert_eq!(t.carrier.connector.as_deref(), Some("paydunya"), "PayDunya carries it");
    assert_eq!(p.status("moved").await, "PENDING", "number 02 settles after the delay");
    emulated::advance(&p.emulator, super::paydunya::DELAY).await;
    assert_eq!(p.settled("moved").await, "SUCCESSFUL");
    // Later passes, past the longest send: PayDunya, which carries it, is asked; MoMo is not.
    p.reconcile().await;
    let at_momo = emulated::admin(&p.emulator, &format!("initiations/{}", t.id)).await;
    assert_eq!(
        (at_momo["received"].as_u64(), at_momo["executed"].as_u64()),
        (Some(2), Some(0)),
        "MoMo got the creation's two refused attempts and nothing after: {at_momo}"
    );
    assert_eq!(p.counts("moved").await, (1, 1), "PayDunya paid it once");
    assert_eq!(p.status("moved").await, "SUCCESSFUL");
    p.app.assert_ledger().await;
}

/// The same start with a collection from a payer who never approves (06): PayDunya's invoice
/// stays open, and the collection expires at the gateway. Before the fix the reconciler's
/// resend put a request-to-pay before the payer at MoMo too, which the gateway, counting the
/// payment as PayDunya's, would never have asked about: a payer approving it there would have
/// paid a collection the gateway had expired.
async fn a_collection_that_fell_back_expires_with_nothing_asked_of_the_connector_it_left(p: Paid) {
    faults(
        &p,
        json!([
            {"on": "momo.requesttopay", "fault": "latency=1500ms,status=401", "times": 2},
            {"on": "momo.requesttopay.status", "fault": "latency=5000ms", "times": 1},
        ]),
    )
    .await;
    let creation = in_flight(
        &p,
        "/v1/collecte/mobile-money",
        collect_v1("left", "0701020306", "GAMMA_MONEY_CI", "1500"),
    );
    recorded(&p, "left").await;
    let pass = reconciler_pass(&p, Duration::from_millis(400));
    assert_eq!(creation.await.unwrap(), StatusCode::ACCEPTED);
    pass.await.unwrap();
    let t = p.record("left").await;
    assert_eq!(t.carrier.connector.as_deref(), Some("paydunya"), "PayDunya carries it");
    // Past its lifetime and the longest send: its last check asks PayDunya, still open.
    expiry::run_once(&p.app.gateway.payments, later(600_000)).await.unwrap();
    assert_eq!(p.status("left").await, "FAILED");
    assert_eq!(p.record("left").await.failure_code, Some(FailureCode::Expired));
    let at_momo = emulated::admin(&p.emulator, &format!("initiations/{}", t.id)).await;
    assert_eq!(
        (at_momo["received"].as_u64(), at_momo["executed"].as_u64()),
        (Some(2), Some(0)),
        "no request-to-pay left open at MoMo: {at_momo}"
    );
    assert_eq!(p.counts("left").await, (1, 1), "one SOFTPAY, at PayDunya");
    let invoice = emulated::admin(&p.emulator, &format!("payments/{}", t.reference)).await;
    assert_eq!(
        invoice["status"], "pending",
        "never paid, as the gateway says: {invoice}"
    );
    p.app.assert_ledger().await;
}

/// ALPHA over PayDunya, the reconciler asking at once: its status check lands while the
/// creation is still having the invoice made (no token recorded yet, so "not received").
/// Before the fix it resent the collection at once: a second invoice, submitted without the
/// payer's one-time code (never stored), refused, and the collection failed while the
/// creation's own invoice was on its way.
async fn a_status_check_while_the_invoice_is_made_neither_resends_nor_fails_it(p: Paid) {
    faults(
        &p,
        json!([{"on": "paydunya.invoice.create", "fault": "latency=1500ms", "times": 1}]),
    )
    .await;
    let mut body = collect_v1("coded", "0701020301", "ALPHA_MONEY_CI", "1500");
    body["otpCode"] = json!("1234");
    let creation = in_flight(&p, "/v1/collecte/mobile-money", body);
    recorded(&p, "coded").await;
    reconciler_pass(&p, Duration::from_millis(100)).await.unwrap();
    assert_eq!(creation.await.unwrap(), StatusCode::ACCEPTED);
    assert_eq!(p.settled("coded").await, "SUCCESSFUL", "the payer's SOFTPAY paid it");
    p.reconcile().await;
    assert_eq!(p.counts("coded").await, (1, 1), "one SOFTPAY, with the code");
    let invoices = emulated::admin(&p.emulator, "payments").await;
    let ours = invoices
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["flow"] == "invoice")
        .count();
    assert_eq!(ours, 1, "one invoice: {invoices}");
    p.app.assert_ledger().await;
}
