//! Payment requests as a merchant sends them: v1 and v2 bodies for collections and transfers,
//! and `post` to send one with a token.

use serde_json::{json, Value};

use crate::support::helpers::{answer, Answer, TestApp};

/// A v1 collection body.
pub fn collect_v1(id: &str, phone: &str, operator: &str, amount: &str) -> Value {
    json!({
        "transactionId": id,
        "customer": {"firstName": "Awa", "lastName": "Koné", "phone": phone, "email": "awa@example.ci",
                     "address": {"countryCode": "CI", "city": "Abidjan"}},
        "payer": phone,
        "currency": "XOF",
        "amount": amount,
        "operator": operator
    })
}

/// A v1 transfer body.
pub fn transfer_v1(id: &str, phone: &str, operator: &str, amount: &str) -> Value {
    json!({
        "transactionId": id,
        "customer": {"firstName": "Awa", "lastName": "Koné", "phone": phone, "address": {"countryCode": "CI"}},
        "recipient": phone,
        "currency": "XOF",
        "amount": amount,
        "operator": operator
    })
}

/// A v2 collection body, shape A.
pub fn collect_v2(id: &str, phone: Value, operator: &str, amount: Value) -> Value {
    json!({"code_country": "CI", "operator": operator, "currency": "XOF", "customer_id": phone,
           "name_user": "Awa Koné", "amount": amount, "transaction_id": id})
}

/// A v2 transfer body.
pub fn transfer_v2(id: &str, phone: Value, operator: &str, amount: Value) -> Value {
    json!({"code_country": "CI", "currency": "XOF", "customer_id": phone, "name": "Awa Koné",
           "amount": amount, "operator": operator, "transaction_id": id})
}

/// Sends `body` to `path` with `token` as the bearer.
pub async fn post(app: &TestApp, token: &str, path: &str, body: &Value) -> Answer {
    answer(app.post(path).bearer_auth(token).json(body)).await
}
