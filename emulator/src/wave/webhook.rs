//! Wave's webhooks for checkout sessions: a POST of `{"id": "AE_…", "type": …, "data": <the
//! session>}` to the configured URL, signed with `Wave-Signature`. `checkout.session.completed`
//! when paid, `checkout.session.payment_failed` when an attempt fails (the session stays open).
//! Faults: `duplicate` sends each event twice (same event id), `out_of_order` follows a
//! completion with a stale failed attempt, `bad_signature` signs with the wrong secret.

use std::time::Instant;

use reqwest::Method;

use super::checkout::view;
use super::signature::sign;
use super::wire::{Event, LastPaymentError};
use crate::callbacks::Delivery;
use crate::state::{Payment, Phase};
use crate::{mint, Ctx};

const COMPLETED: &str = "checkout.session.completed";
const PAYMENT_FAILED: &str = "checkout.session.payment_failed";

/// The webhooks for `payment`, settled by `now`.
pub fn deliveries(ctx: &Ctx, payment: &Payment, now: Instant) -> Vec<Delivery> {
    let Some(url) = ctx.settings.wave.webhook_url.clone() else {
        return Vec::new();
    };
    let kind = match payment.phase(now) {
        Phase::Succeeded { .. } => COMPLETED,
        Phase::Failed { .. } => PAYMENT_FAILED,
        Phase::Pending | Phase::Expired { .. } => return Vec::new(),
    };
    let session = view(ctx, payment, now);
    let mut events = vec![Event {
        id: mint::event_id(),
        kind,
        data: session.clone(),
    }];
    if payment.callback.duplicate {
        events.push(events[0].clone());
    }
    if payment.callback.out_of_order && kind == COMPLETED {
        let mut stale = session;
        stale.checkout_status = "open";
        stale.payment_status = "processing";
        stale.transaction_id = None;
        stale.when_completed = None;
        stale.last_payment_error = Some(LastPaymentError {
            code: "insufficient-funds".to_string(),
            message: "An earlier attempt failed".to_string(),
        });
        events.push(Event {
            id: mint::event_id(),
            kind: PAYMENT_FAILED,
            data: stale,
        });
    }
    let secret = match payment.callback.bad_signature {
        true => format!("{}-not-the-secret", ctx.settings.wave.webhook_secret),
        false => ctx.settings.wave.webhook_secret.clone(),
    };
    let timestamp = mint::now().unix_timestamp();
    events
        .into_iter()
        .map(|event| {
            let body = serde_json::to_string(&event).unwrap_or_default();
            Delivery {
                method: Method::POST,
                url: url.clone(),
                content_type: "application/json",
                signature: Some(("Wave-Signature", sign(&secret, timestamp, body.as_bytes()))),
                body,
            }
        })
        .collect()
}
