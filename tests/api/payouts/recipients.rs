//! The recipient check through the simulator (the Sandbox table: `09` holds no account), in
//! both dialects, and a transfer that asks to be checked first: an inactive account refuses it
//! with 422 before anything is recorded or reserved.

use reqwest::StatusCode;
use serde_json::{json, Value};

use crate::support::helpers::{answer, Answer, TestApp};
use crate::support::requests::{post, transfer_v1, transfer_v2};
use momo_test_support::both_backends;

both_backends!(
    TestApp::spawn =>
    a_number_is_checked_in_either_dialect,
    a_checked_transfer_to_a_number_without_an_account_is_refused_before_anything_is_written,
);

async fn holder(app: &TestApp, token: &str, path: &str) -> Answer {
    answer(app.get(path).bearer_auth(token)).await
}

async fn a_number_is_checked_in_either_dialect(app: TestApp) {
    let token = app.sandbox_token().await;
    let active = holder(&app, &token, "/v1/account-holders/GAMMA_MONEY_CI/0701020301").await;
    assert_eq!(active.status, StatusCode::OK, "{}", active.body);
    assert_eq!(
        active.body["data"],
        json!({"operator": "GAMMA_MONEY_CI", "phone": "0701020301", "status": "active", "name": "K. Ya***"})
    );
    let none = holder(&app, &token, "/v2/account-holders/BETA_CI/0701020309").await;
    assert_eq!(none.status, StatusCode::OK, "{}", none.body);
    assert_eq!(
        (&none.body["message"], &none.body["data"]),
        (
            &json!("ACCOUNT_HOLDER_FOUND"),
            &json!({"operator": "BETA_CI", "number_user": "0701020309", "status": "inactive", "name_user": null})
        )
    );
    for (path, status) in [
        ("/v1/account-holders/GAMMA_MONEY_CI/12345", StatusCode::BAD_REQUEST),
        ("/v1/account-holders/OMEGA/0701020301", StatusCode::BAD_REQUEST),
        ("/v2/account-holders/GAMMA_MONEY_CI/abc", StatusCode::BAD_REQUEST),
    ] {
        let a = holder(&app, &token, path).await;
        assert_eq!(a.status, status, "{path}: {}", a.body);
    }
}

async fn balance(app: &TestApp, token: &str) -> Value {
    answer(app.get("/v1/balance").bearer_auth(token)).await.body["data"].clone()
}

async fn a_checked_transfer_to_a_number_without_an_account_is_refused_before_anything_is_written(app: TestApp) {
    let token = app.sandbox_token().await;
    let before = balance(&app, &token).await;
    let mut v1 = transfer_v1("checked-1", "0701020309", "GAMMA_MONEY_CI", "1000");
    v1["checkRecipient"] = json!(true);
    let refused = post(&app, &token, "/v1/transfer/mobile-money", &v1).await;
    assert_eq!(refused.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", refused.body);
    assert_eq!(refused.body["message"], "UnprocessableEntityError");
    // The number is masked in what the gateway says, as in its logs.
    assert!(
        refused.body["reason"]
            .as_str()
            .unwrap()
            .contains("09 holds no active account"),
        "{}",
        refused.body
    );
    let mut v2 = transfer_v2("checked-2", json!("0701020309"), "GAMMA_MONEY_CI", json!(1000));
    v2["check_recipient"] = json!(true);
    let refused = post(&app, &token, "/v2/transfers/mobile-money", &v2).await;
    assert_eq!(
        (refused.status, &refused.body["message"]),
        (StatusCode::UNPROCESSABLE_ENTITY, &json!("RECIPIENT_ACCOUNT_INACTIVE")),
        "{}",
        refused.body
    );
    assert_eq!(balance(&app, &token).await, before, "nothing reserved");
    let listed = answer(app.get("/v1/transactions").bearer_auth(&token)).await;
    assert_eq!(listed.body["data"], json!([]), "nothing recorded");
    // The id is not spent: the same transfer to an active number goes through.
    let mut ok = transfer_v1("checked-1", "0701020301", "GAMMA_MONEY_CI", "1000");
    ok["checkRecipient"] = json!(true);
    let paid = post(&app, &token, "/v1/transfer/mobile-money", &ok).await;
    assert_eq!(
        (paid.status, &paid.body["data"]["status"]),
        (StatusCode::OK, &json!("SUCCESSFUL")),
        "{}",
        paid.body
    );
    // Unchecked, a transfer to a number without an account fails at the operator.
    let unchecked = post(
        &app,
        &token,
        "/v1/transfer/mobile-money",
        &transfer_v1("unchecked", "0701020309", "GAMMA_MONEY_CI", "1000"),
    )
    .await;
    assert_eq!(unchecked.body["data"]["status"], "FAILED", "{}", unchecked.body);
    app.assert_ledger().await;
}
