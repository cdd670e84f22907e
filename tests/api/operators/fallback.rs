//! Routes with a fallback, `GAMMA:Sandbox=momo-openapi|paydunya`: PayDunya carries a payment
//! only when MoMo refused it before anything could be sent (here, its connection refused);
//! never after a timeout that leaves MoMo's outcome unknown. The payment records its carrier,
//! and its status checks go there only. And the Production routing docs/operators.md gives
//! serves all four operators.

use momo_test_support::both_backends;
use momo_test_support::Backend;
use reqwest::StatusCode;
use serde_json::json;

use super::paydunya::{paid_with, Paid};
use crate::support::emulated;
use crate::support::helpers::free_port;
use crate::support::requests::{collect_v1, post};

async fn momo_refused(backend: Backend) -> Option<Paid> {
    let closed = format!("http://127.0.0.1:{}", free_port());
    paid_with(backend, "GAMMA:Sandbox=momo-openapi|paydunya", Some(closed), |_| {}).await
}

async fn momo_reachable(backend: Backend) -> Option<Paid> {
    paid_with(backend, "GAMMA:Sandbox=momo-openapi|paydunya", None, |_| {}).await
}

async fn production(backend: Backend) -> Option<Paid> {
    let routes = "ALPHA:Production=paydunya,BETA:Production=wave-checkout,GAMMA:Production=momo-openapi,DELTA:Production=paydunya";
    paid_with(backend, routes, None, |_| {}).await
}

both_backends!(momo_refused => a_refused_connection_falls_back_to_the_next_connector);
both_backends!(momo_reachable => a_timeout_after_sending_never_falls_back);
both_backends!(production => every_operator_is_served_in_production);

async fn a_refused_connection_falls_back_to_the_next_connector(p: Paid) {
    for id in ["g1", "g2"] {
        let a = p.collect("GAMMA_MONEY_CI", id, "0701020301", None).await;
        assert_eq!(a.status, StatusCode::ACCEPTED, "{id}: {}", a.body);
        assert_eq!(p.settled(id).await, "SUCCESSFUL", "{id}: PayDunya carried it");
        let t = p.record(id).await;
        assert_eq!(t.carrier.connector.as_deref(), Some("paydunya"), "{id}");
        assert_eq!(p.counts(id).await, (1, 1), "{id}: sent once, to PayDunya");
    }
    assert_eq!(p.sends("GAMMA", "momo-openapi", "fell_back").await, 2);
    assert_eq!(p.sends("GAMMA", "paydunya", "carried").await, 2);
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

async fn every_operator_is_served_in_production(p: Paid) {
    let token = p.app.token(&p.app.merchant.production).await;
    for (operator, code) in [
        ("ALPHA", Some("1234")),
        ("BETA", None),
        ("GAMMA", None),
        ("DELTA", None),
    ] {
        let mut body = collect_v1(
            &format!("prod-{operator}"),
            "0701020301",
            &format!("{operator}_MONEY_CI"),
            "1500",
        );
        if let Some(code) = code {
            body["otpCode"] = json!(code);
        }
        let a = post(&p.app, &token, "/v1/collecte/mobile-money", &body).await;
        assert!(a.status.is_success(), "{operator} is served in Production: {}", a.body);
        assert_eq!(a.body["data"]["status"], "PENDING", "{operator}: {}", a.body);
    }
    for (operator, connector) in [
        ("ALPHA", "paydunya"),
        ("BETA", "wave-checkout"),
        ("GAMMA", "momo-openapi"),
        ("DELTA", "paydunya"),
    ] {
        assert_eq!(p.sends(operator, connector, "carried").await, 1, "{operator}");
    }
}
