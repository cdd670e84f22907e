//! What a created payment looks like: the exact v1 and v2 answers, and the same stored
//! transaction whichever generation created it.

use reqwest::StatusCode;
use serde_json::{json, Value};

use crate::support::helpers::{answer, TestApp};
use crate::support::requests::{collect_v1, collect_v2, post, transfer_v1, transfer_v2};
use momo_gateway::domain::TransactionRef;
use momo_test_support::both_backends;

both_backends!(
    TestApp::spawn =>
    a_successful_v1_collection_has_the_exact_v1_shape,
    a_successful_v2_collection_has_the_exact_v2_shape_with_its_spelling,
    one_scenario_through_v1_and_v2_stores_the_same_transaction,
);

async fn a_successful_v1_collection_has_the_exact_v1_shape(app: TestApp) {
    let token = app.sandbox_token().await;
    let a = post(
        &app,
        &token,
        "/v1/collecte/mobile-money",
        &collect_v1("order-1", "0701020301", "ALPHA_MONEY_CI", "1500.00"),
    )
    .await;
    assert_eq!(a.status, StatusCode::OK);
    let d = &a.body["data"];
    let reference = d["ref"].as_str().unwrap();
    assert_eq!(reference.len(), 10);
    assert!(reference.bytes().all(|b| b.is_ascii_uppercase() || b.is_ascii_digit()));
    assert_eq!(
        a.body,
        json!({"statusCode": 200, "message": "Successful", "data": {
            "ref": reference, "transactionId": "order-1", "currency": "XOF",
            "amount": "1500", "fees": "30", "amountReceive": "1470", "amountTotal": "1500",
            "phone": "0701020301", "status": "SUCCESSFUL", "typeTransaction": "collecte",
            "operator": "ALPHA_MONEY_CI", "createdAt": d["createdAt"],
            "customer": {"id": d["customer"]["id"], "lastName": "Koné", "firstName": "Awa", "email": "awa@example.ci",
                         "phoneNumber": "0701020301", "address": {"countryCode": "CI", "city": "Abidjan", "streetAddress": null},
                         "createdAt": d["customer"]["createdAt"]}
        }})
    );
    let keys: Vec<&str> = a.body["data"].as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(keys.len(), 13);
    // A BETA collection adds its launch URL.
    let a = post(
        &app,
        &token,
        "/v1/collecte/mobile-money",
        &collect_v1("order-2", "0701020301", "BETA_MONEY_CI", "1000"),
    )
    .await;
    assert_eq!(a.status, StatusCode::ACCEPTED);
    let reference = a.body["data"]["ref"].as_str().unwrap();
    let url = a.body["data"]["betaLaunchUrl"].as_str().unwrap();
    assert!(url.starts_with("http://gateway.test/checkout/"), "{url}");
    assert!(
        !url.contains(reference),
        "the page is keyed by a token, not the reference: {url}"
    );
    assert_eq!(a.body["data"]["fees"], "15", "BETA collections cost 150 bp");
    app.assert_ledger().await;
}

async fn a_successful_v2_collection_has_the_exact_v2_shape_with_its_spelling(app: TestApp) {
    let token = app.sandbox_token().await;
    let a = post(
        &app,
        &token,
        "/v2/collecte/mobile-money",
        &collect_v2("v2-shape", json!(701020301), "DELTA_MONEY_CI", json!(1500.0)),
    )
    .await;
    assert_eq!(a.status, StatusCode::OK, "{}", a.body);
    let d = &a.body["data"];
    let reference = d["ref"].as_str().unwrap();
    let date = d["date"].as_str().unwrap();
    assert_eq!(date.len(), 19, "YYYY-MM-DD HH:MM:SS: {date}");
    assert_eq!(
        a.body,
        json!({"code_status": 200, "status": "SUCCESS", "message": "PAYMENT_IS_SUCCESSFULL", "data": {
            "linkpayment_id": null, "ref": reference, "operator_id": reference, "transaction_id": "v2-shape",
            "cardId": null, "number_user": "0701020301", "name_user": "Awa Koné", "email_user": null,
            "country_user": "CI", "currency": "XOF", "amount": "1500", "fees": "30", "amount_receive": "1470",
            "amount_total": "1500", "status": "SUCCESSFULL", "type_transaction": "collecte",
            "type_payment": "DELTA_MONEY_CI", "date": date, "date_update": null
        }})
    );
    // Everywhere else success is spelled SUCCESSFUL.
    let s = answer(app.get("/v2/get-status-payment/v2-shape").bearer_auth(&token)).await;
    assert_eq!(s.body["data"]["status"], "SUCCESSFUL");
    assert_eq!(s.body["message"], "PAYMENT_IS_SUCCESSFUL");
    assert_eq!(
        s.body["data"]["date_update"],
        Value::Null,
        "final at creation: date_update stays null"
    );
    app.assert_ledger().await;
}

async fn one_scenario_through_v1_and_v2_stores_the_same_transaction(app: TestApp) {
    let token = app.sandbox_token().await;
    let v1 = post(
        &app,
        &token,
        "/v1/transfer/mobile-money",
        &transfer_v1("p1", "0701020302", "BETA_MONEY_CI", "2500"),
    )
    .await;
    let mut v2_body = transfer_v2("p2", json!("0701020302"), "BETA_CI", json!(2500));
    v2_body["name"] = json!("Awa Koné");
    let v2 = post(&app, &token, "/v2/transfers/mobile-money", &v2_body).await;
    assert_eq!((v1.status, v2.status), (StatusCode::ACCEPTED, StatusCode::ACCEPTED));
    let tenant = app.sandbox_tenant();
    let a = app
        .gateway
        .payments
        .transaction(&tenant, &TransactionRef::from("p1"))
        .await
        .unwrap();
    let b = app
        .gateway
        .payments
        .transaction(&tenant, &TransactionRef::from("p2"))
        .await
        .unwrap();
    let (a, b) = (a.transaction, b.transaction);
    assert_eq!(
        (
            a.kind(),
            a.operator,
            &a.phone,
            a.amounts,
            a.status,
            &a.customer_id,
            &a.name
        ),
        (
            b.kind(),
            b.operator,
            &b.phone,
            b.amounts,
            b.status,
            &b.customer_id,
            &b.name
        ),
        "the same domain state, whichever generation created it"
    );
    app.assert_ledger().await;
}
