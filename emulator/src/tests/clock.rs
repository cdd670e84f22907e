//! The emulator's clock over the admin API: what is due "after the delay" (statuses, callbacks,
//! webhooks, a late callback, a session's expiry, a token's lifetime) happens as soon as the
//! clock is advanced past it, with a Sandbox delay of an hour that no test could wait for. The
//! advance answers once the callbacks it made due are made, so nothing here waits or polls.

use std::time::Duration;

use serde_json::{json, Value};

use super::momo::reference;
use super::wave::{signed_by, SECRET};
use super::{answer, start, Harness};

/// A Sandbox delay no test waits for.
const HOUR: Duration = Duration::from_secs(3600);

/// An emulator whose payments settle an hour after they arrive, and whose tokens and checkout
/// sessions outlive that hour.
async fn slow() -> Harness {
    start(|s| {
        s.delay = HOUR;
        s.momo.token_ttl = 3 * HOUR;
        s.wave.session_ttl = 2 * HOUR;
    })
    .await
}

impl Harness {
    /// `POST /_emulator/clock` with `{"advance_ms": ms}`; the clock it answers.
    pub async fn advance(&self, ms: u64) -> Value {
        let (status, clock) = self.advance_with(&json!({ "advance_ms": ms })).await;
        assert_eq!(status, 200, "{clock}");
        clock
    }

    pub async fn advance_with(&self, body: &Value) -> (u16, Value) {
        let response = self
            .http
            .post(self.url("/_emulator/clock"))
            .json(body)
            .send()
            .await
            .unwrap();
        answer(response).await
    }
}

#[tokio::test]
async fn the_clock_starts_on_the_wall_clock_and_only_moves_forward() {
    let h = start(|_| {}).await;
    let clock = h.admin("clock").await;
    assert_eq!(
        (&clock["offset_ms"], &clock["callbacks_in_flight"]),
        (&json!(0), &json!(0))
    );
    let shown = time::OffsetDateTime::parse(
        clock["now"].as_str().unwrap(),
        &time::format_description::well_known::Rfc3339,
    )
    .unwrap();
    assert!((shown - time::OffsetDateTime::now_utc()).abs() < time::Duration::seconds(5));
    h.advance(90_000).await;
    assert_eq!(h.advance(30_000).await["offset_ms"], 120_000, "advances add up");
    assert_eq!(h.admin("clock").await["offset_ms"], 120_000);
    for refused in [
        json!({"advance_ms": -5}),
        json!({"advance_ms": "5"}),
        json!({"back_ms": 5}),
        json!({"advance_ms": 4_000_000_000_000_u64}),
    ] {
        let (status, body) = h.advance_with(&refused).await;
        assert_eq!(status, 400, "{refused}: {body}");
    }
    assert_eq!(
        h.admin("clock").await["offset_ms"],
        120_000,
        "nothing moved on a refusal"
    );
}

#[tokio::test]
async fn a_payment_due_after_the_delay_settles_and_calls_back_when_the_clock_passes_it() {
    let h = slow().await;
    let momo = h.momo("collection").await;
    let (paid, refused, silent) = (reference(), reference(), reference());
    momo.initiate(&paid, "2250700000002").await;
    momo.initiate(&refused, "2250700000003").await;
    momo.initiate(&silent, "2250700000005").await;
    h.advance(HOUR.as_millis() as u64 - 60_000).await;
    for r in [&paid, &refused, &silent] {
        assert_eq!(momo.status(r).await["status"], "PENDING", "a minute before the delay");
    }
    assert!(h.received().is_empty(), "no callback before it is due");
    let clock = h.advance(60_000).await;
    assert_eq!(clock["callbacks_in_flight"], 0);
    let calls = h.received();
    assert_eq!(
        calls.len(),
        2,
        "both callbacks made when the advance answered: {calls:#?}"
    );
    let mut bodies: Vec<Value> = calls.iter().map(|c| c.json()).collect();
    bodies.sort_by_key(|b| b["status"].to_string());
    assert_eq!(
        (&bodies[0]["status"], &bodies[0]["reason"]),
        (&json!("FAILED"), &json!("APPROVAL_REJECTED"))
    );
    assert_eq!(bodies[1]["status"], "SUCCESSFUL");
    assert_eq!(momo.status(&paid).await, bodies[1], "the callback is the status");
    assert_eq!(
        momo.status(&silent).await["status"],
        "SUCCESSFUL",
        "row 05: no callback"
    );
    let shown = h.admin(&format!("payments/{paid}")).await;
    assert_eq!(shown["status"], "succeeded");
    let at = |field: &str| {
        time::OffsetDateTime::parse(
            shown[field].as_str().unwrap(),
            &time::format_description::well_known::Rfc3339,
        )
        .unwrap()
    };
    let took = at("settled_at") - at("created_at");
    assert!(
        (took - time::Duration::HOUR).abs() <= time::Duration::seconds(1),
        "settled an hour after arrival on the emulator's clock: {took}"
    );
}

#[tokio::test]
async fn a_late_callback_waits_for_its_own_time_and_a_late_approval_for_its_own() {
    let h = slow().await;
    let momo = h.momo("collection").await;
    let (late, approved) = (reference(), reference());
    let delayed = answer(
        momo.initiate_with(&late, &momo.body("2250700000001"), Some("callback_delay=10m"))
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(delayed.0, 202);
    let approving = answer(
        momo.initiate_with(&approved, &momo.body("2250700000003"), Some("approve_after=20m"))
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(approving.0, 202);
    assert_eq!(momo.status(&late).await["status"], "SUCCESSFUL", "row 01: at once");
    h.advance(9 * 60_000).await;
    assert!(h.received().is_empty(), "its callback is ten minutes late");
    h.advance(60_000).await;
    assert_eq!(h.received().len(), 1, "made as the clock reached it");
    assert_eq!(momo.status(&approved).await["status"], "PENDING");
    h.advance(10 * 60_000).await;
    assert_eq!(momo.status(&approved).await["status"], "SUCCESSFUL");
    let calls = h.received();
    assert_eq!(calls.len(), 2, "{calls:#?}");
    assert_eq!(calls[1].path, format!("/momo/{approved}"));
}

#[tokio::test]
async fn a_checkout_completes_with_a_webhook_signed_on_the_wall_clock_and_an_unpaid_one_expires() {
    let h = slow().await;
    let paid = h.checkout("order-1", Some("+2250700000002")).await;
    h.advance(HOUR.as_millis() as u64).await;
    let calls = h.received();
    assert_eq!(calls.len(), 1, "{calls:#?}");
    let event = calls[0].json();
    assert_eq!(
        (&event["type"], &event["data"]["id"]),
        (&json!("checkout.session.completed"), &paid["id"])
    );
    let signature = calls[0].signature.as_deref().unwrap();
    assert!(signed_by(SECRET, signature, &calls[0].body));
    let t: i64 = signature[2..signature.find(',').unwrap()].parse().unwrap();
    let wall = time::OffsetDateTime::now_utc().unix_timestamp();
    assert!(
        (wall - t).abs() < 5,
        "t= is the time of sending, an hour behind the emulator"
    );
    let open = h.checkout("order-2", None).await;
    let path = format!("/v1/checkout/sessions/{}", open["id"].as_str().unwrap());
    h.advance(119 * 60_000).await;
    assert_eq!(
        h.wave_get(&path).await.1["checkout_status"],
        "open",
        "a minute of its two hours left"
    );
    h.advance(60_000).await;
    let expired = h.wave_get(&path).await.1;
    assert_eq!(
        (&expired["checkout_status"], &expired["payment_status"]),
        (&json!("expired"), &json!("cancelled"))
    );
    assert_eq!(expired["when_completed"], open["when_expires"]);
    assert_eq!(h.received().len(), 1, "no event when a session expires");
}

#[tokio::test]
async fn a_payout_processing_for_the_delay_succeeds_when_the_clock_passes_it() {
    let h = slow().await;
    let body = json!({"currency": "XOF", "receive_amount": "1000", "mobile": "+2250700000002",
                      "client_reference": "p-1"});
    let (status, payout) = h.wave_post("/v1/payout", &body, &[("idempotency-key", "k-1")]).await;
    assert_eq!((status, &payout["status"]), (200, &json!("processing")));
    h.advance(HOUR.as_millis() as u64).await;
    let path = format!("/v1/payout/{}", payout["id"].as_str().unwrap());
    assert_eq!(h.wave_get(&path).await.1["status"], "succeeded");
}

#[tokio::test]
async fn an_access_token_runs_out_on_the_emulators_clock() {
    let h = slow().await;
    let momo = h.momo("collection").await;
    let r = reference();
    momo.initiate(&r, "2250700000006").await;
    h.advance(3 * HOUR.as_millis() as u64 - 1_000).await;
    assert_eq!(momo.status_with(&r, None).await.0, 200, "a second left");
    h.advance(1_000).await;
    assert_eq!(momo.status_with(&r, None).await.0, 401, "expired");
    assert_eq!(h.momo("collection").await.status(&r).await["status"], "PENDING");
}
