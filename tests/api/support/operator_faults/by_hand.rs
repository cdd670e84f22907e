//! Callbacks made by hand, as each route's protocol makes them: authentic ones (MoMo's with the
//! route's token, Wave's signed now, PayDunya's with the master key's hash) and whatever a test
//! wants to forge.

use momo_gateway::domain::{OperatorCode, Timestamp};
use momo_gateway::operator::momo::callback::route_token;
use momo_operator_emulator::{paydunya_hash, wave_signature};
use serde_json::json;

use super::{Faulted, Route, CALLBACK_TOKEN, PAYDUNYA_MASTER_KEY, WAVE_SECRET};
use crate::support::helpers::{answer, Answer};

/// A MoMo callback by hand: `token` in the URL when given.
pub async fn momo_callback(f: &Faulted, operator: OperatorCode, env: &str, token: Option<&str>, body: &str) -> Answer {
    let query = token.map(|t| format!("?token={t}")).unwrap_or_default();
    let url = f
        .app
        .url(&format!("/operator-callbacks/{}/{env}{query}", operator.name()));
    answer(
        f.app
            .client
            .put(url)
            .header("content-type", "application/json")
            .body(body.to_owned()),
    )
    .await
}

/// A Wave webhook by hand, with `signature` as its `Wave-Signature` when given.
pub async fn wave_webhook(
    f: &Faulted,
    operator: OperatorCode,
    env: &str,
    signature: Option<String>,
    body: &str,
) -> Answer {
    let url = f.app.url(&format!("/operator-callbacks/{}/{env}", operator.name()));
    let mut request = f
        .app
        .client
        .post(url)
        .header("content-type", "application/json")
        .body(body.to_owned());
    if let Some(signature) = signature {
        request = request.header("Wave-Signature", signature);
    }
    answer(request).await
}

/// A PayDunya notification by hand: `hash` as its `data[hash]` when given, before `fields`.
pub async fn paydunya_notification(
    f: &Faulted,
    operator: OperatorCode,
    env: &str,
    hash: Option<&str>,
    fields: &str,
) -> Answer {
    let url = f.app.url(&format!("/operator-callbacks/{}/{env}", operator.name()));
    let body = match hash {
        Some(hash) => format!("data[hash]={hash}&{fields}"),
        None => fields.to_owned(),
    };
    answer(
        f.app
            .client
            .post(url)
            .header("content-type", "application/x-www-form-urlencoded")
            .body(body),
    )
    .await
}

/// An authenticated callback by hand, as `route`'s protocol makes them, to `operator`'s
/// route in `env`.
pub async fn authentic_callback(f: &Faulted, route: Route, operator: OperatorCode, env: &str, body: &str) -> Answer {
    if route.is_momo() {
        let token = route_token(CALLBACK_TOKEN, operator, env.parse().unwrap());
        momo_callback(f, operator, env, Some(&token), body).await
    } else if route.is_paydunya() {
        paydunya_notification(f, operator, env, Some(&paydunya_hash(PAYDUNYA_MASTER_KEY)), body).await
    } else {
        let signature = wave_signature(WAVE_SECRET, Timestamp::now().unix_seconds(), body.as_bytes());
        wave_webhook(f, operator, env, Some(signature), body).await
    }
}

/// A callback body claiming that the payment `reference` succeeded.
pub fn success_claim(route: Route, reference: &str) -> String {
    if route.is_momo() {
        json!({"amount": route.amount(), "currency": "XOF", "externalId": reference, "status": "SUCCESSFUL"})
            .to_string()
    } else if route.is_paydunya() {
        // The fields after `data[hash]`: an invoice's or a disbursement's notification.
        match route.kind() {
            momo_gateway::domain::Kind::Collection => {
                format!("data[status]=completed&data[custom_data][ref]={reference}")
            }
            _ => format!("data[status]=success&data[disburse_id]={reference}"),
        }
    } else {
        json!({"id": "AE_by_hand", "type": "checkout.session.completed", "data": {
            "client_reference": reference, "checkout_status": "complete", "payment_status": "succeeded"}})
        .to_string()
    }
}
