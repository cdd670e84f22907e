//! The recipient check is no name directory: a merchant's lookups stop at its daily quota
//! (429 with Retry-After, counted by the database under concurrency), the holder's name comes
//! back masked, or as match / no match when the merchant names the holder, every lookup is
//! listed for the merchant with the number as a keyed hash only, and Production asks it only
//! once switched on.

use futures_util::stream::{self, StreamExt};
use reqwest::StatusCode;
use serde_json::{json, Value};

use crate::support::helpers::{answer, production_simulated, Answer, TestApp};
use momo_test_support::both_backends;

both_backends!(
    TestApp::spawn_with(fifty_a_day) =>
    five_hundred_lookups_stop_at_the_quota_each_masked_and_listed,
    a_name_given_to_confirm_is_answered_match_or_no_match_without_the_name,
);

both_backends!(
    TestApp::spawn_with(production_simulated) =>
    production_asks_the_check_only_once_switched_on,
);

const QUOTA: usize = 50;

fn fifty_a_day(c: &mut momo_gateway::config::Config) {
    c.payouts.recipient_checks_per_day = QUOTA as u32;
}

/// The `i`-th number looked up.
fn number(i: usize) -> String {
    format!("07{:08}", 10_000_000 + i * 10 + 1)
}

async fn holder(app: &TestApp, token: &str, path: &str) -> Answer {
    answer(app.get(path).bearer_auth(token)).await
}

async fn five_hundred_lookups_stop_at_the_quota_each_masked_and_listed(app: TestApp) {
    let token = app.sandbox_token().await;
    let answers: Vec<Answer> = stream::iter(0..500)
        .map(|i| {
            let (app, token) = (&app, &token);
            async move {
                let path = format!("/v1/account-holders/GAMMA_MONEY_CI/{}", number(i));
                holder(app, token, &path).await
            }
        })
        .buffer_unordered(16)
        .collect()
        .await;
    let passed: Vec<&Answer> = answers.iter().filter(|a| a.status == StatusCode::OK).collect();
    let refused: Vec<&Answer> = answers
        .iter()
        .filter(|a| a.status == StatusCode::TOO_MANY_REQUESTS)
        .collect();
    assert_eq!(
        (passed.len(), refused.len()),
        (QUOTA, 500 - QUOTA),
        "the quota, exactly"
    );
    for a in &passed {
        let name = a.body["data"]["name"].as_str().unwrap();
        assert!(
            name.ends_with("***") && name.chars().nth(1) == Some('.'),
            "masked: {name}"
        );
    }
    let r = refused[0];
    assert_eq!(r.body["message"], "TooManyRequestsError");
    assert!(
        r.body["reason"]
            .as_str()
            .unwrap()
            .contains("daily quota of 50 recipient checks"),
        "{}",
        r.body
    );
    let wait: u64 = r.header("retry-after").unwrap().parse().unwrap();
    assert!((1..=86_400).contains(&wait), "until midnight UTC: {wait}");

    let listed = holder(&app, &token, "/v1/account-holders/lookups").await;
    assert_eq!(listed.status, StatusCode::OK, "{}", listed.body);
    let lookups = listed.body["data"].as_array().unwrap();
    assert_eq!(lookups.len(), QUOTA, "each lookup made is listed, none refused");
    let hashes: std::collections::HashSet<&str> = lookups.iter().map(|l| l["phoneHash"].as_str().unwrap()).collect();
    assert_eq!(hashes.len(), QUOTA, "one hash per number");
    let numbers: Vec<String> = (0..500).map(number).collect();
    for l in lookups {
        let hash = l["phoneHash"].as_str().unwrap();
        assert!(
            hash.len() == 64
                && hash.bytes().all(|b| b.is_ascii_hexdigit())
                && !numbers.iter().any(|n| hash.contains(n.as_str())),
            "a keyed hash, not the number: {l}"
        );
        assert_eq!(
            (&l["operator"], &l["status"]),
            (&json!("GAMMA_MONEY_CI"), &json!("active"))
        );
    }
    let v2 = holder(&app, &token, "/v2/account-holders/lookups?limit=2").await;
    assert_eq!(v2.body["data"].as_array().unwrap().len(), 2, "{}", v2.body);
    assert!(v2.body["data"][0]["phone_hash"].is_string(), "{}", v2.body);
    assert!(v2.header("x-next-cursor").is_some());

    // Another merchant has its own quota and sees none of these.
    let other = app.new_merchant("Other").await;
    let other = app.token(&other.sandbox).await;
    let theirs = holder(&app, &other, "/v1/account-holders/GAMMA_MONEY_CI/0701020301").await;
    assert_eq!(theirs.status, StatusCode::OK, "{}", theirs.body);
    let their_list = holder(&app, &other, "/v1/account-holders/lookups").await;
    assert_eq!(their_list.body["data"].as_array().unwrap().len(), 1);
}

async fn a_name_given_to_confirm_is_answered_match_or_no_match_without_the_name(app: TestApp) {
    let token = app.sandbox_token().await;
    let base = "/v1/account-holders/GAMMA_MONEY_CI/0701020301";
    let matched = holder(&app, &token, &format!("{base}?name=yao%20KOFFI")).await;
    assert_eq!(matched.status, StatusCode::OK, "{}", matched.body);
    assert_eq!(
        matched.body["data"],
        json!({"operator": "GAMMA_MONEY_CI", "phone": "0701020301", "status": "active", "name": null, "nameMatch": true})
    );
    let other = holder(&app, &token, &format!("{base}?name=Awa%20Kon%C3%A9")).await;
    assert_eq!(other.body["data"]["nameMatch"], false, "{}", other.body);
    assert_eq!(other.body["data"]["name"], Value::Null);
    let v2 = holder(
        &app,
        &token,
        "/v2/account-holders/GAMMA_MONEY_CI/0701020301?name_user=Koffi%20Yao",
    )
    .await;
    assert_eq!(
        (&v2.body["data"]["name_match"], &v2.body["data"]["name_user"]),
        (&json!(true), &Value::Null),
        "{}",
        v2.body
    );
    let control = holder(&app, &token, &format!("{base}?name=%1B")).await;
    assert_eq!(control.status, StatusCode::BAD_REQUEST, "{}", control.body);
    let listed = holder(&app, &token, "/v1/account-holders/lookups").await;
    // Two lookups may share a millisecond, so their order is not asserted.
    let mut matches: Vec<bool> = listed.body["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["nameMatch"].as_bool().unwrap())
        .collect();
    matches.sort();
    assert_eq!(matches, [false, true, true], "each check's answer recorded");
}

async fn production_asks_the_check_only_once_switched_on(app: TestApp) {
    let token = app.token(&app.merchant.production.clone()).await;
    let path = "/v1/account-holders/GAMMA_MONEY_CI/0701020301";
    let off = holder(&app, &token, path).await;
    assert_eq!(off.status, StatusCode::FORBIDDEN, "{}", off.body);
    assert_eq!(off.body["message"], "ForbiddenError");
    assert!(
        off.body["reason"]
            .as_str()
            .unwrap()
            .contains("merchant recipient-check --on"),
        "says how to switch it on: {}",
        off.body
    );
    let v2 = holder(&app, &token, "/v2/account-holders/GAMMA_MONEY_CI/0701020301").await;
    assert_eq!(v2.body["message"], "RECIPIENT_CHECK_NOT_ALLOWED", "{}", v2.body);
    let listed = holder(&app, &token, "/v1/account-holders/lookups").await;
    assert_eq!(
        listed.body["data"],
        json!([]),
        "a refused check asks nothing, records nothing"
    );

    let mut tenant = app.sandbox_tenant();
    tenant.environment = momo_gateway::domain::Environment::Production;
    app.gateway.recipients.set_allowed(&tenant, true).await.unwrap();
    let on = holder(&app, &token, path).await;
    assert_eq!(on.status, StatusCode::OK, "{}", on.body);
    assert_eq!(on.body["data"]["name"], "K. Ya***");
    app.gateway.recipients.set_allowed(&tenant, false).await.unwrap();
    assert_eq!(holder(&app, &token, path).await.status, StatusCode::FORBIDDEN);
}
