//! BETA return URLs as real clients spell them: v1 `urlError` beside `errorUrl`, and v2
//! `url_success` / `url_error` in both collection shapes. The payer's decision on the launch
//! page sends them (303) to the URL the merchant gave.

use reqwest::StatusCode;
use serde_json::{json, Value};

use crate::support::helpers::TestApp;
use crate::support::requests::{collect_v1, collect_v2, post};
use momo_test_support::both_backends;

both_backends!(
    TestApp::spawn =>
    a_v1_url_error_is_the_error_url_of_a_declined_beta_payment,
    v2_return_urls_are_honoured_in_shape_a_and_shape_b,
    shape_b_takes_the_one_time_code_as_code_otp,
);

const OK: &str = "https://shop.example.ci/merci";
const KO: &str = "https://shop.example.ci/echec";

/// A v2 collection body, shape B (the reference's request samples).
fn collect_v2_shape_b(id: &str, phone: &str, operator: &str) -> Value {
    json!({"transactionId": id, "codeCountry": "CI", "operator": operator,
           "customer": {"phone": phone, "name": "Awa Koné", "email": "awa@example.ci"},
           "amount": 1000, "currency": "XOF"})
}

/// The payer's answer on the launch page at `launch` (`approve` or `decline`): its status and
/// where it sends the payer.
async fn decide(app: &TestApp, launch: &Value, decision: &str) -> (StatusCode, Option<String>) {
    let launch = launch.as_str().expect("a launch URL");
    let path = launch
        .strip_prefix("http://gateway.test")
        .expect("under the public URL");
    let no_redirects = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let answer = no_redirects
        .post(app.url(&format!("{path}/{decision}")))
        .send()
        .await
        .unwrap();
    let location = answer.headers().get("location").map(|l| l.to_str().unwrap().to_owned());
    (answer.status(), location)
}

async fn a_v1_url_error_is_the_error_url_of_a_declined_beta_payment(app: TestApp) {
    let token = app.sandbox_token().await;
    for (id, decision, expected) in [("v1-no", "decline", KO), ("v1-yes", "approve", OK)] {
        let mut body = collect_v1(id, "0701020307", "BETA_MONEY_CI", "1000");
        body["urlSuccess"] = json!(OK);
        body["urlError"] = json!(KO);
        let a = post(&app, &token, "/v1/collecte/mobile-money", &body).await;
        assert_eq!(a.status, StatusCode::ACCEPTED, "{}", a.body);
        let (status, location) = decide(&app, &a.body["data"]["betaLaunchUrl"], decision).await;
        assert_eq!(status, StatusCode::SEE_OTHER, "{id}");
        assert_eq!(location.as_deref(), Some(expected), "{id}");
    }
    // Both spellings at once is ambiguous, as `urlSuccess` with `successUrl` is.
    let mut body = collect_v1("v1-both", "0701020307", "BETA_MONEY_CI", "1000");
    body["urlError"] = json!(KO);
    body["errorUrl"] = json!(OK);
    let a = post(&app, &token, "/v1/collecte/mobile-money", &body).await;
    assert_eq!(a.status, StatusCode::BAD_REQUEST, "{}", a.body);
    let mut body = collect_v1("v1-bad", "0701020307", "BETA_MONEY_CI", "1000");
    body["urlError"] = json!("javascript:alert(1)");
    let a = post(&app, &token, "/v1/collecte/mobile-money", &body).await;
    assert_eq!(a.status, StatusCode::BAD_REQUEST, "{}", a.body);
    app.assert_ledger().await;
}

async fn v2_return_urls_are_honoured_in_shape_a_and_shape_b(app: TestApp) {
    let token = app.sandbox_token().await;
    let shape_a = |id: &str| collect_v2(id, json!("0701020307"), "BETA_CI", json!(1000));
    let shape_b = |id: &str| collect_v2_shape_b(id, "0701020307", "BETA_CI");
    let cases: [(&str, Value, &str, &str); 4] = [
        ("a-no", shape_a("a-no"), "decline", KO),
        ("a-yes", shape_a("a-yes"), "approve", OK),
        ("b-no", shape_b("b-no"), "decline", KO),
        ("b-yes", shape_b("b-yes"), "approve", OK),
    ];
    for (id, mut body, decision, expected) in cases {
        body["url_success"] = json!(OK);
        body["url_error"] = json!(KO);
        let a = post(&app, &token, "/v2/collecte/mobile-money", &body).await;
        assert_eq!(a.status, StatusCode::ACCEPTED, "{id}: {}", a.body);
        let (status, location) = decide(&app, &a.body["data"]["redirectUrl"], decision).await;
        assert_eq!(status, StatusCode::SEE_OTHER, "{id}");
        assert_eq!(location.as_deref(), Some(expected), "{id}");
    }
    // Shape B's camelCase spelling of the same fields.
    let mut body = shape_b("b-camel");
    body["urlError"] = json!(KO);
    let a = post(&app, &token, "/v2/collecte/mobile-money", &body).await;
    assert_eq!(a.status, StatusCode::ACCEPTED, "{}", a.body);
    let (status, location) = decide(&app, &a.body["data"]["redirectUrl"], "decline").await;
    assert_eq!((status, location.as_deref()), (StatusCode::SEE_OTHER, Some(KO)));
    // A URL that is not http(s) is refused in shape B as in shape A, naming the field.
    let mut body = shape_b("b-bad");
    body["url_error"] = json!("javascript:alert(1)");
    let a = post(&app, &token, "/v2/collecte/mobile-money", &body).await;
    assert_eq!(a.status, StatusCode::BAD_REQUEST, "{}", a.body);
    assert!(a.body["reason"].as_str().unwrap().contains("url_error"), "{}", a.body);
    app.assert_ledger().await;
}

async fn shape_b_takes_the_one_time_code_as_code_otp(app: TestApp) {
    let token = app.sandbox_token().await;
    let mut body = collect_v2_shape_b("b-otp", "0701020301", "ALPHA_MONEY_CI");
    body["code_otp"] = json!("0000");
    let a = post(&app, &token, "/v2/collecte/mobile-money", &body).await;
    assert_eq!(
        a.status,
        StatusCode::GATEWAY_TIMEOUT,
        "the simulator refuses 0000: {}",
        a.body
    );
    let mut body = collect_v2_shape_b("b-otp-ok", "0701020301", "ALPHA_MONEY_CI");
    body["code_otp"] = json!("1234");
    let a = post(&app, &token, "/v2/collecte/mobile-money", &body).await;
    assert_eq!(a.status, StatusCode::OK, "{}", a.body);
    app.assert_ledger().await;
}
