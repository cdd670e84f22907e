//! Transfers as payouts: the Sandbox rows, what goes on the wire, idempotency, faults, and
//! answers that do not match.

use std::time::Duration;

use serde_json::json;

use super::{assert_failed, assert_refused, request, start, transaction};
use crate::domain::{FailureCode, Kind};
use crate::operator::{Operator, OperatorAnswer};

#[tokio::test]
async fn a_transfer_to_01_succeeds_in_the_answer() {
    let s = start(|_| {}).await;
    let t = transaction(Kind::Transfer, "0700000001", 10_000);
    assert_eq!(s.wave.initiate(&request(&t)).await, Ok(OperatorAnswer::Succeeded));
    let wire = s.admin(&format!("payments/{}", t.id)).await["wire"].clone();
    assert_eq!(
        (&wire["receive_amount"], &wire["currency"], &wire["mobile"]),
        (&json!("10000"), &json!("XOF"), &json!("+2250700000001"))
    );
    assert_eq!(wire["client_reference"], json!(t.reference.as_str()));
    assert_eq!(s.status_now(&t).await, Ok(OperatorAnswer::Succeeded));
}

#[tokio::test]
async fn a_transfer_to_04_is_rejected_and_nothing_was_created() {
    let s = start(|_| {}).await;
    let t = transaction(Kind::Transfer, "0700000004", 10_000);
    assert_refused(&s.wave.initiate(&request(&t)).await, "recipient-account-blocked");
    assert_eq!(s.status_now(&t).await, Ok(OperatorAnswer::NotReceived));
}

#[tokio::test]
async fn a_transfer_to_02_is_processing_then_succeeds() {
    let s = start(|e| e.delay = Duration::from_millis(400)).await;
    let t = transaction(Kind::Transfer, "0500000002", 5_000);
    assert_eq!(s.wave.initiate(&request(&t)).await, Ok(OperatorAnswer::Pending));
    assert_eq!(s.status_now(&t).await, Ok(OperatorAnswer::Pending));
    assert_eq!(s.settled(&t).await, OperatorAnswer::Succeeded);
}

#[tokio::test]
async fn a_transfer_to_03_is_processing_then_fails_with_wave_s_reason() {
    let s = start(|_| {}).await;
    let t = transaction(Kind::Transfer, "0100000003", 5_000);
    assert_eq!(s.wave.initiate(&request(&t)).await, Ok(OperatorAnswer::Pending));
    assert_failed(
        &s.settled(&t).await,
        FailureCode::OperatorRefused,
        "recipient-limit-exceeded",
    );
}

#[tokio::test]
async fn a_transfer_to_06_stays_processing_and_cannot_be_cancelled() {
    let s = start(|_| {}).await;
    let t = transaction(Kind::Transfer, "0700000006", 5_000);
    assert_eq!(s.wave.initiate(&request(&t)).await, Ok(OperatorAnswer::Pending));
    assert_eq!(s.status_now(&t).await, Ok(OperatorAnswer::Pending));
    assert_eq!(s.wave.cancel(&t).await, Ok(()), "nothing to do for a payout");
    assert_eq!(s.status_now(&t).await, Ok(OperatorAnswer::Pending));
}

#[tokio::test]
async fn the_same_transfer_sent_twice_pays_once() {
    let s = start(|_| {}).await;
    let t = transaction(Kind::Transfer, "0700000001", 10_000);
    assert_eq!(s.wave.initiate(&request(&t)).await, Ok(OperatorAnswer::Succeeded));
    assert_eq!(s.wave.initiate(&request(&t)).await, Ok(OperatorAnswer::Succeeded));
    assert_eq!(s.counts(&t.id).await, (2, 1));
}

#[tokio::test]
async fn a_transfer_wave_never_received_is_not_received() {
    let s = start(|_| {}).await;
    let t = transaction(Kind::Transfer, "0700000001", 10_000);
    assert_eq!(s.status_now(&t).await, Ok(OperatorAnswer::NotReceived));
}

#[tokio::test]
async fn a_5xx_or_a_reset_is_ambiguous_and_the_lookup_tells_what_happened() {
    let s = start(|_| {}).await;
    let t = transaction(Kind::Transfer, "0700000001", 10_000);
    s.initiate_ambiguously("wave.payout.create", "status=503", &t).await;
    assert_eq!(s.status_now(&t).await, Ok(OperatorAnswer::NotReceived));
    s.initiate_ambiguously("wave.payout.create", "reset=before", &t).await;
    assert_eq!(s.counts(&t.id).await, (2, 0));
    s.initiate_ambiguously("wave.payout.create", "reset=after", &t).await;
    assert_eq!(s.status_now(&t).await, Ok(OperatorAnswer::Succeeded));
    assert_eq!(s.counts(&t.id).await, (3, 1));
}

#[tokio::test]
async fn a_timeout_after_wave_accepted_is_ambiguous_and_the_payout_is_found() {
    let mut s = start(|_| {}).await;
    let mut settings = super::settings_for(&s.emulator.url, &Default::default());
    settings.timeout = Duration::from_millis(100);
    s.wave = crate::operator::wave::WaveConnector::new(settings).unwrap();
    let t = transaction(Kind::Transfer, "0700000001", 10_000);
    s.initiate_ambiguously("wave.payout.create", "timeout=1s", &t).await;
    assert_eq!(s.status_now(&t).await, Ok(OperatorAnswer::Succeeded));
}

#[tokio::test]
async fn a_payout_of_another_amount_is_never_settled() {
    let s = start(|_| {}).await;
    let sent = transaction(Kind::Transfer, "0700000001", 10_000);
    s.status_for_another_amount(&sent, 1_000).await;
}
