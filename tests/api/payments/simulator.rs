//! The simulator's table through both generations: what each phone ending answers for v1 and
//! v2 collections and transfers on every path, and ALPHA's refused one-time code.

use reqwest::StatusCode;
use serde_json::json;

use crate::support::helpers::TestApp;
use crate::support::requests::{collect_v1, collect_v2, post, transfer_v1, transfer_v2};
use momo_test_support::both_backends;

both_backends!(
    TestApp::spawn =>
    v1_collections_follow_the_simulator_table,
    v1_transfers_follow_the_simulator_table,
    v2_collections_in_both_shapes_follow_the_simulator_table,
    v2_transfers_and_the_shared_transfers_path,
    alpha_refuses_the_one_time_code_0000,
    the_payers_page_escapes_what_the_merchant_named_itself,
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
    let url = a.body["data"]["redirectUrl"].as_str().unwrap();
    assert!(url.starts_with("http://gateway.test/checkout/"), "{url}");
    assert!(
        !url.contains(reference),
        "the page is keyed by a token, not the reference: {url}"
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

/// The payer's page shows the merchant's name, which the merchant chose: it is text, never
/// markup (the page is written with maud, which escapes every value).
async fn the_payers_page_escapes_what_the_merchant_named_itself(app: TestApp) {
    let hostile = app.new_merchant("<script>alert(1)</script> & \"Co\"").await;
    let token = app.token(&hostile.sandbox).await;
    let a = post(
        &app,
        &token,
        "/v1/collecte/mobile-money",
        &collect_v1("page-1", "0701020301", "BETA_MONEY_CI", "1500"),
    )
    .await;
    assert_eq!(a.status, StatusCode::ACCEPTED, "{}", a.body);
    let url = a.body["data"]["betaLaunchUrl"].as_str().unwrap();
    let path = &url[url.find("/checkout/").unwrap()..];
    let page = app.get(path).send().await.unwrap();
    assert_eq!(page.status(), StatusCode::OK);
    assert!(page.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/html"));
    let html = page.text().await.unwrap();
    assert!(
        html.contains("&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;Co&quot;"),
        "{html}"
    );
    assert!(!html.contains("<script>"), "{html}");
    assert!(
        html.contains("1500 XOF") && html.contains(&format!("action=\"{path}/approve\"")),
        "{html}"
    );
}
