//! The MoMo Open API over HTTP: tokens, request to pay, transfer, status, callbacks, and each
//! row of the Sandbox table.

use reqwest::Method;
use serde_json::{json, Value};

use super::{answer, past_the_delay, start, Harness, SLOW};

pub const COLLECTION_KEY: &str = "collection-subscription";

/// A MoMo client for the tests.
pub struct Momo<'a> {
    pub h: &'a Harness,
    pub token: String,
    pub product: &'static str,
}

impl Harness {
    /// A client of `product` (`collection` or `disbursement`) holding a fresh token.
    pub async fn momo(&self, product: &'static str) -> Momo<'_> {
        let response = self
            .http
            .post(self.url(&format!("/{product}/token/")))
            .basic_auth(format!("{product}-user"), Some(format!("{product}-key")))
            .header("Ocp-Apim-Subscription-Key", format!("{product}-subscription"))
            .send()
            .await
            .unwrap();
        let (status, body) = answer(response).await;
        assert_eq!(status, 200, "{body}");
        Momo {
            h: self,
            token: body["access_token"].as_str().unwrap().to_string(),
            product,
        }
    }
}

impl Momo<'_> {
    fn path(&self) -> &'static str {
        if self.product == "collection" {
            "/collection/v1_0/requesttopay"
        } else {
            "/disbursement/v1_0/transfer"
        }
    }

    fn request(&self, method: Method, path: &str) -> reqwest::RequestBuilder {
        self.h
            .http
            .request(method, self.h.url(path))
            .bearer_auth(&self.token)
            .header("X-Target-Environment", "sandbox")
            .header("Ocp-Apim-Subscription-Key", format!("{}-subscription", self.product))
    }

    pub fn body(&self, msisdn: &str) -> Value {
        let party = if self.product == "collection" { "payer" } else { "payee" };
        json!({
            "amount": "1500", "currency": "XOF", "externalId": "order-17",
            party: {"partyIdType": "MSISDN", "partyId": msisdn},
            "payerMessage": "Order 17", "payeeNote": "Thanks"
        })
    }

    /// Initiates with `reference`, calling back to the receiver, with `fault` in the header.
    pub async fn initiate_with(
        &self,
        reference: &str,
        body: &Value,
        fault: Option<&str>,
    ) -> reqwest::Result<reqwest::Response> {
        let mut request = self
            .request(Method::POST, self.path())
            .header("X-Reference-Id", reference)
            .header("X-Callback-Url", format!("{}/momo/{reference}", self.h.receiver))
            .json(body);
        if let Some(fault) = fault {
            request = request.header("X-Emulator-Fault", fault);
        }
        request.send().await
    }

    /// Initiates for `msisdn` and expects 202.
    pub async fn initiate(&self, reference: &str, msisdn: &str) {
        let (status, body) = answer(self.initiate_with(reference, &self.body(msisdn), None).await.unwrap()).await;
        assert_eq!((status, body), (202, Value::Null));
    }

    pub async fn status_with(&self, reference: &str, fault: Option<&str>) -> (u16, Value) {
        let mut request = self.request(Method::GET, &format!("{}/{reference}", self.path()));
        if let Some(fault) = fault {
            request = request.header("X-Emulator-Fault", fault);
        }
        answer(request.send().await.unwrap()).await
    }

    pub async fn status(&self, reference: &str) -> Value {
        let (status, body) = self.status_with(reference, None).await;
        assert_eq!(status, 200, "{body}");
        body
    }
}

pub fn reference() -> String {
    uuid::Uuid::new_v4().to_string()
}

#[tokio::test]
async fn tokens_need_the_products_credentials_and_serve_that_product_only() {
    let h = start(|_| {}).await;
    let token = |user: &str, key: &str, subscription: &str| {
        h.http
            .post(h.url("/collection/token/"))
            .basic_auth(user, Some(key))
            .header("Ocp-Apim-Subscription-Key", subscription)
            .send()
    };
    let (status, body) = answer(token("collection-user", "wrong", COLLECTION_KEY).await.unwrap()).await;
    assert_eq!((status, body), (401, json!({"error": "login_failed"})));
    let (status, body) = answer(token("collection-user", "collection-key", "wrong").await.unwrap()).await;
    assert_eq!(status, 401);
    assert_eq!(body["statusCode"], 401);
    assert!(body["message"].as_str().unwrap().contains("invalid subscription key"));
    let (status, body) = answer(
        token("collection-user", "collection-key", COLLECTION_KEY)
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(
        (status, &body["token_type"], &body["expires_in"]),
        (200, &json!("access_token"), &json!(3600))
    );

    let collection = h.momo("collection").await;
    let transfer_with_a_collection_token = Momo {
        h: &h,
        token: collection.token.clone(),
        product: "disbursement",
    };
    let body = transfer_with_a_collection_token.body("2250700000001");
    let response = transfer_with_a_collection_token
        .initiate_with(&reference(), &body, None)
        .await
        .unwrap();
    assert_eq!(response.status(), 401);
}

#[tokio::test]
async fn a_request_to_pay_is_accepted_pending_then_successful_with_one_callback() {
    let h = start(|s| s.delay = SLOW).await;
    let momo = h.momo("collection").await;
    let r = reference();
    momo.initiate(&r, "2250700000002").await;
    let pending = momo.status(&r).await;
    assert_eq!(
        pending,
        json!({"amount": "1500", "currency": "XOF", "externalId": "order-17",
               "payer": {"partyIdType": "MSISDN", "partyId": "2250700000002"},
               "payerMessage": "Order 17", "payeeNote": "Thanks", "status": "PENDING"})
    );
    let calls = h.wait_for(1).await;
    assert_eq!(
        (calls[0].method.as_str(), calls[0].path.as_str()),
        ("PUT", format!("/momo/{r}").as_str())
    );
    let settled = momo.status(&r).await;
    assert_eq!(calls[0].json(), settled);
    assert_eq!(settled["status"], "SUCCESSFUL");
    assert!(settled["financialTransactionId"]
        .as_str()
        .unwrap()
        .chars()
        .all(|c| c.is_ascii_digit()));
    past_the_delay().await;
    assert_eq!(h.received().len(), 1, "one callback, no retry");
}

#[tokio::test]
async fn a_transfer_to_01_or_an_ordinary_number_succeeds_at_once() {
    let h = start(|_| {}).await;
    let momo = h.momo("disbursement").await;
    for msisdn in ["2250700000001", "2250700000077"] {
        let r = reference();
        momo.initiate(&r, msisdn).await;
        let status = momo.status(&r).await;
        assert_eq!(
            (&status["status"], &status["payee"]["partyId"]),
            (&json!("SUCCESSFUL"), &json!(msisdn))
        );
    }
    let calls = h.wait_for(2).await;
    assert!(calls.iter().all(|c| c.json()["status"] == "SUCCESSFUL"));
}

#[tokio::test]
async fn refusals_come_after_the_delay_for_03_and_at_once_for_04() {
    let h = start(|s| s.delay = SLOW).await;
    let collection = h.momo("collection").await;
    let transfer = h.momo("disbursement").await;
    let (later, at_once, payee) = (reference(), reference(), reference());
    collection.initiate(&later, "2250700000003").await;
    collection.initiate(&at_once, "2250700000004").await;
    transfer.initiate(&payee, "2250700000004").await;
    assert_eq!(collection.status(&later).await["status"], "PENDING");
    let failed = collection.status(&at_once).await;
    assert_eq!(
        (&failed["status"], &failed["reason"]),
        (&json!("FAILED"), &json!("PAYER_NOT_FOUND"))
    );
    assert!(failed.get("financialTransactionId").is_none());
    assert_eq!(transfer.status(&payee).await["reason"], "PAYEE_NOT_FOUND");
    let calls = h.wait_for(3).await;
    assert_eq!(collection.status(&later).await["reason"], "APPROVAL_REJECTED");
    assert!(calls.iter().all(|c| c.json()["status"] == "FAILED"));
}

#[tokio::test]
async fn a_05_payment_succeeds_without_a_callback_and_a_06_one_stays_pending() {
    let h = start(|_| {}).await;
    let momo = h.momo("collection").await;
    let (silent, stuck) = (reference(), reference());
    momo.initiate(&silent, "2250700000005").await;
    momo.initiate(&stuck, "2250700000006").await;
    past_the_delay().await;
    assert_eq!(momo.status(&silent).await["status"], "SUCCESSFUL");
    assert_eq!(momo.status(&stuck).await["status"], "PENDING");
    past_the_delay().await;
    assert!(h.received().is_empty());
    assert_eq!(h.admin("callbacks").await, json!([]));
}

#[tokio::test]
async fn the_same_reference_twice_is_refused_409_and_executed_once() {
    let h = start(|_| {}).await;
    let momo = h.momo("collection").await;
    let r = reference();
    momo.initiate(&r, "2250700000006").await;
    let (status, body) = answer(momo.initiate_with(&r, &momo.body("2250700000001"), None).await.unwrap()).await;
    assert_eq!(
        (status, body),
        (
            409,
            json!({"code": "RESOURCE_ALREADY_EXIST", "message": "Duplicated reference id. Creation of resource failed."})
        )
    );
    assert_eq!(h.counts(&r).await, (2, 1));
    assert_eq!(
        momo.status(&r).await["payer"]["partyId"],
        "2250700000006",
        "the first one stands"
    );
}

#[tokio::test]
async fn an_unknown_reference_is_404() {
    let h = start(|_| {}).await;
    let momo = h.momo("disbursement").await;
    let (status, body) = momo.status_with(&reference(), None).await;
    assert_eq!(
        (status, body),
        (
            404,
            json!({"code": "RESOURCE_NOT_FOUND", "message": "Requested resource was not found."})
        )
    );
}

#[tokio::test]
async fn wrong_environment_reference_currency_and_callback_host_are_refused_as_documented() {
    let h = start(|s| s.momo.callback_host = Some("127.0.0.1".to_string())).await;
    let momo = h.momo("collection").await;
    let send = |reference: String, environment: &'static str, body: Value, callback: String| {
        h.http
            .post(h.url(momo.path()))
            .bearer_auth(&momo.token)
            .header("Ocp-Apim-Subscription-Key", COLLECTION_KEY)
            .header("X-Reference-Id", reference)
            .header("X-Target-Environment", environment)
            .header("X-Callback-Url", callback)
            .json(&body)
            .send()
    };
    let good = momo.body("2250700000001");
    let callback = format!("{}/momo", h.receiver);
    let (status, body) = answer(
        send(reference(), "mtnivorycoast", good.clone(), callback.clone())
            .await
            .unwrap(),
    )
    .await;
    assert_eq!((status, &body["code"]), (500, &json!("NOT_ALLOWED_TARGET_ENVIRONMENT")));
    let (status, _) = answer(
        send("not-a-uuid".into(), "sandbox", good.clone(), callback.clone())
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 400);
    let mut euros = good.clone();
    euros["currency"] = json!("EUR");
    let (status, body) = answer(send(reference(), "sandbox", euros, callback.clone()).await.unwrap()).await;
    assert_eq!((status, &body["code"]), (500, &json!("INVALID_CURRENCY")));
    let mut number = good.clone();
    number["amount"] = json!(1500);
    let (status, _) = answer(send(reference(), "sandbox", number, callback).await.unwrap()).await;
    assert_eq!(status, 400, "amounts are strings");
    let elsewhere = "http://localhost:1/momo".to_string();
    let (status, body) = answer(send(reference(), "sandbox", good, elsewhere).await.unwrap()).await;
    assert_eq!((status, &body["code"]), (500, &json!("INVALID_CALLBACK_URL_HOST")));
    assert_eq!(h.admin("payments").await, json!([]));
}
