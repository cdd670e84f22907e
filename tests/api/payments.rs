//! Collections and transfers through both generations: every simulator row, duplicates,
//! balances, and the answers' exact shapes.

use momo_gateway::config::Config;
use reqwest::StatusCode;
use serde_json::{json, Value};

use crate::both_backends;
use crate::helpers::{answer, Answer, TestApp};
use crate::requests::{collect_v1, collect_v2, post, transfer_v1, transfer_v2};

both_backends!(
    TestApp::spawn =>
    v1_collections_follow_the_simulator_table,
    v1_transfers_follow_the_simulator_table,
    v2_collections_in_both_shapes_follow_the_simulator_table,
    v2_transfers_and_the_shared_transfers_path,
    a_successful_v1_collection_has_the_exact_v1_shape,
    a_successful_v2_collection_has_the_exact_v2_shape_with_its_spelling,
    a_reused_transaction_id_is_refused_with_the_existing_transaction,
    twenty_concurrent_duplicates_create_one_transaction,
    a_request_refused_before_creation_does_not_spend_its_id,
    transfers_reserve_then_settle_or_release_the_balance,
    alpha_refuses_the_one_time_code_0000,
    one_scenario_through_v1_and_v2_stores_the_same_transaction,
);

async fn v1_collections_follow_the_simulator_table(app: TestApp) {
    let token = app.sandbox_token().await;
    let rows = [
        ("01", StatusCode::OK, "SUCCESSFUL"),
        ("02", StatusCode::ACCEPTED, "PENDING"),
        ("03", StatusCode::ACCEPTED, "PENDING"),
        ("04", StatusCode::GATEWAY_TIMEOUT, "FAILED"),
        ("05", StatusCode::ACCEPTED, "PENDING"),
        ("06", StatusCode::ACCEPTED, "PENDING"),
        ("47", StatusCode::ACCEPTED, "PENDING"),
    ];
    for operator in ["ALPHA_MONEY_CI", "GAMMA_MONEY_CI", "DELTA_MONEY_CI"] {
        for (ending, code, status) in rows {
            let id = format!("c-{operator}-{ending}");
            let a = post(
                &app,
                &token,
                "/v1/collecte/mobile-money",
                &collect_v1(&id, &format!("07010203{ending}"), operator, "1500"),
            )
            .await;
            assert_eq!(a.status, code, "{operator} {ending}: {}", a.body);
            let data = &a.body["data"];
            assert_eq!(data["status"], status, "{operator} {ending}");
            assert_eq!(data["transactionId"], id.as_str());
            if code == StatusCode::GATEWAY_TIMEOUT {
                assert_eq!(a.body["message"], "GatewayTimeoutError");
                assert_eq!(a.body["statusCode"], 504);
            } else {
                assert_eq!(a.body["message"], "Successful");
                assert_eq!(a.body["statusCode"], code.as_u16());
            }
        }
    }
    app.assert_ledger().await;
}

async fn v1_transfers_follow_the_simulator_table(app: TestApp) {
    let token = app.sandbox_token().await;
    let rows = [
        ("01", StatusCode::OK, "SUCCESSFUL"),
        ("02", StatusCode::ACCEPTED, "PENDING"),
        ("03", StatusCode::ACCEPTED, "PENDING"),
        ("04", StatusCode::GATEWAY_TIMEOUT, "FAILED"),
        ("05", StatusCode::ACCEPTED, "PENDING"),
        ("06", StatusCode::ACCEPTED, "PENDING"),
        ("47", StatusCode::OK, "SUCCESSFUL"),
    ];
    for (path, operator) in [
        ("/v1/transfer/mobile-money", "BETA_MONEY_CI"),
        ("/v1/transfers/mobile-money", "GAMMA_MONEY_CI"),
    ] {
        for (ending, code, status) in rows {
            let id = format!("t-{operator}-{ending}");
            let a = post(
                &app,
                &token,
                path,
                &transfer_v1(&id, &format!("05010203{ending}"), operator, "1000"),
            )
            .await;
            assert_eq!(a.status, code, "{path} {ending}: {}", a.body);
            assert_eq!(a.body["data"]["status"], status);
            assert_eq!(a.body["data"]["typeTransaction"], "transfer");
            assert!(
                a.body.get("statusCode").is_some(),
                "v1 envelope on {path} for a v1 body"
            );
        }
    }
    app.assert_ledger().await;
}

async fn v2_collections_in_both_shapes_follow_the_simulator_table(app: TestApp) {
    let token = app.sandbox_token().await;
    let rows = [
        ("01", StatusCode::OK, "PAYMENT_IS_SUCCESSFULL", "SUCCESSFULL"),
        ("02", StatusCode::ACCEPTED, "PAYMENT_IS_PENDING", "PENDING"),
        ("03", StatusCode::ACCEPTED, "PAYMENT_IS_PENDING", "PENDING"),
        (
            "04",
            StatusCode::GATEWAY_TIMEOUT,
            "PAYMENT_FAILED_TRY_AGAINST",
            "FAILED",
        ),
        ("05", StatusCode::ACCEPTED, "PAYMENT_IS_PENDING", "PENDING"),
        ("06", StatusCode::ACCEPTED, "PAYMENT_IS_PENDING", "PENDING"),
        ("47", StatusCode::ACCEPTED, "PAYMENT_IS_PENDING", "PENDING"),
    ];
    for (ending, code, message, status) in rows {
        let phone = format!("07010203{ending}");
        let a = post(
            &app,
            &token,
            "/v2/collecte/mobile-money",
            &collect_v2(&format!("a{ending}"), json!(phone), "GAMMA_MONEY_CI", json!(2000)),
        )
        .await;
        assert_eq!(
            (a.status, a.body["message"].as_str().unwrap()),
            (code, message),
            "shape A {ending}: {}",
            a.body
        );
        assert_eq!(a.body["data"]["status"], status);
        assert_eq!(a.body["code_status"], code.as_u16());
        assert_eq!(a.body["status"], if code.is_success() { "SUCCESS" } else { "ERROR" });

        let b = json!({"transactionId": format!("b{ending}"), "codeCountry": "CI", "operator": "DELTA_MONEY_CI",
                       "customer": {"phone": phone, "name": "Awa Koné", "email": "awa@example.ci"},
                       "amount": 2000, "currency": "XOF"});
        let a = post(&app, &token, "/v2/collecte/mobile-money", &b).await;
        assert_eq!(
            (a.status, a.body["message"].as_str().unwrap()),
            (code, message),
            "shape B {ending}: {}",
            a.body
        );
        assert_eq!(a.body["data"]["email_user"], "awa@example.ci");
    }
    // BETA collections wait for the payer with a launch URL (04 fails at once).
    let a = post(
        &app,
        &token,
        "/v2/collecte/mobile-money",
        &collect_v2("beta01", json!("0701020301"), "BETA_CI", json!(2000)),
    )
    .await;
    assert_eq!(a.status, StatusCode::ACCEPTED, "{}", a.body);
    let reference = a.body["data"]["ref"].as_str().unwrap();
    assert_eq!(
        a.body["data"]["redirectUrl"],
        format!("http://gateway.test/checkout/{reference}")
    );
    let a = post(
        &app,
        &token,
        "/v2/collecte/mobile-money",
        &collect_v2("beta04", json!("0701020304"), "BETA_CI", json!(2000)),
    )
    .await;
    assert_eq!(a.status, StatusCode::GATEWAY_TIMEOUT);
    app.assert_ledger().await;
}

async fn v2_transfers_and_the_shared_transfers_path(app: TestApp) {
    let token = app.sandbox_token().await;
    for (path, id) in [
        ("/v2/transfers/mobile-money", "v2-01"),
        ("/v1/transfers/mobile-money", "v1path-01"),
    ] {
        let a = post(
            &app,
            &token,
            path,
            &transfer_v2(id, json!("0701020301"), "BETA_CI", json!(1000)),
        )
        .await;
        assert_eq!(a.status, StatusCode::OK, "{path}: {}", a.body);
        assert_eq!(a.body["message"], "PAYMENT_IS_SUCCESSFUL");
        assert_eq!(
            a.body["data"]["status"], "SUCCESSFUL",
            "transfers are spelled SUCCESSFUL"
        );
        assert_eq!(a.body["data"]["type_transaction"], "transfert");
        assert_eq!(a.body["code_status"], 200, "a v2 body gets the v2 envelope on {path}");
    }
    let a = post(
        &app,
        &token,
        "/v2/transfers/mobile-money",
        &transfer_v2("v2-04", json!(701020304), "GAMMA_MONEY", json!(1000)),
    )
    .await;
    assert_eq!(a.status, StatusCode::GATEWAY_TIMEOUT);
    assert_eq!(a.body["message"], "PAYMENT_FAILED_TRY_AGAINST");
    assert_eq!(a.body["data"]["status"], "FAILED");
    assert_eq!(
        a.body["data"]["number_user"], "0701020304",
        "an integer number is echoed normalized"
    );
    assert_eq!(a.body["data"]["type_payment"], "GAMMA_MONEY_CI");
    let a = post(
        &app,
        &token,
        "/v2/transfers/mobile-money",
        &transfer_v2(
            "v2-02",
            json!("+225 07 01 02 03 02"),
            "DELTA_MONEY_CI",
            json!("1500.00"),
        ),
    )
    .await;
    assert_eq!(a.status, StatusCode::ACCEPTED, "{}", a.body);
    assert_eq!(a.body["message"], "PAYMENT_IS_PENDING");
    assert_eq!(
        a.body["data"]["number_user"], "+225 07 01 02 03 02",
        "a string number is echoed as sent"
    );
    app.assert_ledger().await;
}

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
    assert_eq!(
        a.body["data"]["betaLaunchUrl"],
        format!("http://gateway.test/checkout/{reference}")
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

async fn a_reused_transaction_id_is_refused_with_the_existing_transaction(app: TestApp) {
    let token = app.sandbox_token().await;
    let first = post(
        &app,
        &token,
        "/v1/collecte/mobile-money",
        &collect_v1("dup-1", "0701020302", "ALPHA_MONEY_CI", "1500"),
    )
    .await;
    assert_eq!(first.status, StatusCode::ACCEPTED);
    // Same id, other amount and phone, other kind, other generation: all refused with the first.
    let again = post(
        &app,
        &token,
        "/v1/collecte/mobile-money",
        &collect_v1("dup-1", "0701020301", "ALPHA_MONEY_CI", "9000"),
    )
    .await;
    assert_eq!(again.status, StatusCode::CONFLICT);
    assert_eq!(again.body["message"], "ConflictError");
    assert_eq!(again.body["data"], first.body["data"]);
    let v1_transfer = post(
        &app,
        &token,
        "/v1/transfer/mobile-money",
        &transfer_v1("dup-1", "0701020301", "GAMMA_MONEY_CI", "1000"),
    )
    .await;
    assert_eq!(v1_transfer.status, StatusCode::CONFLICT);
    let v2 = post(
        &app,
        &token,
        "/v2/collecte/mobile-money",
        &collect_v2("dup-1", json!("0701020301"), "GAMMA_MONEY_CI", json!(1000)),
    )
    .await;
    assert_eq!(v2.status, StatusCode::CONFLICT);
    assert_eq!(v2.body["message"], "TRANSACTION_DUPLICATED");
    assert_eq!(v2.body["data"]["ref"], first.body["data"]["ref"]);
    assert_eq!(v2.body["data"]["status"], "PENDING");
    // Another merchant may use the same id.
    let other = app.new_merchant("Other").await;
    let other_token = app.token(&other.sandbox).await;
    let a = post(
        &app,
        &other_token,
        "/v1/collecte/mobile-money",
        &collect_v1("dup-1", "0701020301", "ALPHA_MONEY_CI", "1500"),
    )
    .await;
    assert_eq!(a.status, StatusCode::OK);
    let list = answer(app.get("/v1/transactions").bearer_auth(&token)).await;
    assert_eq!(
        list.body["data"].as_array().unwrap().len(),
        1,
        "no operator call, nothing written"
    );
    app.assert_ledger().await;
}

async fn twenty_concurrent_duplicates_create_one_transaction(app: TestApp) {
    let token = app.sandbox_token().await;
    let requests = (0..20).map(|i| {
        let body = if i % 2 == 0 {
            transfer_v1("same-id", "0701020301", "GAMMA_MONEY_CI", "1000")
        } else {
            collect_v1("same-id", "0701020301", "ALPHA_MONEY_CI", "1000")
        };
        let request = app
            .post(if i % 2 == 0 {
                "/v1/transfer/mobile-money"
            } else {
                "/v1/collecte/mobile-money"
            })
            .bearer_auth(&token)
            .json(&body);
        async move { answer(request).await }
    });
    let answers = futures_join_all(requests).await;
    let created: Vec<&Answer> = answers.iter().filter(|a| a.status.is_success()).collect();
    let conflicts = answers.iter().filter(|a| a.status == StatusCode::CONFLICT).count();
    assert_eq!(created.len(), 1, "exactly one creation");
    assert_eq!(conflicts, 19, "every other request is a duplicate");
    for a in answers.iter().filter(|a| a.status == StatusCode::CONFLICT) {
        assert_eq!(a.body["data"]["ref"], created[0].body["data"]["ref"]);
    }
    let list = answer(app.get("/v1/transactions").bearer_auth(&token)).await;
    assert_eq!(list.body["data"].as_array().unwrap().len(), 1);
    app.assert_ledger().await;
}

/// Runs futures concurrently on the test's runtime.
async fn futures_join_all<F: std::future::Future<Output = Answer> + Send + 'static>(
    futures: impl Iterator<Item = F>,
) -> Vec<Answer> {
    let handles: Vec<_> = futures.map(tokio::spawn).collect();
    let mut out = Vec::new();
    for h in handles {
        out.push(h.await.expect("request task"));
    }
    out
}

async fn a_request_refused_before_creation_does_not_spend_its_id(app: TestApp) {
    let token = app.sandbox_token().await;
    let a = post(
        &app,
        &token,
        "/v1/collecte/mobile-money",
        &collect_v1("keep-me", "0701020301", "ALPHA_MONEY_CI", "99"),
    )
    .await;
    assert_eq!(a.status, StatusCode::FORBIDDEN);
    assert_eq!(a.body["message"], "ForbiddenError");
    let production = app.token(&app.merchant.production.clone()).await;
    let a = post(
        &app,
        &production,
        "/v2/transfers/mobile-money",
        &transfer_v2("keep-me", json!("0701020301"), "BETA_CI", json!(1000)),
    )
    .await;
    assert_eq!(
        a.status,
        StatusCode::PRECONDITION_FAILED,
        "Production starts empty: {}",
        a.body
    );
    let a = post(
        &app,
        &token,
        "/v1/collecte/mobile-money",
        &collect_v1("keep-me", "0701020301", "ALPHA_MONEY_CI", "100"),
    )
    .await;
    assert_eq!(a.status, StatusCode::OK, "the id was not spent: {}", a.body);
    // A payment failed at once does spend its id.
    let a = post(
        &app,
        &token,
        "/v1/collecte/mobile-money",
        &collect_v1("failed", "0701020304", "ALPHA_MONEY_CI", "100"),
    )
    .await;
    assert_eq!(a.status, StatusCode::GATEWAY_TIMEOUT);
    let a = post(
        &app,
        &token,
        "/v1/collecte/mobile-money",
        &collect_v1("failed", "0701020301", "ALPHA_MONEY_CI", "100"),
    )
    .await;
    assert_eq!(a.status, StatusCode::CONFLICT);
    assert_eq!(a.body["data"]["status"], "FAILED");
    app.assert_ledger().await;
}

async fn balance(app: &TestApp, token: &str) -> (i64, i64) {
    let b = answer(app.get("/v1/balance").bearer_auth(token)).await;
    assert_eq!(b.status, StatusCode::OK);
    assert_eq!(b.body["data"]["currency"], "XOF");
    assert_eq!(b.body["data"]["amount"], b.body["data"]["available"]);
    let n = |k: &str| b.body["data"][k].as_str().unwrap().parse::<i64>().unwrap();
    (n("available"), n("reserved"))
}

async fn transfers_reserve_then_settle_or_release_the_balance(app: TestApp) {
    let token = app.sandbox_token().await;
    assert_eq!(
        balance(&app, &token).await,
        (10_000_000, 0),
        "the Sandbox starts credited"
    );
    let a = post(
        &app,
        &token,
        "/v1/transfer/mobile-money",
        &transfer_v1("r1", "0701020301", "BETA_MONEY_CI", "1000"),
    )
    .await;
    assert_eq!(a.body["data"]["amountTotal"], "1015");
    assert_eq!(
        balance(&app, &token).await,
        (10_000_000 - 1015, 0),
        "success settles the reservation"
    );
    post(
        &app,
        &token,
        "/v1/transfer/mobile-money",
        &transfer_v1("r2", "0701020302", "GAMMA_MONEY_CI", "2000"),
    )
    .await;
    assert_eq!(
        balance(&app, &token).await,
        (10_000_000 - 1015 - 2020, 2020),
        "a pending transfer holds its total"
    );
    post(
        &app,
        &token,
        "/v1/transfer/mobile-money",
        &transfer_v1("r3", "0701020304", "GAMMA_MONEY_CI", "3000"),
    )
    .await;
    assert_eq!(
        balance(&app, &token).await,
        (10_000_000 - 1015 - 2020, 2020),
        "an immediate failure releases it"
    );
    post(
        &app,
        &token,
        "/v1/collecte/mobile-money",
        &collect_v1("c1", "0701020301", "ALPHA_MONEY_CI", "1500"),
    )
    .await;
    assert_eq!(
        balance(&app, &token).await,
        (10_000_000 - 1015 - 2020 + 1470, 2020),
        "a collection credits amountReceive"
    );
    app.assert_ledger().await;
}

both_backends!(TestApp::spawn_with(a_sandbox_of_1500) => a_transfer_beyond_the_available_balance_is_412_in_both_generations);

fn a_sandbox_of_1500(c: &mut Config) {
    c.sandbox_initial_balance = 1_500;
}

async fn a_transfer_beyond_the_available_balance_is_412_in_both_generations(app: TestApp) {
    let token = app.sandbox_token().await;
    let a = post(
        &app,
        &token,
        "/v1/transfer/mobile-money",
        &transfer_v1("big", "0701020301", "GAMMA_MONEY_CI", "1500"),
    )
    .await;
    assert_eq!(a.status, StatusCode::PRECONDITION_FAILED, "1500 + 15 fees > 1500");
    assert_eq!(a.body["message"], "PreconditionFailedError");
    let a = post(
        &app,
        &token,
        "/v2/transfers/mobile-money",
        &transfer_v2("big", json!("0701020301"), "GAMMA_MONEY_CI", json!(1500)),
    )
    .await;
    assert_eq!(a.status, StatusCode::PRECONDITION_FAILED);
    assert_eq!(a.body["message"], "AMOUNT_INSUFFISANT");
    assert_eq!(balance(&app, &token).await, (1_500, 0));
    let a = post(
        &app,
        &token,
        "/v2/transfers/mobile-money",
        &transfer_v2("fits", json!("0701020301"), "GAMMA_MONEY_CI", json!(1485)),
    )
    .await;
    assert_eq!(a.status, StatusCode::OK, "1485 + 15 = 1500 fits exactly: {}", a.body);
    assert_eq!(balance(&app, &token).await, (0, 0));
    app.assert_ledger().await;
}

async fn alpha_refuses_the_one_time_code_0000(app: TestApp) {
    let token = app.sandbox_token().await;
    let mut body = collect_v1("otp", "0701020301", "ALPHA_MONEY_CI", "1000");
    body["otpCode"] = json!("0000");
    let a = post(&app, &token, "/v1/collecte/mobile-money", &body).await;
    assert_eq!(a.status, StatusCode::GATEWAY_TIMEOUT);
    body["transactionId"] = json!("otp-ok");
    body["otpCode"] = json!("1234");
    assert_eq!(
        post(&app, &token, "/v1/collecte/mobile-money", &body).await.status,
        StatusCode::OK
    );
    let mut v2 = collect_v2("otp2", json!("0701020301"), "ALPHA_MONEY_CI", json!(1000));
    v2["code_otp"] = json!("0000");
    assert_eq!(
        post(&app, &token, "/v2/collecte/mobile-money", &v2).await.status,
        StatusCode::GATEWAY_TIMEOUT
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
    let a = app.gateway.transaction(&tenant, "p1").await.unwrap();
    let b = app.gateway.transaction(&tenant, "p2").await.unwrap();
    let (a, b) = (a.transaction, b.transaction);
    assert_eq!(
        (
            a.kind,
            a.operator,
            &a.phone,
            a.amounts,
            a.status,
            &a.customer_id,
            &a.name
        ),
        (
            b.kind,
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

both_backends!(TestApp::spawn_with(alpha_collections_at_300_bp_plus_10) => configured_fees_replace_the_defaults);

fn alpha_collections_at_300_bp_plus_10(c: &mut Config) {
    use momo_gateway::domain::fees::FeeRule;
    use momo_gateway::domain::{Kind, OperatorCode};
    c.fee_overrides = vec![(
        OperatorCode::Alpha,
        Kind::Collection,
        FeeRule {
            basis_points: 300,
            fixed: 10,
        },
    )];
}

async fn configured_fees_replace_the_defaults(app: TestApp) {
    let token = app.sandbox_token().await;
    let a = post(
        &app,
        &token,
        "/v1/collecte/mobile-money",
        &collect_v1("fee", "0701020301", "ALPHA_MONEY_CI", "1000"),
    )
    .await;
    assert_eq!(
        (
            a.body["data"]["fees"].as_str(),
            a.body["data"]["amountReceive"].as_str()
        ),
        (Some("40"), Some("960"))
    );
    let a = post(
        &app,
        &token,
        "/v1/transfer/mobile-money",
        &transfer_v1("fee-t", "0701020301", "ALPHA_MONEY_CI", "1000"),
    )
    .await;
    assert_eq!(a.body["data"]["fees"], "10", "other rules keep their defaults");
    app.assert_ledger().await;
}
