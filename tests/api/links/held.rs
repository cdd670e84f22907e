//! Links that no one can hold: a collection started on a once-only link's page expires after
//! the link's own lifetime (`MOMO_LINK_PAYMENT_TTL_S`, 3 minutes), after a last status check,
//! which frees the link for the next payer, who meanwhile is told the link is busy and for
//! about how long; a link is still never paid twice. A payer number is asked only so many
//! times an hour, whoever types it, and an IPv6 address counts as its /64.

use momo_gateway::domain::{FailureCode, Status, TransactionRef};
use momo_gateway::net::IpRange;
use momo_gateway::reconcile::expiry;
use reqwest::header::COOKIE;
use reqwest::StatusCode;
use serde_json::{json, Value};

use super::page::{csrf_of, make, open, pay};
use crate::support::helpers::{answer, later, TestApp};
use momo_test_support::both_backends;

both_backends!(
    TestApp::spawn =>
    a_link_held_by_an_unapproved_payment_takes_another_payer_once_it_expired,
);

both_backends!(
    TestApp::spawn_with(limits_per_number_and_per_64) =>
    a_number_is_asked_only_so_many_times_an_hour_and_ipv6_counts_by_its_64,
);

fn limits_per_number_and_per_64(c: &mut momo_gateway::config::Config) {
    c.link_payments_per_number_per_hour = 3;
    c.link_payments_per_address_per_min = 2;
    c.http.trusted_proxies = vec![IpRange::parse("127.0.0.1").unwrap()];
}

async fn transactions(app: &TestApp) -> Vec<Value> {
    let token = app.sandbox_token().await;
    answer(app.get("/v1/transactions").bearer_auth(&token)).await.body["data"]
        .as_array()
        .unwrap()
        .clone()
}

async fn a_link_held_by_an_unapproved_payment_takes_another_payer_once_it_expired(app: TestApp) {
    let id = make(&app, json!({"amount": "2000", "description": "Robe"})).await;
    let (_, cookie, _) = open(&app, &format!("/pay/{id}")).await;
    let csrf = csrf_of(&cookie).to_owned();
    let form = |phone: &'static str| [("csrf_token", csrf.as_str()), ("operator", "GAMMA"), ("phone", phone)];

    // Numbers ending 06 are never approved in the Sandbox: this payer holds the link's place.
    let holder = pay(&app, &id, &cookie, &form("0701020306")).await;
    assert_eq!(holder.status(), StatusCode::SEE_OTHER);
    let busy = pay(&app, &id, &cookie, &form("0701020301")).await;
    assert_eq!(busy.status(), StatusCode::CONFLICT, "busy, not closed");
    assert_eq!(busy.headers()["retry-after"], "180");
    let page = busy.text().await.unwrap();
    assert!(page.contains("Lien occupé") && page.contains("3 minutes"), "{page}");

    let early = expiry::run_once(&app.gateway.payments, later(60_000)).await.unwrap();
    assert_eq!(early.settled, 0, "a minute old: still the payer's to approve");
    let expired = expiry::run_once(&app.gateway.payments, later(181_000)).await.unwrap();
    assert_eq!(expired.settled, 1, "past the link's 3 minutes");
    let made = transactions(&app).await;
    let held = app
        .gateway
        .payments
        .transaction(
            &app.sandbox_tenant(),
            &TransactionRef::from(made[0]["transactionId"].as_str().unwrap()),
        )
        .await
        .unwrap();
    assert_eq!(
        (held.transaction.status, held.transaction.failure_code),
        (Status::Failed, Some(FailureCode::Expired)),
        "{made:?}"
    );

    let next = pay(&app, &id, &cookie, &form("0701020301")).await;
    assert_eq!(next.status(), StatusCode::SEE_OTHER, "the place is free again");
    let third = pay(&app, &id, &cookie, &form("0701020311")).await;
    assert_eq!(third.status(), StatusCode::GONE, "paid once, never twice");
    let made = transactions(&app).await;
    let paid = made.iter().filter(|t| t["status"] == "SUCCESSFUL").count();
    assert_eq!((made.len(), paid), (2, 1), "{made:?}");
    app.assert_ledger().await;
}

/// A payment from `address`, as the trusted proxy in front of the gateway reports it.
async fn pay_from(app: &TestApp, id: &str, cookie: &str, phone: &str, address: &str) -> StatusCode {
    let form = [("csrf_token", csrf_of(cookie)), ("operator", "GAMMA"), ("phone", phone)];
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
        .post(app.url(&format!("/pay/{id}")))
        .header(COOKIE, cookie)
        .header("X-Forwarded-For", address)
        .form(&form)
        .send()
        .await
        .unwrap()
        .status()
}

async fn a_number_is_asked_only_so_many_times_an_hour_and_ipv6_counts_by_its_64(app: TestApp) {
    let id = make(
        &app,
        json!({"amount": "1000", "description": "Ticket", "reusable": true}),
    )
    .await;
    let (_, cookie, _) = open(&app, &format!("/pay/{id}")).await;
    // One number from three addresses: three prompts an hour, then 429 whoever types it.
    for (i, address) in ["192.0.2.1", "192.0.2.2", "192.0.2.3"].iter().enumerate() {
        let status = pay_from(&app, &id, &cookie, "0701020301", address).await;
        assert_eq!(status, StatusCode::SEE_OTHER, "payment {i}");
    }
    assert_eq!(
        pay_from(&app, &id, &cookie, "0701020301", "192.0.2.4").await,
        StatusCode::TOO_MANY_REQUESTS,
        "a fourth prompt to the same number"
    );
    // Two a minute per address: an IPv6 /64 is one address however many it holds.
    let numbers = ["0701020311", "0701020321", "0701020331", "0701020341"];
    assert_eq!(
        pay_from(&app, &id, &cookie, numbers[0], "2001:db8:1:2::1").await,
        StatusCode::SEE_OTHER
    );
    assert_eq!(
        pay_from(&app, &id, &cookie, numbers[1], "2001:db8:1:2::2").await,
        StatusCode::SEE_OTHER
    );
    assert_eq!(
        pay_from(&app, &id, &cookie, numbers[2], "2001:db8:1:2:ffff::3").await,
        StatusCode::TOO_MANY_REQUESTS,
        "the same /64"
    );
    assert_eq!(
        pay_from(&app, &id, &cookie, numbers[3], "2001:db8:1:3::1").await,
        StatusCode::SEE_OTHER,
        "another /64"
    );
    assert_eq!(transactions(&app).await.len(), 6);
}
