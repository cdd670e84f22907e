//! Balances and fees: transfers reserve their total then settle or release it, a transfer
//! beyond the available balance is 412, configured fees replace the defaults.

use momo_gateway::config::Config;
use reqwest::StatusCode;
use serde_json::json;

use crate::support::helpers::{answer, TestApp};
use crate::support::requests::{collect_v1, post, transfer_v1, transfer_v2};
use momo_test_support::both_backends;

both_backends!(TestApp::spawn => transfers_reserve_then_settle_or_release_the_balance);
both_backends!(TestApp::spawn_with(a_sandbox_of_1500) => a_transfer_beyond_the_available_balance_is_412_in_both_generations);
both_backends!(TestApp::spawn_with(alpha_collections_at_300_bp_plus_10) => configured_fees_replace_the_defaults);

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

fn alpha_collections_at_300_bp_plus_10(c: &mut Config) {
    use momo_gateway::domain::fees::FeeRule;
    use momo_gateway::domain::{Kind, OperatorCode};
    c.fee_overrides = vec![(
        OperatorCode::Alpha,
        Kind::Collection,
        FeeRule {
            basis_points: 300,
            fixed: momo_gateway::domain::Francs(10),
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
