//! `/v1/payment-links` and `/v2/payment-links`: a link made, read, listed and deactivated in
//! each dialect, and every bad request answered in its envelope with nothing made.

use reqwest::StatusCode;
use serde_json::{json, Value};

use crate::support::helpers::{answer, Answer, TestApp};
use crate::support::requests::post;
use momo_test_support::both_backends;

both_backends!(
    TestApp::spawn =>
    a_link_is_made_read_listed_and_deactivated_in_either_dialect,
    bad_links_are_refused_in_the_envelope_and_nothing_is_made,
);

async fn get(app: &TestApp, token: &str, path: &str) -> Answer {
    answer(app.get(path).bearer_auth(token)).await
}

async fn a_link_is_made_read_listed_and_deactivated_in_either_dialect(app: TestApp) {
    let token = app.sandbox_token().await;
    let made = post(
        &app,
        &token,
        "/v1/payment-links",
        &json!({"amount": "5000", "description": "Robe wax, taille M", "successUrl": "https://shop.example.ci/merci"}),
    )
    .await;
    assert_eq!(made.status, StatusCode::OK, "{}", made.body);
    let link = &made.body["data"];
    let id = link["id"].as_str().unwrap().to_owned();
    assert!(id.starts_with("lnk_") && id.len() == 26, "{id}");
    assert_eq!(
        link["url"],
        format!("{}/pay/{id}", app.gateway.config().public_url.trim_end_matches('/'))
    );
    assert_eq!(
        (
            &link["active"],
            &link["amount"],
            &link["minAmount"],
            &link["reusable"],
            &link["maxPayments"]
        ),
        (&json!(true), &json!("5000"), &Value::Null, &json!(false), &json!(1)),
        "paid once unless reusable: {link}"
    );
    assert_eq!(
        link["operators"],
        json!(["ALPHA_MONEY_CI", "BETA_MONEY_CI", "GAMMA_MONEY_CI", "DELTA_MONEY_CI"]),
        "every operator unless named"
    );
    assert_eq!(
        (&link["payments"], &link["collected"]),
        (&json!({"successful": 0, "pending": 0}), &json!("0"))
    );
    let read = get(&app, &token, &format!("/v1/payment-links/{id}")).await;
    assert_eq!((read.status, &read.body["data"]), (StatusCode::OK, link));

    let open = post(
        &app,
        &token,
        "/v2/payment-links",
        &json!({"min_amount": 1000, "max_amount": "20000", "description": "Don libre", "reusable": true,
                "max_payments": 50, "operators": ["BETA_CI", "GAMMA_MONEY_CI"], "expires_at": "2099-01-01T00:00:00Z"}),
    )
    .await;
    assert_eq!(open.status, StatusCode::OK, "{}", open.body);
    assert_eq!(open.body["message"], "PAYMENT_LINK_CREATED");
    let v2 = &open.body["data"];
    assert_eq!(
        (
            &v2["amount"],
            &v2["min_amount"],
            &v2["max_amount"],
            &v2["max_payments"],
            &v2["operators"]
        ),
        (
            &Value::Null,
            &json!("1000"),
            &json!("20000"),
            &json!(50),
            &json!(["BETA_CI", "GAMMA_MONEY_CI"])
        ),
        "{v2}"
    );
    assert_eq!(v2["expires_at"], "2099-01-01 00:00:00");
    assert_eq!(
        (&v2["payments_successful"], &v2["payments_pending"]),
        (&json!(0), &json!(0))
    );
    let open_id = v2["id"].as_str().unwrap().to_owned();

    let listed = get(&app, &token, "/v1/payment-links").await;
    let ids: Vec<&str> = listed.body["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, [open_id.as_str(), id.as_str()], "newest first");
    let first = get(&app, &token, "/v2/payment-links?limit=1").await;
    assert_eq!(first.body["data"].as_array().unwrap().len(), 1);
    assert!(first.headers.contains_key("x-next-cursor"), "a next page");

    let off = post(&app, &token, &format!("/v2/payment-links/{id}/deactivate"), &json!({})).await;
    assert_eq!(
        (off.status, &off.body["data"]["active"]),
        (StatusCode::OK, &json!(false)),
        "{}",
        off.body
    );
    let again = post(&app, &token, &format!("/v1/payment-links/{id}/deactivate"), &json!({})).await;
    assert_eq!(
        (again.status, &again.body["data"]["active"]),
        (StatusCode::OK, &json!(false))
    );
}

async fn bad_links_are_refused_in_the_envelope_and_nothing_is_made(app: TestApp) {
    let token = app.sandbox_token().await;
    let refused = [
        (
            json!({"amount": "5000", "minAmount": "100", "description": "x"}),
            "amount",
        ),
        (
            json!({"minAmount": "5000", "maxAmount": "1000", "description": "x"}),
            "minAmount",
        ),
        (json!({"amount": "5000"}), "description"),
        (json!({"amount": "5000", "description": "  "}), "description"),
        (json!({"amount": "5000.5", "description": "x"}), "amount"),
        (json!({"amount": "-5", "description": "x"}), "amount"),
        (
            json!({"amount": "5000", "description": "x", "maxPayments": 3}),
            "maxPayments",
        ),
        (
            json!({"amount": "5000", "description": "x", "reusable": true, "maxPayments": 0}),
            "maxPayments",
        ),
        (
            json!({"amount": "5000", "description": "x", "expiresAt": "demain"}),
            "expiresAt",
        ),
        (
            json!({"amount": "5000", "description": "x", "expiresAt": "2001-01-01T00:00:00Z"}),
            "expiresAt: the expiry",
        ),
        (
            json!({"amount": "5000", "description": "x", "operators": ["OMEGA"]}),
            "operators[0]",
        ),
        (
            json!({"amount": "5000", "description": "x", "successUrl": "javascript:alert(1)"}),
            "successUrl",
        ),
    ];
    for (body, named) in refused {
        let a = post(&app, &token, "/v1/payment-links", &body).await;
        // Well formed but impossible (bounds the wrong way round, an expiry past): 422.
        let impossible = ["minAmount", "expiresAt: the expiry"].contains(&named);
        let expected = if impossible {
            StatusCode::UNPROCESSABLE_ENTITY
        } else {
            StatusCode::BAD_REQUEST
        };
        assert_eq!(a.status, expected, "{body}: {}", a.body);
        assert!(
            a.body["reason"].as_str().unwrap_or_default().contains(named),
            "{body} names {named}: {}",
            a.body
        );
    }
    let v2 = post(
        &app,
        &token,
        "/v2/payment-links",
        &json!({"amount": 5000, "description": "x", "max_payments": 3}),
    )
    .await;
    assert_eq!(v2.status, StatusCode::BAD_REQUEST, "{}", v2.body);
    assert!(
        v2.body["message"].is_string() && v2.body["reason"].as_str().unwrap_or_default().contains("max_payments"),
        "{}",
        v2.body
    );
    let listed = get(&app, &token, "/v1/payment-links").await;
    assert_eq!(listed.body["data"], json!([]), "nothing was made");

    let long = "x".repeat(10_000);
    for path in [
        format!("/v1/payment-links/{long}"),
        "/v2/payment-links/lnk_0000000000000000000000".to_owned(),
    ] {
        let a = get(&app, &token, &path).await;
        assert_eq!(a.status, StatusCode::NOT_FOUND, "{}", a.body);
    }
    let made = post(
        &app,
        &token,
        "/v1/payment-links",
        &json!({"amount": "5000", "description": "x"}),
    )
    .await;
    let id = made.body["data"]["id"].as_str().unwrap().to_owned();
    let production = app.token(&app.merchant.production.clone()).await;
    let foreign = get(&app, &production, &format!("/v1/payment-links/{id}")).await;
    assert_eq!(
        foreign.status,
        StatusCode::NOT_FOUND,
        "another environment's: {}",
        foreign.body
    );
    let off = post(
        &app,
        &production,
        &format!("/v2/payment-links/{id}/deactivate"),
        &json!({}),
    )
    .await;
    assert_eq!(off.status, StatusCode::NOT_FOUND, "{}", off.body);
}
