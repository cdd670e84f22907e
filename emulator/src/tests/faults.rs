//! Each fault, through the header and through the rules, and the admin API's forced settlement.

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::momo::reference;
use super::wave::{signed_by, SECRET};
use super::{answer, past_the_delay, start};

#[tokio::test]
async fn latency_delays_the_answer() {
    let h = start(|_| {}).await;
    let momo = h.momo("collection").await;
    let started = Instant::now();
    let (status, _) = momo.status_with(&reference(), Some("latency=60ms")).await;
    assert_eq!(status, 404);
    assert!(started.elapsed() >= Duration::from_millis(60));
}

#[tokio::test]
async fn an_injected_5xx_executes_nothing() {
    let h = start(|_| {}).await;
    let momo = h.momo("collection").await;
    let r = reference();
    let (status, body) = answer(
        momo.initiate_with(&r, &momo.body("2250700000001"), Some("status=503"))
            .await
            .unwrap(),
    )
    .await;
    assert_eq!((status, &body["code"]), (503, &json!("SERVICE_UNAVAILABLE")));
    assert_eq!(h.counts(&r).await, (1, 0));
    assert_eq!(momo.status_with(&r, None).await.0, 404);
    let (status, body) = h
        .wave_post("/v1/payout", &json!({}), &[("X-Emulator-Fault", "status=500")])
        .await;
    assert_eq!((status, &body["code"]), (500, &json!("internal-server-error")));
}

#[tokio::test]
async fn a_timeout_after_accepting_executes_and_answers_too_late() {
    let h = start(|_| {}).await;
    let momo = h.momo("disbursement").await;
    let r = reference();
    let body = momo.body("2250700000001");
    let request = momo.initiate_with(&r, &body, Some("timeout=1s"));
    let outcome = tokio::time::timeout(Duration::from_millis(150), request).await;
    assert!(outcome.is_err(), "the answer is held back");
    assert_eq!(h.counts(&r).await, (1, 1));
    assert_eq!(momo.status(&r).await["status"], "SUCCESSFUL");
}

#[tokio::test]
async fn a_reset_drops_the_connection_before_or_after_executing() {
    let h = start(|_| {}).await;
    let momo = h.momo("collection").await;
    let (before, after) = (reference(), reference());
    let error = momo
        .initiate_with(&before, &momo.body("2250700000001"), Some("reset"))
        .await
        .unwrap_err();
    assert!(!error.is_timeout() && error.status().is_none(), "{error:?}");
    assert_eq!(h.counts(&before).await, (1, 0));
    assert!(momo
        .initiate_with(&after, &momo.body("2250700000001"), Some("reset=after"))
        .await
        .is_err());
    assert_eq!(h.counts(&after).await, (1, 1));
    let (status, _) = answer(
        momo.initiate_with(&after, &momo.body("2250700000001"), None)
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 409, "a resend after a reset finds the first one");
}

#[tokio::test]
async fn not_found_hides_a_known_reference() {
    let h = start(|_| {}).await;
    let momo = h.momo("collection").await;
    let r = reference();
    momo.initiate(&r, "2250700000001").await;
    assert_eq!(momo.status_with(&r, Some("not_found")).await.0, 404);
    assert_eq!(momo.status_with(&r, None).await.0, 200);
}

#[tokio::test]
async fn callbacks_can_be_dropped_duplicated_delayed_or_sent_out_of_order() {
    let h = start(|_| {}).await;
    let momo = h.momo("collection").await;
    let send = |fault: &'static str| {
        let momo = &momo;
        async move {
            let r = reference();
            let response = momo
                .initiate_with(&r, &momo.body("2250700000001"), Some(fault))
                .await
                .unwrap();
            assert_eq!(response.status(), 202);
            r
        }
    };
    let dropped = send("callback=drop").await;
    let twice = send("callback=duplicate").await;
    let reordered = send("callback=out_of_order").await;
    let sent = Instant::now();
    let late = send("callback_delay=80ms").await;
    let calls = h.wait_for(5).await;
    let to = |r: &str| {
        calls
            .iter()
            .filter(|c| c.path == format!("/momo/{r}"))
            .map(|c| c.json()["status"].clone())
            .collect::<Vec<_>>()
    };
    assert!(to(&dropped).is_empty());
    assert_eq!(to(&twice), vec![json!("SUCCESSFUL"), json!("SUCCESSFUL")]);
    assert_eq!(to(&reordered), vec![json!("SUCCESSFUL"), json!("PENDING")]);
    let late_call = calls.iter().find(|c| c.path == format!("/momo/{late}")).unwrap();
    assert!(late_call.at.duration_since(sent) >= Duration::from_millis(80));
    let log = h.admin("callbacks").await;
    let dropped_entry = log
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["payment"] == json!(dropped))
        .unwrap();
    assert!(dropped_entry["error"].as_str().unwrap().contains("drop"));
}

#[tokio::test]
async fn a_bad_signature_fault_signs_wave_webhooks_with_another_secret() {
    let h = start(|_| {}).await;
    let body = json!({"amount": "900", "currency": "XOF", "success_url": "https://s.example/ok",
                      "error_url": "https://s.example/ko", "restrict_payer_mobile": "+2250700000001"});
    let faults = [("X-Emulator-Fault", "callback=bad_signature+duplicate")];
    assert_eq!(h.wave_post("/v1/checkout/sessions", &body, &faults).await.0, 200);
    let calls = h.wait_for(2).await;
    assert_eq!(calls[0].body, calls[1].body, "the same event twice");
    assert!(!signed_by(
        SECRET,
        calls[0].signature.as_deref().unwrap(),
        &calls[0].body
    ));
    assert!(signed_by(
        &format!("{SECRET}-not-the-secret"),
        calls[0].signature.as_deref().unwrap(),
        &calls[0].body
    ));
}

#[tokio::test]
async fn a_late_payer_approves_after_the_given_time() {
    let h = start(|_| {}).await;
    let momo = h.momo("collection").await;
    let r = reference();
    let response = momo
        .initiate_with(&r, &momo.body("2250700000003"), Some("approve_after=400ms"))
        .await
        .unwrap();
    assert_eq!(response.status(), 202);
    assert_eq!(momo.status(&r).await["status"], "PENDING");
    assert_eq!(h.wait_for(1).await[0].json()["status"], "SUCCESSFUL");
}

#[tokio::test]
async fn rules_set_through_the_admin_api_apply_where_and_as_often_as_told() {
    let h = start(|_| {}).await;
    let rules = json!({"rules": [{"on": "momo.requesttopay", "fault": "status=500", "times": 1}]});
    let set = h
        .http
        .post(h.url("/_emulator/faults"))
        .json(&rules)
        .send()
        .await
        .unwrap();
    assert_eq!(set.status(), 200);
    let momo = h.momo("collection").await;
    let r = reference();
    let first = answer(momo.initiate_with(&r, &momo.body("2250700000001"), None).await.unwrap()).await;
    assert_eq!((first.0, &first.1["code"]), (500, &json!("INTERNAL_PROCESSING_ERROR")));
    momo.initiate(&r, "2250700000001").await;
    assert_eq!(h.counts(&r).await, (2, 1));
    assert_eq!(h.admin("faults").await, json!({"rules": []}), "used up");

    let bad = h
        .http
        .post(h.url("/_emulator/faults"))
        .json(&json!({"fault": "explode"}))
        .send()
        .await
        .unwrap();
    assert_eq!(bad.status(), 400);
    let everywhere = h
        .http
        .post(h.url("/_emulator/faults"))
        .json(&json!({"fault": "not_found"}))
        .send()
        .await
        .unwrap();
    assert_eq!(everywhere.status(), 200);
    assert_eq!(momo.status_with(&r, None).await.0, 404);
    assert_eq!(
        h.http.delete(h.url("/_emulator/faults")).send().await.unwrap().status(),
        204
    );
    assert_eq!(momo.status_with(&r, None).await.0, 200);
}

#[tokio::test]
async fn an_unreadable_fault_header_is_refused_by_the_emulator() {
    let h = start(|_| {}).await;
    let momo = h.momo("collection").await;
    let (status, body) = momo.status_with(&reference(), Some("latency=soon")).await;
    assert_eq!(status, 400);
    assert!(body["emulator_error"].as_str().unwrap().contains("soon"));
}

#[tokio::test]
async fn the_admin_api_settles_a_stuck_payment_and_lists_everything() {
    let h = start(|_| {}).await;
    let momo = h.momo("disbursement").await;
    let r = reference();
    momo.initiate(&r, "2250700000006").await;
    past_the_delay().await;
    assert_eq!(momo.status(&r).await["status"], "PENDING");
    let order = json!({"outcome": "failed", "code": "PAYEE_NOT_ALLOWED_TO_RECEIVE"});
    let settle = h
        .http
        .post(h.url(&format!("/_emulator/payments/{r}/settle")))
        .json(&order)
        .send()
        .await
        .unwrap();
    let (status, shown) = answer(settle).await;
    assert_eq!(
        (status, &shown["status"], &shown["code"]),
        (200, &json!("failed"), &json!("PAYEE_NOT_ALLOWED_TO_RECEIVE"))
    );
    assert_eq!(h.wait_for(1).await[0].json()["reason"], "PAYEE_NOT_ALLOWED_TO_RECEIVE");
    assert_eq!(momo.status(&r).await["status"], "FAILED");
    let listed = h.admin("payments").await;
    let listed: &Vec<Value> = listed.as_array().unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(
        (&listed[0]["protocol"], &listed[0]["flow"], &listed[0]["key"]),
        (&json!("momo-openapi"), &json!("transfer"), &json!(r))
    );
    assert_eq!(listed[0]["wire"]["status"], "FAILED");
    let unknown = h
        .http
        .post(h.url("/_emulator/payments/nothing/settle"))
        .json(&order)
        .send()
        .await
        .unwrap();
    assert_eq!(unknown.status(), 404);
}
