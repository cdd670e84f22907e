//! Makes the calls back: when a payment settles (plus any `callback_delay`) on the emulator's
//! clock (so at once when the clock is advanced past it), the payment's protocol says what to
//! send (its [`CallsBack`], which the protocol's module gave the payment when it made it: MoMo's
//! status to `X-Callback-Url`, Wave's signed event to the webhook URL, shaped by the payment's
//! callback faults) and this module sends it once, with no retry, and logs it for
//! `/_emulator/callbacks`. It knows no protocol. Only loopback targets are called unless the
//! settings allow others.

use std::net::IpAddr;
use std::time::{Duration, Instant};

use reqwest::{Method, Url};

use super::state::{CallbackRecord, Payment};
use super::{mint, Ctx};

/// One HTTP call back.
#[derive(Debug, Clone)]
pub struct Delivery {
    pub method: Method,
    pub url: String,
    pub body: String,
    /// `application/json`, or PayDunya's form.
    pub content_type: &'static str,
    /// The protocol's signature header and its value (Wave's `Wave-Signature`).
    pub signature: Option<(&'static str, String)>,
}

/// What a payment's protocol calls back about it, settled by `now`: none while it is pending,
/// or where the protocol documents no callback.
pub type CallsBack = fn(&Ctx, &Payment, Instant) -> Vec<Delivery>;

/// A protocol's [`CallsBack`] for the flows it never calls back about.
pub fn never(_: &Ctx, _: &Payment, _: Instant) -> Vec<Delivery> {
    Vec::new()
}

/// What it takes to call back about a payment once it settles.
#[derive(Debug, Clone)]
pub struct Ticket {
    id: String,
    generation: u64,
    due: Option<Instant>,
}

impl Ticket {
    /// The callback a payment's plan calls for, if any (none for row 05 or a payment that never
    /// settles).
    pub fn of(payment: &Payment) -> Ticket {
        let resolution = &payment.resolution;
        let due = resolution
            .at
            .filter(|_| resolution.notify)
            .map(|at| at + payment.callback.delay.unwrap_or(Duration::ZERO));
        Ticket {
            id: payment.id.clone(),
            generation: resolution.generation,
            due,
        }
    }
}

/// Sends the ticket's callbacks when they are due on the emulator's clock. Until they are done
/// with they count as scheduled, so that an advance of the clock can wait for those it made due.
pub fn schedule(ctx: &Ctx, ticket: Ticket) {
    let Some(due) = ticket.due else {
        return;
    };
    let serial = ctx.lock().schedule(due);
    let done = Done {
        ctx: ctx.clone(),
        serial,
    };
    tokio::spawn(async move {
        let ctx = &done.ctx;
        ctx.clock.sleep_until(due).await;
        deliver(ctx, &ticket).await;
    });
}

/// Unschedules a callback when its task ends, however it ends.
struct Done {
    ctx: Ctx,
    serial: u64,
}

impl Drop for Done {
    fn drop(&mut self) {
        self.ctx.lock().unschedule(self.serial);
        self.ctx.callbacks_done.notify_waiters();
    }
}

/// Waits until every callback due by `now` on the emulator's clock is done with, or `limit` has
/// passed; how many are still being made.
pub async fn made_by(ctx: &Ctx, now: Instant, limit: Duration) -> usize {
    let deadline = tokio::time::Instant::now() + limit;
    loop {
        let done = ctx.callbacks_done.notified();
        tokio::pin!(done);
        done.as_mut().enable();
        let due = ctx.lock().callbacks_due(now);
        if due == 0 {
            return 0;
        }
        if tokio::time::timeout_at(deadline, done).await.is_err() {
            return ctx.lock().callbacks_due(now);
        }
    }
}

async fn deliver(ctx: &Ctx, ticket: &Ticket) {
    let (deliveries, dropped) = {
        let state = ctx.lock();
        let Some(payment) = state.get(&ticket.id) else {
            return;
        };
        if payment.resolution.generation != ticket.generation {
            return;
        }
        let now = ctx.clock.now();
        let deliveries = (payment.calls_back)(ctx, payment, now);
        (deliveries, payment.callback.drop)
    };
    for delivery in deliveries {
        if dropped {
            record(
                ctx,
                &ticket.id,
                &delivery,
                None,
                Some("dropped by the callback=drop fault".to_string()),
            );
        } else {
            send(ctx, &ticket.id, delivery).await;
        }
    }
}

/// Whether `url` names a loopback host.
fn is_loopback(url: &Url) -> bool {
    match url.host_str() {
        Some(host) => {
            let bare = host.trim_start_matches('[').trim_end_matches(']');
            bare.eq_ignore_ascii_case("localhost") || bare.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
        }
        None => false,
    }
}

async fn send(ctx: &Ctx, id: &str, delivery: Delivery) {
    let url = match Url::parse(&delivery.url) {
        Ok(url) => url,
        Err(e) => return record(ctx, id, &delivery, None, Some(format!("invalid URL: {e}"))),
    };
    if !ctx.settings.allow_remote_callbacks && !is_loopback(&url) {
        let why = "not sent: only loopback targets are called (allow_remote_callbacks is off)";
        return record(ctx, id, &delivery, None, Some(why.to_string()));
    }
    let mut request = ctx
        .http
        .request(delivery.method.clone(), url)
        .timeout(ctx.settings.callback_timeout)
        .header(reqwest::header::CONTENT_TYPE, delivery.content_type)
        .body(delivery.body.clone());
    if let Some((header, signature)) = &delivery.signature {
        request = request.header(*header, signature);
    }
    match request.send().await {
        Ok(answer) => record(ctx, id, &delivery, Some(answer.status().as_u16()), None),
        Err(e) => {
            tracing::debug!(payment = id, error = %e, "callback failed; the operator does not retry");
            record(ctx, id, &delivery, None, Some(e.to_string()))
        }
    }
}

fn record(ctx: &Ctx, id: &str, delivery: &Delivery, status: Option<u16>, error: Option<String>) {
    ctx.lock().log_callback(CallbackRecord {
        payment: id.to_string(),
        method: delivery.method.to_string(),
        url: delivery.url.clone(),
        body: delivery.body.clone(),
        signature: delivery.signature.as_ref().map(|(_, value)| value.clone()),
        status,
        error,
        at: mint::rfc3339(ctx.clock.wall()),
    });
}
