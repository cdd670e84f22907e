//! Collections as checkout sessions: the Sandbox rows, what goes on the wire, idempotency,
//! faults, answers that do not match, and expiry.

use std::time::Duration;

use serde_json::json;

use super::{
    assert_failed, assert_refused, closed_port, request, settings_for, start, transaction, Setup, ERROR_URL,
    SUCCESS_URL,
};
use crate::domain::{FailureCode, Kind, Transaction};
use crate::operator::wave::WaveConnector;
use crate::operator::{Operator, OperatorAnswer, OperatorError};
use momo_operator_emulator::EmulatorSettings;

/// A created session: the payer approves on Wave's page, whose URL the answer carries.
fn awaits_payer(answer: Result<OperatorAnswer, OperatorError>) -> String {
    match answer {
        Ok(OperatorAnswer::AwaitingPayer { launch_url }) => {
            assert!(launch_url.contains("/c/cos-"), "Wave's launch page: {launch_url}");
            launch_url
        }
        other => panic!("expected a session awaiting its payer, got {other:?}"),
    }
}

/// Sends a collection of `amount` francs from `phone`: a session awaiting its payer.
async fn open_session(s: &Setup, phone: &str, amount: i64) -> Transaction {
    let t = transaction(Kind::Collection, phone, amount);
    awaits_payer(s.wave.initiate(&request(&t)).await);
    t
}

#[tokio::test]
async fn a_collection_from_01_is_a_session_for_the_payer_and_is_paid_at_once() {
    let s = start(|_| {}).await;
    let t = open_session(&s, "0700000001", 2500).await;
    let sent = s.admin(&format!("payments/{}", t.id)).await;
    assert_eq!(sent["flow"], "checkout", "keyed by the idempotency key: {sent}");
    let wire = &sent["wire"];
    assert_eq!(
        (&wire["amount"], &wire["currency"], &wire["client_reference"]),
        (&json!("2500"), &json!("XOF"), &json!(t.reference.as_str()))
    );
    assert_eq!(
        (&wire["restrict_payer_mobile"], &wire["success_url"], &wire["error_url"]),
        (&json!("+2250700000001"), &json!(SUCCESS_URL), &json!(ERROR_URL))
    );
    assert_eq!(s.settled(&t).await, OperatorAnswer::Succeeded);
}

#[tokio::test]
async fn a_collection_from_02_stays_pending_until_the_payer_approves() {
    let s = start(|e| e.delay = Duration::from_millis(400)).await;
    let t = open_session(&s, "0700000002", 1000).await;
    assert!(awaiting_payer(&s.status_now(&t).await));
    assert_eq!(s.settled(&t).await, OperatorAnswer::Succeeded);
}

#[tokio::test]
async fn a_failed_attempt_from_04_is_not_final_until_the_session_expires() {
    let s = start(|_| {}).await;
    let t = open_session(&s, "0500000004", 1500).await;
    let wire = s.admin(&format!("payments/{}", t.id)).await["wire"].clone();
    assert_eq!(wire["last_payment_error"]["code"], "insufficient-funds");
    // The payer may still try again with enough money: Wave keeps the session open.
    assert!(awaiting_payer(&s.status_now(&t).await));
    assert_eq!(s.wave.cancel(&t).await, Ok(()));
    assert_failed(
        &s.status_now(&t).await.unwrap(),
        FailureCode::Expired,
        "insufficient-funds",
    );
}

#[tokio::test]
async fn a_collection_from_06_stays_pending_and_expires_when_cancelled_twice_over() {
    let s = start(|_| {}).await;
    let t = open_session(&s, "0100000006", 700).await;
    assert!(awaiting_payer(&s.status_now(&t).await));
    assert_eq!(s.wave.cancel(&t).await, Ok(()));
    assert!(matches!(
        s.status_now(&t).await,
        Ok(OperatorAnswer::Failed {
            code: FailureCode::Expired,
            ..
        })
    ));
    assert_eq!(s.wave.cancel(&t).await, Ok(()), "already expired is fine");
}

#[tokio::test]
async fn a_paid_collection_is_never_expired() {
    let s = start(|_| {}).await;
    let t = transaction(Kind::Collection, "0700000001", 2500);
    s.wave.initiate(&request(&t)).await.unwrap();
    assert_eq!(s.settled(&t).await, OperatorAnswer::Succeeded);
    assert!(matches!(s.wave.cancel(&t).await, Err(OperatorError::Ambiguous(_))));
    assert_eq!(s.status_now(&t).await, Ok(OperatorAnswer::Succeeded));
}

#[tokio::test]
async fn a_payer_who_pays_during_the_expiry_keeps_the_collection_paid() {
    let s = start(|_| {}).await;
    let t = transaction(Kind::Collection, "0700000006", 2500);
    s.wave.initiate(&request(&t)).await.unwrap();
    // The payer pays 60 ms from now; the expire call is held 150 ms before Wave looks at the
    // session, so the search sees it open and the expire finds it paid (409).
    s.admin_post(
        &format!("payments/{}/settle", t.id),
        json!({"outcome": "succeeded", "after_ms": 60}),
    )
    .await;
    s.fault_once("wave.checkout.expire", "latency=150ms").await;
    assert!(matches!(s.wave.cancel(&t).await, Err(OperatorError::Ambiguous(_))));
    assert_eq!(s.status_now(&t).await, Ok(OperatorAnswer::Succeeded));
}

#[tokio::test]
async fn the_same_transaction_sent_twice_makes_one_session() {
    let s = start(|_| {}).await;
    let t = open_session(&s, "0700000006", 2500).await;
    awaits_payer(s.wave.initiate(&request(&t)).await);
    assert_eq!(s.counts(&t.id).await, (2, 1));
    let sessions = s.admin("payments").await;
    assert_eq!(sessions.as_array().unwrap().len(), 1, "{sessions}");
}

#[tokio::test]
async fn a_collection_wave_never_received_is_not_received_and_needs_no_cancel() {
    let s = start(|_| {}).await;
    let t = transaction(Kind::Collection, "0700000001", 2500);
    assert_eq!(s.status_now(&t).await, Ok(OperatorAnswer::NotReceived));
    assert_eq!(s.wave.cancel(&t).await, Ok(()));
}

#[tokio::test]
async fn a_5xx_on_creation_is_ambiguous_though_nothing_was_executed() {
    let s = start(|_| {}).await;
    let t = transaction(Kind::Collection, "0700000001", 2500);
    s.initiate_ambiguously("wave.checkout.create", "status=503", &t).await;
    assert_eq!(s.counts(&t.id).await, (1, 0));
    // The reconciler's lookup then learns that nothing arrived, so a resend is safe.
    assert_eq!(s.status_now(&t).await, Ok(OperatorAnswer::NotReceived));
}

/// A reset after the request was written looks the same from here whether Wave acted first
/// (`reset=after`) or not (`reset=before`): both must be ambiguous, and the lookup tells them
/// apart later.
#[tokio::test]
async fn a_reset_is_ambiguous_and_the_resend_executes_once() {
    let s = start(|_| {}).await;
    let t = transaction(Kind::Collection, "0700000001", 2500);
    s.initiate_ambiguously("wave.checkout.create", "reset=before", &t).await;
    assert_eq!(s.status_now(&t).await, Ok(OperatorAnswer::NotReceived));
    awaits_payer(s.wave.initiate(&request(&t)).await);
    assert_eq!(s.counts(&t.id).await, (2, 1));

    let after = transaction(Kind::Collection, "0700000006", 2500);
    s.initiate_ambiguously("wave.checkout.create", "reset=after", &after)
        .await;
    assert!(
        awaiting_payer(&s.status_now(&after).await),
        "the page the lost answer had, found by the lookup"
    );
}

#[tokio::test]
async fn a_closed_port_is_transient_since_nothing_was_sent() {
    let settings = EmulatorSettings::default();
    let url = format!("http://127.0.0.1:{}", closed_port().await);
    let wave = WaveConnector::new(settings_for(&url, &settings)).unwrap();
    let t = transaction(Kind::Collection, "0700000001", 2500);
    assert!(matches!(
        wave.initiate(&request(&t)).await,
        Err(OperatorError::Transient(_))
    ));
}

#[tokio::test]
async fn a_session_for_another_amount_is_never_settled() {
    let s = start(|_| {}).await;
    let sent = transaction(Kind::Collection, "0700000001", 2500);
    let stored = s.status_for_another_amount(&sent, 25_000).await;
    assert!(matches!(
        s.wave.cancel(&stored).await,
        Err(OperatorError::BadAnswer { .. })
    ));
}

#[tokio::test]
async fn a_refused_creation_is_rejected_and_a_wrong_key_is_transient() {
    let s = start(|e| e.wave.currency = "GMD".into()).await;
    let t = transaction(Kind::Collection, "0700000001", 2500);
    assert_refused(&s.wave.initiate(&request(&t)).await, "request-validation-error");
    let mut settings = settings_for(&s.emulator.url, &EmulatorSettings::default());
    settings.api_key = "not-the-key".into();
    let wrong = WaveConnector::new(settings).unwrap().initiate(&request(&t)).await;
    assert!(
        matches!(&wrong, Err(OperatorError::Transient(m)) if m.contains("no-matching-api-key")),
        "{wrong:?}"
    );
}

/// An open session: the payer's page, as the lookup found it.
fn awaiting_payer(answer: &Result<OperatorAnswer, OperatorError>) -> bool {
    matches!(answer, Ok(OperatorAnswer::AwaitingPayer { launch_url }) if launch_url.contains("/c/cos-"))
}
