//! What MoMo sends to `X-Callback-Url` when a payment settles: the same body as the status
//! lookup, by PUT (or POST, per the settings), with no signature and no reference beyond the
//! URL itself and `externalId`. Faults: `duplicate` sends it twice, `out_of_order` follows it
//! with the earlier `PENDING` body.

use std::time::Instant;

use reqwest::Method;

use super::result;
use crate::callbacks::Delivery;
use crate::settings::CallbackMethod;
use crate::state::{Payment, Phase};
use crate::Ctx;

/// The callbacks for `payment`, settled by `now`.
pub fn deliveries(ctx: &Ctx, payment: &Payment, now: Instant) -> Vec<Delivery> {
    let Some(url) = &payment.callback_url else {
        return Vec::new();
    };
    let phase = payment.phase(now);
    if phase == Phase::Pending {
        return Vec::new();
    }
    let method = match ctx.settings.momo.callback_method {
        CallbackMethod::Put => Method::PUT,
        CallbackMethod::Post => Method::POST,
    };
    let call = |body: serde_json::Value| Delivery {
        method: method.clone(),
        url: url.clone(),
        body: body.to_string(),
        content_type: "application/json",
        signature: None,
    };
    let settled = call(result(payment, &phase));
    let mut calls = vec![settled.clone()];
    if payment.callback.duplicate {
        calls.push(settled);
    }
    if payment.callback.out_of_order {
        calls.push(call(result(payment, &Phase::Pending)));
    }
    calls
}
