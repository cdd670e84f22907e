//! Routes with a fallback, `GAMMA:Sandbox=momo-openapi|paydunya`: PayDunya carries a payment
//! only when MoMo refused it before anything could be sent (here, its connection refused);
//! never after a timeout that leaves MoMo's outcome unknown. The payment records its carrier,
//! and its status checks go there only. (The Production routing docs/operators.md gives:
//! `production.rs`.)

use momo_test_support::both_backends;
use momo_test_support::Backend;
use reqwest::StatusCode;

use momo_gateway::domain::Francs;
use serde_json::json;

use super::paydunya::{paid_with, Paid};
use crate::support::emulated;
use crate::support::helpers::free_port;
use crate::support::helpers::later;
use crate::support::requests::{post, transfer_v1};

async fn momo_refused(backend: Backend) -> Option<Paid> {
    let closed = format!("http://127.0.0.1:{}", free_port());
    paid_with(backend, "GAMMA:Sandbox=momo-openapi|paydunya", Some(closed), |_| {}).await
}

async fn momo_reachable(backend: Backend) -> Option<Paid> {
    paid_with(backend, "GAMMA:Sandbox=momo-openapi|paydunya", None, |_| {}).await
}

both_backends!(momo_refused => a_refused_connection_falls_back_to_the_next_connector);
both_backends!(momo_reachable => a_timeout_after_sending_never_falls_back);

async fn a_refused_connection_falls_back_to_the_next_connector(p: Paid) {
    for id in ["g1", "g2"] {
        let a = p.collect("GAMMA_MONEY_CI", id, "0701020301", None).await;
        assert_eq!(a.status, StatusCode::ACCEPTED, "{id}: {}", a.body);
        assert_eq!(p.settled(id).await, "SUCCESSFUL", "{id}: PayDunya carried it");
        let t = p.record(id).await;
        assert_eq!(t.carrier.connector.as_deref(), Some("paydunya"), "{id}");
        assert_eq!(p.counts(id).await, (1, 1), "{id}: sent once, to PayDunya");
    }
    // A transfer checked first: MoMo cannot be asked, PayDunya cannot tell (unknown), so it
    // goes, and PayDunya carries it.
    let tenant = p.app.sandbox_tenant();
    p.app
        .gateway
        .balances
        .top_up(&tenant, Francs(10_000), later(0))
        .await
        .unwrap();
    let mut checked = transfer_v1("g-checked", "0701020301", "GAMMA_MONEY_CI", "1000");
    checked["checkRecipient"] = json!(true);
    let a = post(&p.app, &p.token, "/v1/transfer/mobile-money", &checked).await;
    assert!(a.status.is_success(), "{}", a.body);
    assert_eq!(p.settled("g-checked").await, "SUCCESSFUL");
    assert_eq!(
        p.record("g-checked").await.carrier.connector.as_deref(),
        Some("paydunya")
    );
    assert_eq!(p.sends("GAMMA", "momo-openapi", "fell_back").await, 3);
    assert_eq!(p.sends("GAMMA", "paydunya", "carried").await, 3);
    assert_eq!(p.sends("GAMMA", "momo-openapi", "carried").await, 0);
    p.app.assert_ledger().await;
}

async fn a_timeout_after_sending_never_falls_back(p: Paid) {
    p.fault("momo.requesttopay", "timeout=2s", 1).await;
    let a = p.collect("GAMMA_MONEY_CI", "slow", "0701020301", None).await;
    assert_eq!(a.status, StatusCode::ACCEPTED, "{}", a.body);
    assert_eq!(a.body["data"]["status"], "PENDING", "{}", a.body);
    let t = p.record("slow").await;
    assert_eq!(
        t.carrier.connector.as_deref(),
        Some("momo-openapi"),
        "recorded before it was sent"
    );
    let invoices = emulated::admin(&p.emulator, "payments").await;
    let at_paydunya = invoices
        .as_array()
        .unwrap()
        .iter()
        .filter(|x| x["protocol"] == "paydunya")
        .count();
    assert_eq!(at_paydunya, 0, "never sent to a second connector: {invoices}");
    p.reconcile().await;
    assert_eq!(p.settled("slow").await, "SUCCESSFUL", "MoMo's own status settles it");
    let at_momo = emulated::admin(&p.emulator, &format!("initiations/{}", t.id)).await;
    assert_eq!(at_momo["executed"], 1, "{at_momo}");
    assert_eq!(p.sends("GAMMA", "momo-openapi", "fell_back").await, 0);
    p.app.assert_ledger().await;
}
