//! The recipient check through the operators' protocols, at the emulator over HTTP: the MoMo
//! Open API says whether a number is active and whose it is; Wave cannot tell ("unknown", and a
//! checked transfer goes on); an operator that does not answer the check refuses the checked
//! transfer with 503 before anything is recorded or sent.

use reqwest::StatusCode;
use serde_json::json;

use crate::support::helpers::answer;
use crate::support::operator_faults::{Faulted, MomoTransfer, WaveTransfer};
use crate::support::requests::{post, transfer_v1};
use momo_test_support::both_backends;

both_backends!(
    Faulted::spawn =>
    momo_says_whether_a_number_is_active_and_whose_it_is,
    a_check_the_operator_cannot_answer_refuses_the_checked_transfer,
    an_operator_refusing_a_flood_of_checks_leaves_its_payments_flowing,
);

async fn momo_says_whether_a_number_is_active_and_whose_it_is(f: Faulted) {
    let gamma = MomoTransfer.operator().name();
    let active = answer(
        f.app
            .get(&format!("/v1/account-holders/{gamma}_MONEY_CI/0701020302"))
            .bearer_auth(&f.token),
    )
    .await;
    assert_eq!(
        (
            active.status,
            &active.body["data"]["status"],
            &active.body["data"]["name"]
        ),
        (StatusCode::OK, &json!("active"), &json!("A. Tr***")),
        "{}",
        active.body
    );
    let none = answer(
        f.app
            .get(&format!("/v2/account-holders/{gamma}_MONEY_CI/0701020309"))
            .bearer_auth(&f.token),
    )
    .await;
    assert_eq!(none.body["data"]["status"], "inactive", "{}", none.body);
    let mut checked = transfer_v1("mt-checked", "0701020309", &format!("{gamma}_MONEY_CI"), "1000");
    checked["checkRecipient"] = json!(true);
    let refused = post(&f.app, &f.token, "/v1/transfer/mobile-money", &checked).await;
    assert_eq!(refused.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", refused.body);
    let made = f.emulator_get("payments").await;
    assert_eq!(made, json!([]), "nothing sent to the operator");

    let delta = WaveTransfer.operator().name();
    let wave = answer(
        f.app
            .get(&format!("/v1/account-holders/{delta}_MONEY_CI/0701020301"))
            .bearer_auth(&f.token),
    )
    .await;
    assert_eq!(
        (&wave.body["data"]["status"], &wave.body["data"]["name"]),
        (&json!("unknown"), &json!(null))
    );
    let mut checked = transfer_v1("wt-checked", "0701020301", &format!("{delta}_MONEY_CI"), "1000");
    checked["checkRecipient"] = json!(true);
    let paid = post(&f.app, &f.token, "/v1/transfer/mobile-money", &checked).await;
    assert!(
        paid.status.is_success(),
        "Wave cannot tell: the transfer goes on: {}",
        paid.body
    );
    f.drain().await;
    f.assert_invariants("recipient checks").await;
}

async fn a_check_the_operator_cannot_answer_refuses_the_checked_transfer(f: Faulted) {
    let gamma = MomoTransfer.operator().name();
    f.fault("momo.accountholder.active", "status=503", 2).await;
    let down = answer(
        f.app
            .get(&format!("/v1/account-holders/{gamma}_MONEY_CI/0701020301"))
            .bearer_auth(&f.token),
    )
    .await;
    assert_eq!(down.status, StatusCode::SERVICE_UNAVAILABLE, "{}", down.body);
    let mut checked = transfer_v1("mt-down", "0701020301", &format!("{gamma}_MONEY_CI"), "1000");
    checked["checkRecipient"] = json!(true);
    let refused = post(&f.app, &f.token, "/v1/transfer/mobile-money", &checked).await;
    assert_eq!(refused.status, StatusCode::SERVICE_UNAVAILABLE, "{}", refused.body);
    assert_eq!(f.emulator_get("payments").await, json!([]), "nothing sent");
    assert_eq!(f.reserved().await, "0", "nothing reserved");
    // Answering again: the check passes and the transfer is made.
    let paid = post(&f.app, &f.token, "/v1/transfer/mobile-money", &checked).await;
    assert!(paid.status.is_success(), "{}", paid.body);
    f.drain().await;
    f.assert_invariants("a check the operator could not answer").await;
}

/// An operator that answers a flood of recipient checks with 429: each check is refused, but
/// the operator answered, so its breaker stays closed and a payment right after goes through.
async fn an_operator_refusing_a_flood_of_checks_leaves_its_payments_flowing(f: Faulted) {
    let gamma = MomoTransfer.operator().name();
    let failures = f.app.gateway.config().breaker.failures;
    f.fault("momo.accountholder.active", "status=429", failures * 3).await;
    for i in 0..failures * 3 {
        let refused = answer(
            f.app
                .get(&format!("/v1/account-holders/{gamma}_MONEY_CI/07010203{:02}", i % 100))
                .bearer_auth(&f.token),
        )
        .await;
        assert_eq!(refused.status, StatusCode::SERVICE_UNAVAILABLE, "{}", refused.body);
    }
    let metrics = f.app.get("/metrics").send().await.unwrap().text().await.unwrap();
    let breaker: Vec<&str> = metrics
        .lines()
        .filter(|l| l.starts_with("momo_operator_breaker_state") && l.contains(gamma))
        .collect();
    assert!(
        !breaker.is_empty() && breaker.iter().all(|l| l.ends_with(" 0")),
        "the breaker is known and closed (0): {breaker:?}"
    );
    let paid = post(
        &f.app,
        &f.token,
        "/v1/transfer/mobile-money",
        &transfer_v1("mt-after-flood", "0701020301", &format!("{gamma}_MONEY_CI"), "1000"),
    )
    .await;
    assert!(paid.status.is_success(), "{}", paid.body);
    f.drain().await;
    f.assert_invariants("a flood of checks refused by the operator").await;
}
