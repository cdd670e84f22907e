//! PayDunya's notifications once an invoice or a disbursement settles: a form POST to its
//! `callback_url` whose fields sit under `data[…]`, with `data[hash]` the SHA-512 of the master
//! key. An invoice's names the gateway's `ref` in `data[custom_data][ref]`; a disbursement's in
//! `data[disburse_id]`. Faults: `duplicate` sends it twice, `out_of_order` follows it with a
//! stale `pending` one, `bad_signature` hashes another key.

use std::time::Instant;

use reqwest::Method;

use super::disburse::state_of;
use super::invoice::view;
use super::notification_hash;
use crate::callbacks::Delivery;
use crate::state::{Flow, Payment, Phase};
use crate::Ctx;

/// The notifications about `payment`, settled by `now`.
pub fn deliveries(ctx: &Ctx, payment: &Payment, now: Instant) -> Vec<Delivery> {
    let Some(url) = payment.callback_url.clone() else {
        return Vec::new();
    };
    if matches!(payment.phase(now), Phase::Pending) {
        return Vec::new();
    }
    let key = match payment.callback.bad_signature {
        true => format!("{}-not-the-key", ctx.settings.paydunya.master_key),
        false => ctx.settings.paydunya.master_key.clone(),
    };
    let hash = notification_hash(&key);
    let fields = |stale: bool| -> Vec<(String, String)> {
        let field = |name: &str, value: &str| (format!("data[{name}]"), value.to_owned());
        let text = |value: Option<&serde_json::Value>| value.and_then(|v| v.as_str()).unwrap_or("").to_owned();
        let mut fields = vec![field("hash", &hash), field("response_code", "00")];
        match payment.flow {
            Flow::Disburse => {
                let state = state_of(payment, now);
                let status = if stale {
                    "pending".to_owned()
                } else {
                    text(state.get("status"))
                };
                fields.extend([
                    field("status", &status),
                    field("disburse_invoice", &payment.id),
                    field("disburse_id", &text(payment.request.get("disburse_id"))),
                    field("amount", &payment.amount),
                ]);
            }
            _ => {
                let confirmation = view(payment, now);
                let status = if stale {
                    "pending".to_owned()
                } else {
                    text(confirmation.get("status"))
                };
                fields.extend([
                    field("status", &status),
                    field("invoice][token", &payment.id),
                    field("invoice][total_amount", &payment.amount),
                    field("custom_data][ref", &text(payment.request.pointer("/custom_data/ref"))),
                    field("custom_data][key", &text(payment.request.pointer("/custom_data/key"))),
                ]);
            }
        }
        fields
    };
    let call = |fields: Vec<(String, String)>| Delivery {
        method: Method::POST,
        url: url.clone(),
        body: serde_urlencoded::to_string(fields).unwrap_or_default(),
        content_type: "application/x-www-form-urlencoded",
        signature: None,
    };
    let mut calls = vec![call(fields(false))];
    if payment.callback.duplicate {
        calls.push(call(fields(false)));
    }
    if payment.callback.out_of_order {
        calls.push(call(fields(true)));
    }
    calls
}
