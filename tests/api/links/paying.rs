//! Paying through a link (the service call its public page makes): an ordinary collection
//! carrying the link's id, shown with it in both dialects and in its webhook; the link's
//! counts follow its payments; its limit, expiry and deactivation hold, and twenty payers of a
//! single-payment link at once end with exactly one `SUCCESSFUL` payment.

use momo_gateway::domain::{Amount, LinkClosed, LinkId, Msisdn, OperatorCode, Timestamp};
use momo_gateway::service::{LinkPayment, LinkPaymentError, ServiceError};
use reqwest::StatusCode;
use serde_json::{json, Value};

use crate::support::helpers::{answer, TestApp};
use crate::support::requests::{collect_v2, post};
use momo_test_support::both_backends;

both_backends!(
    TestApp::spawn =>
    a_payment_through_a_link_carries_its_id_and_counts_on_it,
    a_links_rules_refuse_payments_before_anything_is_written,
    twenty_payers_of_a_single_payment_link_at_once_make_one_payment,
);

/// A payment from a number ending `ending` (the Sandbox table) with GAMMA.
fn payer(ending: &str, amount: Option<i64>) -> LinkPayment {
    let raw = format!("07010203{ending}");
    LinkPayment {
        operator: OperatorCode::Gamma,
        phone: Msisdn::parse(&raw).unwrap(),
        phone_as_sent: raw,
        amount: amount.map(|a| Amount::from_francs(a).unwrap()),
        otp_code: None,
    }
}

async fn make(app: &TestApp, token: &str, body: Value) -> LinkId {
    let a = post(app, token, "/v1/payment-links", &body).await;
    assert_eq!(a.status, StatusCode::OK, "{}", a.body);
    LinkId::parse(a.body["data"]["id"].as_str().unwrap()).unwrap()
}

async fn link(app: &TestApp, token: &str, id: &LinkId) -> Value {
    answer(app.get(&format!("/v1/payment-links/{id}")).bearer_auth(token))
        .await
        .body["data"]
        .clone()
}

async fn a_payment_through_a_link_carries_its_id_and_counts_on_it(app: TestApp) {
    let token = app.sandbox_token().await;
    let id = make(
        &app,
        &token,
        json!({"minAmount": "1000", "maxAmount": "9000", "description": "Don", "reusable": true}),
    )
    .await;
    let links = &app.gateway.links;
    // 04: the operator fails it at once; the link takes payments again.
    let failed = links.pay(&id, payer("04", Some(2500)), Timestamp::now()).await;
    assert!(matches!(failed, Err(LinkPaymentError::Failed(_))), "{failed:?}");
    let paid = links.pay(&id, payer("01", Some(2500)), Timestamp::now()).await.unwrap();
    let t = &paid.transaction;
    assert_eq!(
        (t.purpose.link(), t.amounts.amount),
        (Some(&id), momo_gateway::domain::Francs(2_500))
    );
    assert!(
        t.transaction_id.as_str().starts_with("lnk-"),
        "{}",
        t.transaction_id.as_str()
    );

    let v2 = answer(
        app.get(&format!("/v2/get-status-payment/{}", t.reference))
            .bearer_auth(&token),
    )
    .await;
    assert_eq!(
        (&v2.body["data"]["linkpayment_id"], &v2.body["data"]["type_transaction"]),
        (&json!(id.as_str()), &json!("payment")),
        "{}",
        v2.body
    );
    let v1 = answer(app.get("/v1/transactions?status=SUCCESSFUL").bearer_auth(&token)).await;
    let listed = &v1.body["data"][0];
    assert_eq!(
        (&listed["ref"], &listed["linkPaymentId"], &listed["typeTransaction"]),
        (&json!(t.reference.as_str()), &json!(id.as_str()), &json!("collecte")),
        "{}",
        v1.body
    );
    let statement = answer(app.get("/v1/ledger/entries?limit=1000").bearer_auth(&token)).await;
    let line = statement.body["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["ref"] == t.reference.as_str())
        .expect("the payment's statement line")
        .clone();
    assert_eq!(
        line["linkPaymentId"],
        id.as_str(),
        "the statement names the link: {line}"
    );
    let shown = link(&app, &token, &id).await;
    assert_eq!(
        (&shown["payments"], &shown["collected"], &shown["active"]),
        (&json!({"successful": 1, "pending": 0}), &json!("2500"), &json!(true)),
        "{shown}"
    );
    // 06: never settles; the link shows it pending.
    links.pay(&id, payer("06", Some(1000)), Timestamp::now()).await.unwrap();
    assert_eq!(
        link(&app, &token, &id).await["payments"],
        json!({"successful": 1, "pending": 1})
    );
    // A payment that did not come from a link says so with null.
    let plain = post(
        &app,
        &token,
        "/v2/collecte/mobile-money",
        &collect_v2("plain-1", json!("0701020301"), "GAMMA_MONEY_CI", json!(1000)),
    )
    .await;
    assert!(plain.status.is_success(), "{}", plain.body);
    assert_eq!(plain.body["data"]["linkpayment_id"], Value::Null);
    // The link's payments, failed ones included, and no other; a malformed id is refused.
    let through = answer(
        app.get(&format!("/v1/transactions?linkPaymentId={id}"))
            .bearer_auth(&token),
    )
    .await;
    let statuses: Vec<&str> = through.body["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, ["PENDING", "SUCCESSFUL", "FAILED"], "{}", through.body);
    let bad = app
        .get("/v1/transactions?linkPaymentId=lnk_short")
        .bearer_auth(&token)
        .send()
        .await
        .unwrap();
    assert_eq!(bad.status(), StatusCode::BAD_REQUEST);
    app.assert_ledger().await;
}

async fn a_links_rules_refuse_payments_before_anything_is_written(app: TestApp) {
    let token = app.sandbox_token().await;
    let links = &app.gateway.links;
    let now = Timestamp::now();
    let fixed = make(
        &app,
        &token,
        json!({"amount": "5000", "description": "Robe", "operators": ["GAMMA_MONEY_CI"],
        "expiresAt": Timestamp(now.millis() + 3_600_000).iso8601_millis()}),
    )
    .await;
    let beta = LinkPayment {
        operator: OperatorCode::Beta,
        ..payer("01", None)
    };
    let refusal = links.pay(&fixed, beta, now).await;
    assert!(
        matches!(&refusal, Err(LinkPaymentError::Service(ServiceError::Invalid(why))) if why.contains("operator")),
        "{refusal:?}"
    );
    let later = Timestamp(now.millis() + 7_200_000);
    let expired = links.pay(&fixed, payer("01", None), later).await;
    assert!(
        matches!(expired, Err(LinkPaymentError::Closed(LinkClosed::Expired))),
        "{expired:?}"
    );
    let open = make(
        &app,
        &token,
        json!({"minAmount": "1000", "maxAmount": "2000", "description": "Don", "reusable": true}),
    )
    .await;
    for amount in [None, Some(999), Some(2001)] {
        let out = links.pay(&open, payer("01", amount), now).await;
        assert!(
            matches!(&out, Err(LinkPaymentError::Service(ServiceError::Invalid(why))) if why.contains("amount")),
            "{amount:?}: {out:?}"
        );
    }
    let unknown = links.pay(&LinkId::new(), payer("01", None), now).await;
    assert!(
        matches!(unknown, Err(LinkPaymentError::Service(ServiceError::NotFound(_)))),
        "{unknown:?}"
    );
    // Paid once, then closed; deactivated, closed at once.
    links.pay(&fixed, payer("01", None), now).await.unwrap();
    let again = links.pay(&fixed, payer("01", None), now).await;
    assert!(
        matches!(again, Err(LinkPaymentError::Closed(LinkClosed::Exhausted))),
        "{again:?}"
    );
    assert_eq!(
        link(&app, &token, &fixed).await["active"],
        false,
        "paid: no longer active"
    );
    post(
        &app,
        &token,
        &format!("/v1/payment-links/{open}/deactivate"),
        &json!({}),
    )
    .await;
    let off = links.pay(&open, payer("01", Some(1500)), now).await;
    assert!(
        matches!(off, Err(LinkPaymentError::Closed(LinkClosed::Deactivated))),
        "{off:?}"
    );
    let listed = answer(app.get("/v1/transactions").bearer_auth(&token)).await;
    assert_eq!(
        listed.body["data"].as_array().unwrap().len(),
        1,
        "only the one payment was written"
    );
    app.assert_ledger().await;
}

async fn twenty_payers_of_a_single_payment_link_at_once_make_one_payment(app: TestApp) {
    let token = app.sandbox_token().await;
    let id = make(&app, &token, json!({"amount": "3000", "description": "Billet concert"})).await;
    let payers = (0..20).map(|_| {
        let (links, id) = (app.gateway.links.clone(), id.clone());
        tokio::spawn(async move { links.pay(&id, payer("01", None), Timestamp::now()).await })
    });
    let mut paid = 0;
    for payer in payers {
        match payer.await.unwrap() {
            Ok(record) => {
                assert_eq!(record.transaction.status.as_str(), "SUCCESSFUL");
                paid += 1;
            }
            Err(LinkPaymentError::Closed(_)) => {}
            Err(other) => panic!("a payer got {other:?}"),
        }
    }
    assert_eq!(paid, 1, "exactly one payment");
    let shown = link(&app, &token, &id).await;
    assert_eq!(
        (&shown["payments"], &shown["collected"]),
        (&json!({"successful": 1, "pending": 0}), &json!("3000"))
    );
    app.assert_ledger().await;
}
