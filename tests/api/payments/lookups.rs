//! Status lookups on every path, transaction lists with filters and paging.

use reqwest::StatusCode;
use serde_json::{json, Value};

use crate::support::helpers::{answer, TestApp};
use crate::support::requests::{collect_v1, collect_v2, post, transfer_v1};
use momo_test_support::both_backends;

both_backends!(
    TestApp::spawn =>
    status_is_found_by_id_or_ref_on_every_path_in_the_v2_envelope,
    unknown_ids_are_404_in_the_envelope_of_the_path,
    transactions_are_listed_newest_first_with_filters_and_paging,
    another_tenant_never_sees_a_transaction,
);

async fn status_is_found_by_id_or_ref_on_every_path_in_the_v2_envelope(app: TestApp) {
    let token = app.sandbox_token().await;
    let created = post(
        &app,
        &token,
        "/v1/collecte/mobile-money",
        &collect_v1("look-1", "0701020302", "GAMMA_MONEY_CI", "1000"),
    )
    .await;
    let reference = created.body["data"]["ref"].as_str().unwrap().to_owned();
    for path in ["/v2/get-status-payment/", "/v1/get-status-payment/", "/v1/transaction/"] {
        for id in ["look-1", reference.as_str()] {
            let a = answer(app.get(&format!("{path}{id}")).bearer_auth(&token)).await;
            assert_eq!(a.status, StatusCode::OK, "{path}{id}");
            assert_eq!(a.body["code_status"], 200, "v2 envelope on {path}");
            assert_eq!(a.body["status"], "SUCCESS");
            assert_eq!(a.body["message"], "PAYMENT_IS_PENDING");
            assert_eq!(a.body["data"]["transaction_id"], "look-1");
            assert_eq!(a.body["data"]["ref"], reference.as_str());
            assert_eq!(
                a.body["data"]["redirectUrl"],
                Value::Null,
                "present, null for a non-BETA payment"
            );
            assert_eq!(a.body["data"]["type_payment"], "GAMMA_MONEY_CI");
        }
    }
    let failed = post(
        &app,
        &token,
        "/v2/collecte/mobile-money",
        &collect_v2("look-2", json!("0701020304"), "BETA_CI", json!(1000)),
    )
    .await;
    assert_eq!(failed.status, StatusCode::GATEWAY_TIMEOUT);
    let a = answer(app.get("/v2/get-status-payment/look-2").bearer_auth(&token)).await;
    assert_eq!(a.body["message"], "PAYMENT_FAILED");
    assert_eq!(a.body["data"]["status"], "FAILED");
    assert!(a.body["data"]["redirectUrl"].as_str().unwrap().contains("/checkout/"));
    app.assert_ledger().await;
}

async fn unknown_ids_are_404_in_the_envelope_of_the_path(app: TestApp) {
    let token = app.sandbox_token().await;
    for id in ["nope", "%FF", "ABCDEFGHIJ"] {
        let a = answer(app.get(&format!("/v2/get-status-payment/{id}")).bearer_auth(&token)).await;
        assert_eq!(a.status, StatusCode::NOT_FOUND);
        assert_eq!(a.body["message"], "TRANSACTION_NOT_FOUND");
        for path in ["/v1/get-status-payment/", "/v1/transaction/"] {
            let a = answer(app.get(&format!("{path}{id}")).bearer_auth(&token)).await;
            assert_eq!(a.status, StatusCode::NOT_FOUND);
            assert_eq!(a.body["message"], "NotFoundError");
            assert_eq!(a.body["statusCode"], 404);
        }
    }
    app.assert_ledger().await;
}

async fn transactions_are_listed_newest_first_with_filters_and_paging(app: TestApp) {
    let token = app.sandbox_token().await;
    post(
        &app,
        &token,
        "/v1/collecte/mobile-money",
        &collect_v1("l1", "0701020301", "ALPHA_MONEY_CI", "1000"),
    )
    .await;
    post(
        &app,
        &token,
        "/v1/collecte/mobile-money",
        &collect_v1("l2", "0701020302", "GAMMA_MONEY_CI", "1000"),
    )
    .await;
    post(
        &app,
        &token,
        "/v1/transfer/mobile-money",
        &transfer_v1("l3", "0701020301", "BETA_MONEY_CI", "1000"),
    )
    .await;
    post(
        &app,
        &token,
        "/v1/transfer/mobile-money",
        &transfer_v1("l4", "0501020304", "DELTA_MONEY_CI", "1000"),
    )
    .await;
    let ids = |body: &Value| -> Vec<String> {
        body["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["transactionId"].as_str().unwrap().to_owned())
            .collect()
    };
    for path in ["/v1/transactions", "/v1/get-all-transactions"] {
        let all = answer(app.get(path).bearer_auth(&token)).await;
        assert_eq!(all.status, StatusCode::OK);
        let mut listed = ids(&all.body);
        listed.sort();
        assert_eq!(listed, ["l1", "l2", "l3", "l4"]);
        let times: Vec<String> = all.body["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["createdAt"].as_str().unwrap().to_owned())
            .collect();
        assert!(times.windows(2).all(|w| w[0] >= w[1]), "newest first: {times:?}");
        assert!(
            all.body["data"][0]["customer"]["phoneNumber"].is_string(),
            "each transaction embeds its customer"
        );
    }
    let filtered = |query: &str| {
        let request = app.get(&format!("/v1/transactions?{query}")).bearer_auth(&token);
        async move { answer(request).await }
    };
    let set = |body: &Value| {
        let mut v = ids(body);
        v.sort();
        v
    };
    assert_eq!(set(&filtered("type=collecte").await.body), ["l1", "l2"]);
    assert_eq!(set(&filtered("type=transfer").await.body), ["l3", "l4"]);
    assert_eq!(set(&filtered("status=SUCCESSFUL").await.body), ["l1", "l3"]);
    assert_eq!(set(&filtered("status=FAILED").await.body), ["l4"]);
    assert_eq!(set(&filtered("operator=BETA_CI").await.body), ["l3"]);
    assert_eq!(set(&filtered("phone=%2B2250701020301").await.body), ["l1", "l3"]);
    assert_eq!(
        set(&filtered("from=2000-01-01T00:00:00Z&to=2100-01-01T00:00:00Z").await.body).len(),
        4
    );
    assert_eq!(set(&filtered("to=2000-01-01T00:00:00Z").await.body).len(), 0);
    let mut seen = Vec::new();
    let mut query = "limit=3".to_owned();
    loop {
        let page = filtered(&query).await;
        seen.extend(ids(&page.body));
        match page.header("x-next-cursor") {
            Some(cursor) => query = format!("limit=3&cursor={cursor}"),
            None => break,
        }
    }
    assert_eq!(seen.len(), 4, "paging visits every transaction once: {seen:?}");
    for bad in [
        "status=DONE",
        "type=payout",
        "operator=OMEGA",
        "phone=12",
        "from=yesterday",
        "limit=0",
        "cursor=%21",
    ] {
        let a = filtered(bad).await;
        assert_eq!(a.status, StatusCode::BAD_REQUEST, "{bad}");
        assert_eq!(a.body["message"], "BadRequestError");
    }
    app.assert_ledger().await;
}

async fn another_tenant_never_sees_a_transaction(app: TestApp) {
    let token = app.sandbox_token().await;
    let created = post(
        &app,
        &token,
        "/v1/collecte/mobile-money",
        &collect_v1("mine", "0701020301", "ALPHA_MONEY_CI", "1000"),
    )
    .await;
    let reference = created.body["data"]["ref"].as_str().unwrap().to_owned();
    let other = app.new_merchant("Other").await;
    let other_token = app.token(&other.sandbox).await;
    let production = app.token(&app.merchant.production.clone()).await;
    for token in [&other_token, &production] {
        for id in ["mine", reference.as_str()] {
            let a = answer(app.get(&format!("/v2/get-status-payment/{id}")).bearer_auth(token)).await;
            assert_eq!(a.status, StatusCode::NOT_FOUND);
        }
        let list = answer(app.get("/v1/transactions").bearer_auth(token)).await;
        assert_eq!(list.body["data"], json!([]));
    }
    app.assert_ledger().await;
}
