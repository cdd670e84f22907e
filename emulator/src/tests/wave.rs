//! Wave over HTTP: authentication, checkout sessions (Sandbox rows, launch page, search,
//! expiry), signed webhooks, and idempotent payouts.

use hmac::{Hmac, Mac};
use serde_json::{json, Value};
use sha2::Sha256;

use super::{answer, past_the_delay, start, Harness};

pub const SECRET: &str = "wave-webhook-secret";

impl Harness {
    pub async fn wave_post(&self, path: &str, body: &Value, headers: &[(&str, &str)]) -> (u16, Value) {
        let mut request = self.http.post(self.url(path)).bearer_auth("wave-test-key").json(body);
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        answer(request.send().await.unwrap()).await
    }

    pub async fn wave_get(&self, path: &str) -> (u16, Value) {
        answer(
            self.http
                .get(self.url(path))
                .bearer_auth("wave-test-key")
                .send()
                .await
                .unwrap(),
        )
        .await
    }

    /// Creates a checkout session, expecting 200.
    pub async fn checkout(&self, reference: &str, payer: Option<&str>) -> Value {
        let mut body = json!({"amount": "2500", "currency": "XOF", "client_reference": reference,
                              "success_url": "https://shop.example/ok", "error_url": "https://shop.example/ko"});
        if let Some(payer) = payer {
            body["restrict_payer_mobile"] = json!(payer);
        }
        let (status, session) = self.wave_post("/v1/checkout/sessions", &body, &[]).await;
        assert_eq!(status, 200, "{session}");
        session
    }
}

/// Checks `Wave-Signature` independently of the emulator's code: HMAC-SHA256 over the timestamp
/// then the raw body, hex.
pub fn signed_by(secret: &str, header: &str, body: &str) -> bool {
    let (t, v1) = header.split_once(',').unwrap();
    let (t, v1) = (t.strip_prefix("t=").unwrap(), v1.strip_prefix("v1=").unwrap());
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).unwrap();
    mac.update(format!("{t}{body}").as_bytes());
    let expected = hex::encode(mac.finalize().into_bytes());
    expected == v1
}

#[tokio::test]
async fn the_api_key_is_required_with_the_documented_codes() {
    let h = start(|_| {}).await;
    let missing = answer(h.http.get(h.url("/v1/payout/pt-x")).send().await.unwrap()).await;
    assert_eq!((missing.0, &missing.1["code"]), (401, &json!("missing-auth-header")));
    let wrong = answer(
        h.http
            .get(h.url("/v1/payout/pt-x"))
            .bearer_auth("nope")
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!((wrong.0, &wrong.1["code"]), (401, &json!("no-matching-api-key")));
}

#[tokio::test]
async fn a_checkout_for_02_completes_after_the_delay_with_a_signed_webhook() {
    let h = start(|_| {}).await;
    let session = h.checkout("order-1", Some("+2250700000002")).await;
    let id = session["id"].as_str().unwrap();
    assert!(id.starts_with("cos-"));
    assert_eq!(
        (&session["checkout_status"], &session["payment_status"]),
        (&json!("open"), &json!("processing"))
    );
    assert_eq!(
        (&session["when_completed"], &session["transaction_id"]),
        (&Value::Null, &Value::Null)
    );
    let launch = session["wave_launch_url"].as_str().unwrap();
    assert!(
        launch.starts_with(&format!("{}/c/{id}?a=2500&c=XOF", h.emulator.url)),
        "{launch}"
    );

    let calls = h.wait_for(1).await;
    assert_eq!((calls[0].method.as_str(), calls[0].path.as_str()), ("POST", "/wave"));
    assert!(signed_by(
        SECRET,
        calls[0].signature.as_deref().unwrap(),
        &calls[0].body
    ));
    let event = calls[0].json();
    assert_eq!(event["type"], "checkout.session.completed");
    assert!(event["id"].as_str().unwrap().starts_with("AE_"));
    let (status, now) = h.wave_get(&format!("/v1/checkout/sessions/{id}")).await;
    assert_eq!((status, &now), (200, &event["data"]));
    assert_eq!(
        (&now["checkout_status"], &now["payment_status"]),
        (&json!("complete"), &json!("succeeded"))
    );
    assert!(now["transaction_id"].as_str().unwrap().starts_with('T') && now["when_completed"].is_string());
}

#[tokio::test]
async fn a_checkout_without_a_payer_waits_for_the_launch_page() {
    let h = start(|_| {}).await;
    let session = h.checkout("order-2", None).await;
    let id = session["id"].as_str().unwrap();
    past_the_delay().await;
    assert_eq!(
        h.wave_get(&format!("/v1/checkout/sessions/{id}")).await.1["checkout_status"],
        "open"
    );
    let page = h.http.get(h.url(&format!("/c/{id}"))).send().await.unwrap();
    assert_eq!(page.status(), 200);
    assert!(page.text().await.unwrap().contains("2500"));
    let approve = h.http.post(h.url(&format!("/c/{id}/approve"))).send().await.unwrap();
    assert_eq!(
        (
            approve.status().as_u16(),
            approve.headers()["location"].to_str().unwrap()
        ),
        (303, "https://shop.example/ok")
    );
    assert_eq!(h.wait_for(1).await[0].json()["type"], "checkout.session.completed");
    let (status, found) = h
        .wave_get("/v1/checkout/sessions/search?client_reference=order-2")
        .await;
    assert_eq!((status, found["result"].as_array().unwrap().len()), (200, 1));
    assert_eq!(found["result"][0]["payment_status"], "succeeded");
    let again = h.http.post(h.url(&format!("/c/{id}/approve"))).send().await.unwrap();
    assert_eq!(again.status(), 409);
}

#[tokio::test]
async fn a_failed_attempt_leaves_the_session_open_until_it_is_expired() {
    let h = start(|_| {}).await;
    let session = h.checkout("order-3", Some("+2250700000004")).await;
    let id = session["id"].as_str().unwrap();
    let failed = h.wait_for(1).await[0].json();
    assert_eq!(failed["type"], "checkout.session.payment_failed");
    assert_eq!(failed["data"]["last_payment_error"]["code"], "insufficient-funds");
    assert_eq!(
        (&failed["data"]["checkout_status"], &failed["data"]["payment_status"]),
        (&json!("open"), &json!("processing"))
    );
    let (status, body) = h
        .wave_post(&format!("/v1/checkout/sessions/{id}/expire"), &json!({}), &[])
        .await;
    assert_eq!((status, body), (200, Value::Null));
    let expired = h.wave_get(&format!("/v1/checkout/sessions/{id}")).await.1;
    assert_eq!(
        (&expired["checkout_status"], &expired["payment_status"]),
        (&json!("expired"), &json!("cancelled"))
    );
    assert!(expired["when_completed"].is_string());
    let late = h.http.post(h.url(&format!("/c/{id}/approve"))).send().await.unwrap();
    assert_eq!(late.status(), 410);

    let paid = h.checkout("order-4", Some("+2250700000001")).await;
    h.wait_for(2).await;
    let (status, body) = h
        .wave_post(
            &format!("/v1/checkout/sessions/{}/expire", paid["id"].as_str().unwrap()),
            &json!({}),
            &[],
        )
        .await;
    assert_eq!(
        (status, &body["code"]),
        (409, &json!("checkout-session-already-completed"))
    );
}

#[tokio::test]
async fn sessions_expire_on_their_own_after_their_lifetime() {
    let h = start(|s| s.wave.session_ttl = std::time::Duration::from_millis(30)).await;
    let session = h.checkout("order-5", Some("+2250700000006")).await;
    past_the_delay().await;
    let now = h
        .wave_get(&format!("/v1/checkout/sessions/{}", session["id"].as_str().unwrap()))
        .await
        .1;
    assert_eq!(now["checkout_status"], "expired");
}

#[tokio::test]
async fn unknown_sessions_and_payouts_are_404() {
    let h = start(|_| {}).await;
    let (status, body) = h.wave_get("/v1/checkout/sessions/cos-nothing").await;
    assert_eq!((status, &body["code"]), (404, &json!("checkout-session-not-found")));
    let (status, body) = h.wave_get("/v1/payout/pt-nothing").await;
    assert_eq!((status, &body["code"]), (404, &json!("payout-not-found")));
}

fn payout(mobile: &str) -> Value {
    json!({"currency": "XOF", "receive_amount": "10000", "mobile": mobile, "name": "Awa Kone", "client_reference": "tr-1"})
}

#[tokio::test]
async fn the_same_idempotency_key_gives_the_same_payout_never_a_second_one() {
    let h = start(|_| {}).await;
    let key = [("idempotency-key", "payout-key-1")];
    let (status, first) = h.wave_post("/v1/payout", &payout("+2250700000077"), &key).await;
    assert_eq!(
        (status, &first["status"], &first["fee"]),
        (200, &json!("succeeded"), &json!("100"))
    );
    assert!(first["id"].as_str().unwrap().starts_with("pt-"));
    let (status, second) = h.wave_post("/v1/payout", &payout("+2250700000077"), &key).await;
    assert_eq!((status, &second), (200, &first));
    assert_eq!(h.counts("payout-key-1").await, (2, 1));
    let (status, body) = h.wave_post("/v1/payout", &payout("+2250700000088"), &key).await;
    assert_eq!((status, &body["code"]), (409, &json!("idempotency-mismatch")));
    let (status, body) = h.wave_post("/v1/payout", &payout("+2250700000077"), &[]).await;
    assert_eq!((status, &body["code"]), (400, &json!("request-validation-error")));
    assert_eq!(h.counts("payout-key-1").await, (3, 1));
}

#[tokio::test]
async fn payouts_follow_the_sandbox_rows() {
    let h = start(|_| {}).await;
    let send = |key: &'static str, mobile: &'static str| {
        let h = &h;
        async move {
            h.wave_post("/v1/payout", &payout(mobile), &[("idempotency-key", key)])
                .await
        }
    };
    let later = send("p-02", "+2250700000002").await.1;
    let refused_later = send("p-03", "+2250700000003").await.1;
    assert_eq!(
        (&later["status"], &refused_later["status"]),
        (&json!("processing"), &json!("processing"))
    );
    let (status, refused) = send("p-04", "+2250700000004").await;
    assert_eq!((status, &refused["code"]), (422, &json!("recipient-account-blocked")));
    assert_eq!(send("p-04", "+2250700000004").await.0, 422, "the same answer again");
    assert_eq!(h.counts("p-04").await, (2, 1));
    past_the_delay().await;
    let get = |payout: &Value| format!("/v1/payout/{}", payout["id"].as_str().unwrap());
    assert_eq!(h.wave_get(&get(&later)).await.1["status"], "succeeded");
    let failed = h.wave_get(&get(&refused_later)).await.1;
    assert_eq!(
        (&failed["status"], &failed["payout_error"]["error_code"]),
        (&json!("failed"), &json!("recipient-limit-exceeded"))
    );
    assert!(h.received().is_empty(), "Wave documents no payout webhook");
}

#[tokio::test]
async fn payouts_are_found_by_client_reference_except_refused_ones() {
    let h = start(|_| {}).await;
    let (_, sent) = h
        .wave_post("/v1/payout", &payout("+2250700000077"), &[("idempotency-key", "k-1")])
        .await;
    let mut refused = payout("+2250700000004");
    refused["client_reference"] = json!("tr-2");
    assert_eq!(
        h.wave_post("/v1/payout", &refused, &[("idempotency-key", "k-2")])
            .await
            .0,
        422
    );
    let (status, found) = h.wave_get("/v1/payouts/search?client_reference=tr-1").await;
    assert_eq!((status, &found), (200, &json!({"result": [sent]})));
    for nothing in ["tr-2", "tr-unknown"] {
        let (status, found) = h
            .wave_get(&format!("/v1/payouts/search?client_reference={nothing}"))
            .await;
        assert_eq!((status, found), (200, json!({"result": []})), "{nothing}");
    }
    let (status, body) = h.wave_get("/v1/payouts/search").await;
    assert_eq!((status, &body["code"]), (400, &json!("request-validation-error")));
}
