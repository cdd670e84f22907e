//! Webhooks as the emulator sends them, received by a small server in the test and handed to
//! `verify_callback` as the gateway's callback route would (hand-signed cases are in
//! `callback.rs`).

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::Bytes;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::Router;
use tokio::net::TcpListener;

use super::{request, start, transaction, Setup};
use crate::domain::{Kind, Timestamp, Transaction};
use crate::operator::{CallbackRejected, CallbackRequest, Operator};

/// A webhook's `Wave-Signature` and body.
type Webhook = (Option<String>, Vec<u8>);

/// Each webhook received.
type Log = Arc<Mutex<Vec<Webhook>>>;

async fn record(State(log): State<Log>, headers: HeaderMap, body: Bytes) -> &'static str {
    let signature = headers
        .get("wave-signature")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    log.lock().unwrap().push((signature, body.to_vec()));
    "ok"
}

/// A collection from `phone` sent to an emulator whose webhooks go to a receiver (with `fault`
/// injected at the session's creation, if any), and the first `n` webhooks received.
async fn collection_webhooks(fault: Option<&str>, phone: &str, n: usize) -> (Setup, Transaction, Vec<Webhook>) {
    let log: Log = Arc::default();
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/webhooks/wave", listener.local_addr().unwrap());
    let app = Router::new().fallback(record).with_state(log.clone());
    tokio::spawn(async move { axum::serve(listener, app).await });
    let s = start(|e| e.wave.webhook_url = Some(url)).await;
    if let Some(fault) = fault {
        s.fault_once("wave.checkout.create", fault).await;
    }
    let t = transaction(Kind::Collection, phone, 2500);
    s.wave.initiate(&request(&t)).await.unwrap();
    let got = webhooks(&log, n).await;
    (s, t, got)
}

/// Waits (up to 3 s) for `n` webhooks.
async fn webhooks(log: &Log, n: usize) -> Vec<Webhook> {
    let deadline = Instant::now() + Duration::from_secs(3);
    loop {
        let got = log.lock().unwrap().clone();
        if got.len() >= n || Instant::now() > deadline {
            assert!(got.len() >= n, "expected {n} webhooks, got {}", got.len());
            return got;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// What the connector makes of webhook `received`, now.
fn verified(s: &Setup, (signature, body): &Webhook) -> Result<String, CallbackRejected> {
    s.wave.verify_callback(&callback(signature, body))
}

fn callback<'a>(signature: &'a Option<String>, body: &'a [u8]) -> CallbackRequest<'a> {
    CallbackRequest {
        token: None,
        signature: signature.as_deref(),
        body,
        now: Timestamp::now(),
    }
}

#[tokio::test]
async fn a_webhook_wave_signs_names_our_reference() {
    let (s, t, got) = collection_webhooks(None, "0700000001", 1).await;
    assert_eq!(verified(&s, &got[0]), Ok(t.reference.to_string()));
    // The same webhook replayed six minutes later.
    let (signature, body) = &got[0];
    let mut replayed = callback(signature, body);
    replayed.now = Timestamp::from_millis(Timestamp::now().millis() + 6 * 60 * 1000);
    assert!(matches!(
        s.wave.verify_callback(&replayed),
        Err(CallbackRejected::Unauthenticated(_))
    ));
}

#[tokio::test]
async fn a_duplicate_with_the_same_signature_is_refused_as_a_replay() {
    let (s, t, got) = collection_webhooks(Some("callback=duplicate"), "0700000004", 2).await;
    assert_eq!(got[0], got[1], "the emulator sends the same webhook twice");
    assert_eq!(verified(&s, &got[0]), Ok(t.reference.to_string()));
    assert!(matches!(
        verified(&s, &got[1]),
        Err(CallbackRejected::Unauthenticated(_))
    ));
}

#[tokio::test]
async fn a_webhook_signed_with_another_secret_is_refused() {
    let (s, _, got) = collection_webhooks(Some("callback=bad_signature"), "0700000001", 1).await;
    assert!(matches!(
        verified(&s, &got[0]),
        Err(CallbackRejected::Unauthenticated(_))
    ));
}
