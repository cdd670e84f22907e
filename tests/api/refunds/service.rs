//! Refunds through the payments service: a
//! `SUCCESSFUL` collection is given back in part or in full through the simulator, paid out of
//! the balance like a transfer, never beyond what it took; anything else is refused before
//! anything is written.

use momo_gateway::domain::{Amount, Francs, Kind, Status, Timestamp, TransactionRef};
use momo_gateway::service::payments::refunds::RefundError;
use momo_gateway::service::payments::refunds::RefundRequest;
use momo_gateway::service::{Principal, ServiceError};
use reqwest::StatusCode;

use crate::support::helpers::{answer, TestApp};
use crate::support::requests::{collect_v1, post, transfer_v1};
use momo_test_support::both_backends;

both_backends!(
    TestApp::spawn =>
    a_successful_collection_is_refunded_in_part_then_in_full_and_no_further,
);

fn refund(id: &str, collection: &str, francs: Option<i64>) -> RefundRequest {
    RefundRequest {
        transaction_id: id.into(),
        collection: TransactionRef::from(collection),
        amount: francs.map(|f| Amount::from_francs(f).unwrap()),
        reason: None,
    }
}

async fn a_successful_collection_is_refunded_in_part_then_in_full_and_no_further(app: TestApp) {
    let token = app.sandbox_token().await;
    let caller: Principal = app.gateway.auth.authenticate(&token, None).await.unwrap();
    let before = answer(app.get("/v1/balance").bearer_auth(&token)).await.body["data"]["available"]
        .as_str()
        .unwrap()
        .parse::<i64>()
        .unwrap();
    // Ending 01: the simulator pays it at once.
    let paid = post(
        &app,
        &token,
        "/v1/collecte/mobile-money",
        &collect_v1("paid-1", "0701020301", "ALPHA_MONEY_CI", "10000"),
    )
    .await;
    assert_eq!(paid.status, StatusCode::OK, "{}", paid.body);
    let payments = &app.gateway.payments;
    let now = Timestamp::now();

    let part = payments
        .refund_as(&caller, refund("refund-1", "paid-1", Some(4_000)), now)
        .await
        .unwrap();
    let t = &part.transaction;
    assert_eq!(
        (t.kind(), t.status, t.amounts.amount, t.amounts.fees),
        (Kind::Refund, Status::Successful, Francs(4_000), Francs::ZERO)
    );
    assert_eq!(t.phone.as_str(), "0701020301", "given back to the payer's number");
    let rest = payments
        .refund_as(&caller, refund("refund-2", "paid-1", None), now)
        .await
        .unwrap();
    assert_eq!(
        rest.transaction.amounts.amount,
        momo_gateway::domain::Francs(6_000),
        "what remains, by default"
    );
    let collection = payments
        .transaction(&app.sandbox_tenant(), &TransactionRef::from("paid-1"))
        .await
        .unwrap();
    assert_eq!(collection.transaction.purpose.refunded(), Francs(10_000));

    for (what, request) in [
        ("nothing remains", refund("refund-3", "paid-1", None)),
        ("more than remains", refund("refund-3", "paid-1", Some(100))),
    ] {
        assert!(
            matches!(
                payments.refund_as(&caller, request, now).await,
                Err(RefundError::NotRefundable(_))
            ),
            "{what}"
        );
    }
    let transfer = post(
        &app,
        &token,
        "/v1/transfer/mobile-money",
        &transfer_v1("payout-1", "0701020301", "ALPHA_MONEY_CI", "1000"),
    )
    .await;
    assert!(transfer.status.is_success(), "{}", transfer.body);
    assert!(matches!(
        payments
            .refund_as(&caller, refund("refund-4", "payout-1", None), now)
            .await,
        Err(RefundError::NotRefundable(_))
    ));
    assert!(matches!(
        payments
            .refund_as(&caller, refund("refund-5", "no-such-payment", None), now)
            .await,
        Err(RefundError::Service(ServiceError::NotFound(_)))
    ));
    let refused_id = payments
        .transaction(&app.sandbox_tenant(), &TransactionRef::from("refund-3"))
        .await;
    assert!(
        matches!(refused_id, Err(ServiceError::NotFound(_))),
        "a refused refund writes nothing"
    );

    let after = answer(app.get("/v1/balance").bearer_auth(&token)).await.body["data"]["available"]
        .as_str()
        .unwrap()
        .parse::<i64>()
        .unwrap();
    // The collection's 10,000 less ALPHA's 2 % came in; the 10,000 went back (its fee is not
    // returned); the transfer paid 1,000 and its 1 %.
    assert_eq!(after, before + 9_800 - 10_000 - 1_010);
    app.assert_ledger().await;
}
