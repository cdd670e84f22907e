//! After creation: simulated callbacks, the reconciler, collection expiry, the BETA launch
//! page, transfers needing review. Time is driven through `run_once(now)`; nothing waits for it to pass.

use momo_gateway::domain::{Reference, Status, Timestamp, TransactionRef};
use momo_gateway::reconcile::{callbacks, expiry, reconciler, review};
use reqwest::StatusCode;
use serde_json::{json, Value};

use crate::support::helpers::{answer, later, TestApp};
use crate::support::requests::{collect_v1, collect_v2, post, transfer_v1};
use momo_test_support::both_backends;

both_backends!(
    TestApp::spawn =>
    pending_payments_resolve_as_the_simulator_table_says,
    final_states_never_change,
    the_beta_page_lets_the_payer_approve_or_decline,
    stuck_transfers_are_listed_and_resolved_by_hand_with_an_audit,
    the_reconciler_backs_off_instead_of_asking_every_pass,
);

async fn the_reconciler_backs_off_instead_of_asking_every_pass(app: TestApp) {
    let token = app.sandbox_token().await;
    post(
        &app,
        &token,
        "/v1/collecte/mobile-money",
        &collect_v1("slow06", "0701020306", "GAMMA_MONEY_CI", "1000"),
    )
    .await;
    let g = &app.gateway;
    let start = Timestamp::now().millis();
    let at = |ms: i64| Timestamp(start + ms);
    assert_eq!(
        reconciler::run_once(&g.payments, at(31_000)).await.unwrap().examined,
        1,
        "old enough: asked once"
    );
    assert_eq!(
        reconciler::run_once(&g.payments, at(36_000)).await.unwrap().examined,
        0,
        "not again at the next pass"
    );
    assert_eq!(
        reconciler::run_once(&g.payments, at(61_500)).await.unwrap().examined,
        1,
        "again after the reconcile delay"
    );
    assert_eq!(
        reconciler::run_once(&g.payments, at(601_000)).await.unwrap().examined,
        1
    );
    assert_eq!(
        reconciler::run_once(&g.payments, at(700_000)).await.unwrap().examined,
        0,
        "ten minutes old: every five minutes"
    );
    assert_eq!(status_of(&app, &token, "slow06").await["status"], "PENDING");
    // Backed off to 901.5 s, but a collection's check never comes after its expiry (900 s):
    // the last check is on time, and settles it once.
    let report = expiry::run_once(&g.payments, at(900_500)).await.unwrap();
    assert_eq!((report.examined, report.settled), (1, 1), "expired at its lifetime");
    assert_eq!(status_of(&app, &token, "slow06").await["status"], "FAILED");
    assert_eq!(
        reconciler::run_once(&g.payments, at(900_500)).await.unwrap().examined,
        0
    );
    app.assert_ledger().await;
}

async fn status_of(app: &TestApp, token: &str, id: &str) -> Value {
    let a = answer(app.get(&format!("/v2/get-status-payment/{id}")).bearer_auth(token)).await;
    assert_eq!(a.status, StatusCode::OK, "{id}: {}", a.body);
    a.body["data"].clone()
}

async fn pending_payments_resolve_as_the_simulator_table_says(app: TestApp) {
    let token = app.sandbox_token().await;
    for ending in ["02", "03", "05", "06", "47"] {
        let a = post(
            &app,
            &token,
            "/v1/collecte/mobile-money",
            &collect_v1(
                &format!("c{ending}"),
                &format!("07010203{ending}"),
                "GAMMA_MONEY_CI",
                "1000",
            ),
        )
        .await;
        assert_eq!(a.status, StatusCode::ACCEPTED);
        let a = post(
            &app,
            &token,
            "/v1/transfer/mobile-money",
            &transfer_v1(
                &format!("t{ending}"),
                &format!("07010203{ending}"),
                "DELTA_MONEY_CI",
                "1000",
            ),
        )
        .await;
        assert_eq!(
            a.status,
            if ending == "47" {
                StatusCode::OK
            } else {
                StatusCode::ACCEPTED
            },
            "transfer {ending}"
        );
    }
    let g = &app.gateway;
    // Before the delay nothing moves.
    let report = callbacks::run_once(&g.payments, later(0)).await.unwrap();
    assert_eq!(report.settled, 0);
    // After the delay (2 s by default) the operator calls back for 02, 03 and other endings.
    let report = callbacks::run_once(&g.payments, later(2_500)).await.unwrap();
    assert_eq!(report.settled, 5, "c02 c03 c47 t02 t03");
    for (id, status) in [
        ("c02", "SUCCESSFUL"),
        ("c03", "FAILED"),
        ("c47", "SUCCESSFUL"),
        ("t02", "SUCCESSFUL"),
        ("t03", "FAILED"),
    ] {
        let data = status_of(&app, &token, id).await;
        assert_eq!(data["status"], status, "{id}");
        assert!(
            data["date_update"].as_str().unwrap().contains('/'),
            "DD/MM/YYYY once changed"
        );
    }
    for id in ["c05", "c06", "t05", "t06"] {
        assert_eq!(
            status_of(&app, &token, id).await["status"],
            "PENDING",
            "{id} has no callback"
        );
    }
    // The reconciler asks after MOMO_RECONCILE_AFTER_MS: 05 is SUCCESSFUL when asked, 06 stays.
    assert_eq!(
        reconciler::run_once(&g.payments, later(1_000)).await.unwrap().settled,
        0,
        "too young to ask"
    );
    let report = reconciler::run_once(&g.payments, later(31_000)).await.unwrap();
    assert_eq!(report.settled, 2, "c05 and t05");
    assert_eq!(status_of(&app, &token, "c05").await["status"], "SUCCESSFUL");
    assert_eq!(status_of(&app, &token, "t05").await["status"], "SUCCESSFUL");
    // Expiry: the 06 collection fails with cause EXPIRED after the TTL; the 06 transfer never expires.
    assert_eq!(expiry::run_once(&g.payments, later(60_000)).await.unwrap().settled, 0);
    assert_eq!(expiry::run_once(&g.payments, later(901_000)).await.unwrap().settled, 1);
    assert_eq!(status_of(&app, &token, "c06").await["status"], "FAILED");
    assert_eq!(status_of(&app, &token, "t06").await["status"], "PENDING");
    let tenant = app.sandbox_tenant();
    let expired = app
        .gateway
        .payments
        .transaction(&tenant, &TransactionRef::from("c06"))
        .await
        .unwrap();
    assert_eq!(
        expired.transaction.failure_code,
        Some(momo_gateway::domain::FailureCode::Expired)
    );
    app.assert_ledger().await;
}

async fn final_states_never_change(app: TestApp) {
    let token = app.sandbox_token().await;
    post(
        &app,
        &token,
        "/v1/collecte/mobile-money",
        &collect_v1("f03", "0701020303", "GAMMA_MONEY_CI", "1000"),
    )
    .await;
    assert_eq!(
        callbacks::run_once(&app.gateway.payments, later(2_500))
            .await
            .unwrap()
            .settled,
        1
    );
    // A late callback, a reconciler pass and expiry find nothing to change.
    assert_eq!(
        callbacks::run_once(&app.gateway.payments, later(5_000))
            .await
            .unwrap()
            .settled,
        0
    );
    assert_eq!(
        reconciler::run_once(&app.gateway.payments, later(60_000))
            .await
            .unwrap()
            .settled,
        0
    );
    assert_eq!(
        expiry::run_once(&app.gateway.payments, later(2_000_000))
            .await
            .unwrap()
            .settled,
        0
    );
    assert_eq!(status_of(&app, &token, "f03").await["status"], "FAILED");
    let data = status_of(&app, &token, "f03").await;
    let reference = data["ref"].as_str().unwrap();
    let err = review::resolve(
        &app.gateway.payments,
        &Reference::from(reference),
        Status::Successful,
        "operator says paid",
        Timestamp::now(),
    )
    .await
    .unwrap_err();
    assert!(err.to_string().contains("final states never change"), "{err}");
    assert_eq!(status_of(&app, &token, "f03").await["status"], "FAILED");
    app.assert_ledger().await;
}

/// The path of a launch URL (`http://gateway.test/checkout/TOKEN` → `/checkout/TOKEN`).
fn launch_path(url: &Value) -> String {
    let url = url.as_str().expect("a launch URL");
    let path = url.strip_prefix("http://gateway.test").expect("under the public URL");
    assert!(
        path.starts_with("/checkout/") && path.len() == "/checkout/".len() + 32,
        "{url}"
    );
    path.to_owned()
}

async fn the_beta_page_lets_the_payer_approve_or_decline(app: TestApp) {
    let token = app.sandbox_token().await;
    let no_redirects = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let mut body = collect_v1("beta-ok", "0701020307", "BETA_MONEY_CI", "5000");
    body["successUrl"] = json!("https://shop.example.ci/merci?order=42");
    body["errorUrl"] = json!("https://shop.example.ci/echec");
    let a = post(&app, &token, "/v1/collecte/mobile-money", &body).await;
    assert_eq!(a.status, StatusCode::ACCEPTED);
    let page_path = launch_path(&a.body["data"]["betaLaunchUrl"]);
    let page = no_redirects.get(app.url(&page_path)).send().await.unwrap();
    assert_eq!(page.status(), StatusCode::OK);
    assert!(page.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/html"));
    let html = page.text().await.unwrap();
    assert!(
        html.contains("Test merchant")
            && html.contains("5000 XOF")
            && html.contains("approve")
            && html.contains("decline"),
        "{html}"
    );
    let approved = no_redirects
        .post(app.url(&format!("{page_path}/approve")))
        .send()
        .await
        .unwrap();
    assert_eq!(approved.status(), StatusCode::SEE_OTHER);
    assert_eq!(approved.headers()["location"], "https://shop.example.ci/merci?order=42");
    assert_eq!(
        status_of(&app, &token, "beta-ok").await["status"],
        "SUCCESSFUL",
        "settled before the redirect"
    );

    let mut body = collect_v1("beta-no", "0701020308", "BETA_MONEY_CI", "5000");
    body["errorUrl"] = json!("https://shop.example.ci/echec");
    let a = post(&app, &token, "/v1/collecte/mobile-money", &body).await;
    let page_path = launch_path(&a.body["data"]["betaLaunchUrl"]);
    let declined = no_redirects
        .post(app.url(&format!("{page_path}/decline")))
        .send()
        .await
        .unwrap();
    assert_eq!(declined.status(), StatusCode::SEE_OTHER);
    assert_eq!(declined.headers()["location"], "https://shop.example.ci/echec");
    assert_eq!(status_of(&app, &token, "beta-no").await["status"], "FAILED");
    // A second click changes nothing.
    let again = no_redirects
        .post(app.url(&format!("{page_path}/approve")))
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), StatusCode::SEE_OTHER);
    assert_eq!(again.headers()["location"], "https://shop.example.ci/echec");
    assert_eq!(status_of(&app, &token, "beta-no").await["status"], "FAILED");

    // Without return URLs the payer sees the result; 03 declines by itself after the delay.
    let a = post(
        &app,
        &token,
        "/v2/collecte/mobile-money",
        &collect_v2("beta-03", json!("0701020303"), "BETA_CI", json!(1000)),
    )
    .await;
    let page_path = launch_path(&a.body["data"]["redirectUrl"]);
    assert_eq!(
        callbacks::run_once(&app.gateway.payments, later(2_500))
            .await
            .unwrap()
            .settled,
        1,
        "only the 03 BETA collection"
    );
    assert_eq!(status_of(&app, &token, "beta-03").await["status"], "FAILED");
    let shown = no_redirects
        .post(app.url(&format!("{page_path}/approve")))
        .send()
        .await
        .unwrap();
    assert_eq!(shown.status(), StatusCode::OK);
    assert!(shown.text().await.unwrap().contains("declined"));
    let missing = answer(app.get("/checkout/NOSUCHREF0")).await;
    assert_eq!(missing.status, StatusCode::NOT_FOUND);
    // The reference alone opens nothing: the page is keyed by its unguessable token.
    let reference = a.body["data"]["ref"].as_str().unwrap();
    let by_reference = answer(app.post(&format!("/checkout/{reference}/approve"))).await;
    assert_eq!(by_reference.status, StatusCode::NOT_FOUND);
    app.assert_ledger().await;
}

async fn stuck_transfers_are_listed_and_resolved_by_hand_with_an_audit(app: TestApp) {
    let token = app.sandbox_token().await;
    let a = post(
        &app,
        &token,
        "/v1/transfer/mobile-money",
        &transfer_v1("stuck", "0701020306", "GAMMA_MONEY_CI", "1000"),
    )
    .await;
    let reference = a.body["data"]["ref"].as_str().unwrap().to_owned();
    assert!(
        review::stuck_transfers(&app.gateway.payments, later(0))
            .await
            .unwrap()
            .is_empty(),
        "not stuck yet"
    );
    let stuck = review::stuck_transfers(&app.gateway.payments, later(901_000))
        .await
        .unwrap();
    assert_eq!(stuck.len(), 1);
    assert_eq!(stuck[0].transaction.reference, reference);
    let settled = review::resolve(
        &app.gateway.payments,
        &Reference::from(reference.as_str()),
        Status::Failed,
        "operator ticket 123: never sent",
        Timestamp::now(),
    )
    .await
    .unwrap();
    assert_eq!(settled.transaction.status, Status::Failed);
    assert!(review::stuck_transfers(&app.gateway.payments, later(901_000))
        .await
        .unwrap()
        .is_empty());
    let b = answer(app.get("/v1/balance").bearer_auth(&token)).await;
    assert_eq!(b.body["data"]["reserved"], "0", "the reservation was released");
    assert_eq!(b.body["data"]["available"], "10000000");
    app.assert_ledger().await;
}
