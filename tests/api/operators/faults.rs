//! Every row of the failure table of `docs/operators.md` ("What each fault does"), injected at
//! the operator emulator over HTTP, on the three protocols (`momo-openapi`, `wave-checkout`,
//! `paydunya`) and in both directions (collection, transfer), on SQLite and PostgreSQL. The
//! PayDunya routes run on a gateway of their own (`faults_paydunya.rs`). [`CASES`] says which fault
//! runs on which route; a pair it leaves out is covered by the existing test it names, or does
//! not apply (and it says why). After every case, whatever the fault: nothing left `PENDING`,
//! no payment executed twice at the operator, nothing reserved, and the ledger balanced.
//!
//! The scenarios live in `operator_faults_initiation.rs` (the call that starts a payment),
//! `operator_faults_callbacks.rs` (what the operator sends back) and
//! `operator_faults_answers.rs` (status answers, expiry, and the built-in simulator).

use crate::operators::faults_answers as answers;
use crate::operators::faults_callbacks as callbacks;
use crate::operators::faults_initiation as initiation;
use crate::support::operator_faults::{Faulted, Route, ALL_ROUTES, EVERY_ROUTE};
use crate::support::operator_faults::{
    MomoCollection, MomoTransfer, PaydunyaCollection, PaydunyaDeltaCollection, PaydunyaTransfer, WaveCollection,
    WaveTransfer,
};
use momo_test_support::both_backends;

/// One way an operator misbehaves, as the emulator injects it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// Unreachable at initiation: nothing listens (connection refused).
    ConnectionRefused,
    /// Unreachable at initiation: the credentials are refused (MoMo's token 401/503, Wave's 401/429).
    CredentialsRefused,
    /// 5 consecutive transport failures (connections reset): the breaker opens.
    BreakerOpens,
    /// A 4xx refusal at initiation.
    RefusedAtInitiation,
    /// The operator executes, then answers after our timeout.
    TimeoutAfterSending,
    /// The operator executes, then resets the connection.
    ResetAfterSending,
    /// A 5xx before executing: never arrived; the resend goes through.
    NeverArrived,
    /// Never arrived, and the resend is lost too: `NOT_SENT`.
    NeverArrivedTwice,
    /// Never arrived, found out after 10 minutes: `NOT_SENT`, never resent.
    NeverArrivedLongAgo,
    /// The operator's callback is dropped.
    NoCallback,
    /// Every callback comes twice.
    DuplicatedCallback,
    /// The final callback, then a stale one.
    OutOfOrderCallback,
    /// The callback comes after the reconciler settled the payment.
    LateCallback,
    /// Wrong, missing or same-length token, another route's token, the secret it is derived
    /// from; a signature by another secret, over another body, too old or from the future;
    /// Wave's own webhook badly signed.
    ForgedCallback,
    /// An authenticated callback for an unknown reference, another operator's or environment's.
    MisroutedCallback,
    /// An authenticated callback whose body is not the protocol's.
    MalformedCallback,
    /// Status answers with another amount or currency, an unknown status, malformed JSON.
    UntrustworthyStatus,
    /// The same lies in the answer to the initiation (Wave answers a creation with a body).
    UntrustworthyInitiation,
    /// The status lookup fails when a collection expires.
    StatusUnreachableAtExpiry,
    /// The operator knows nothing of a collection when it expires: its initiation is on its
    /// way, or was lost.
    UnknownAtExpiry,
}

/// Which fault runs on which route.
pub const CASES: &[(Fault, &[Route])] = &[
    // operator unreachable at initiation
    (Fault::ConnectionRefused, &EVERY_ROUTE),
    (Fault::CredentialsRefused, &EVERY_ROUTE),
    // 5 consecutive transport failures. PayDunya: a SOFTPAY or submission cut after its
    // invoice call answered leaves the operator up (its breaker rightly stays closed); five cut
    // creation calls open it: faults_paydunya::five_lost_paydunya_creations_open_the_breaker_until_a_probe_succeeds.
    (Fault::BreakerOpens, &ALL_ROUTES),
    // 4xx refusal at initiation. Wave payouts: operators_wave::wave_payouts_settle_at_once_or_are_refused
    // (row 04, Wave's own 422).
    (
        Fault::RefusedAtInitiation,
        &[
            MomoCollection,
            MomoTransfer,
            WaveCollection,
            PaydunyaCollection,
            PaydunyaDeltaCollection,
            PaydunyaTransfer,
        ],
    ),
    // 5xx, timeout or reset after sending. A MoMo transfer's timeout:
    // operators_momo::a_timeout_after_sending_stays_pending_until_the_operator_answers. The
    // emulator's 5xx executes nothing: it is the next row's.
    (
        Fault::TimeoutAfterSending,
        &[
            MomoCollection,
            WaveCollection,
            WaveTransfer,
            PaydunyaCollection,
            PaydunyaDeltaCollection,
            PaydunyaTransfer,
        ],
    ),
    (Fault::ResetAfterSending, &EVERY_ROUTE),
    // the initiation never arrived. A MoMo transfer resent: operators_momo::
    // an_initiation_that_never_arrived_is_sent_again_once and operators_crash (after a crash).
    // A PayDunya collection whose SOFTPAY never arrived has its invoice's token recorded, and the
    // invoice stays `pending` at PayDunya: not "never received", so it is never resent and
    // expires as any unpaid collection. One whose invoice call was lost has no token: "never
    // received", made again once (faults_paydunya::a_paydunya_creation_that_never_arrived_is_made_again_once,
    // and operators::crash::a_crash_before_the_paydunya_call_is_recovered_by_sending_it_once).
    (
        Fault::NeverArrived,
        &[MomoCollection, WaveCollection, WaveTransfer, PaydunyaTransfer],
    ),
    (
        Fault::NeverArrivedTwice,
        &[
            MomoCollection,
            MomoTransfer,
            WaveCollection,
            WaveTransfer,
            PaydunyaTransfer,
        ],
    ),
    (
        Fault::NeverArrivedLongAgo,
        &[
            MomoCollection,
            MomoTransfer,
            WaveCollection,
            WaveTransfer,
            PaydunyaTransfer,
        ],
    ),
    // no callback. Row 05 (settles without a callback): operators_momo::
    // without_a_callback_the_reconciler_polls (MoMo collection), operators_wave::
    // wave_webhooks_settle_collections_through_a_status_check (Wave collection); Wave payouts
    // never call back: operators_wave::wave_payouts_settle_at_once_or_are_refused.
    (
        Fault::NoCallback,
        &[
            MomoTransfer,
            PaydunyaCollection,
            PaydunyaDeltaCollection,
            PaydunyaTransfer,
        ],
    ),
    // callback duplicated, late or out of order. Wave sends no payout webhook to duplicate or
    // reorder; a late (replayed) one is signed by hand.
    (
        Fault::DuplicatedCallback,
        &[
            MomoCollection,
            MomoTransfer,
            WaveCollection,
            PaydunyaCollection,
            PaydunyaDeltaCollection,
            PaydunyaTransfer,
        ],
    ),
    (
        Fault::OutOfOrderCallback,
        &[
            MomoCollection,
            MomoTransfer,
            WaveCollection,
            PaydunyaCollection,
            PaydunyaDeltaCollection,
            PaydunyaTransfer,
        ],
    ),
    (Fault::LateCallback, &EVERY_ROUTE),
    // callback with a wrong or missing token or signature, or too old. Already:
    // operators_momo::forged_and_unknown_callbacks_settle_nothing (a MoMo collection's wrong
    // token), operators_wave::forged_wave_webhooks_are_refused (unsigned, zero signature).
    (Fault::ForgedCallback, &EVERY_ROUTE),
    // callback for an unknown reference, another operator's or environment's. Already: a MoMo
    // collection's unknown reference (operators_momo::forged_and_unknown_callbacks_settle_nothing).
    (Fault::MisroutedCallback, &EVERY_ROUTE),
    // malformed callback body. Already: a MoMo collection's `{not json` (same test).
    (Fault::MalformedCallback, &EVERY_ROUTE),
    // status answer with another amount or currency, an unknown status, malformed JSON. Already:
    // the four on a MoMo collection (operators_momo::answers_that_cannot_be_trusted_are_counted_and_settle_nothing),
    // another amount and an unknown status on a Wave payout
    // (operators_wave::payout_answers_that_cannot_be_trusted_settle_nothing): see `answers::lies`.
    (
        Fault::UntrustworthyStatus,
        &[
            MomoTransfer,
            WaveCollection,
            WaveTransfer,
            PaydunyaCollection,
            PaydunyaDeltaCollection,
            PaydunyaTransfer,
        ],
    ),
    // MoMo answers an initiation 202 with no body, PayDunya's SOFTPAY only `success` and a
    // message: nothing to lie in.
    (
        Fault::UntrustworthyInitiation,
        &[WaveCollection, WaveTransfer, PaydunyaTransfer],
    ),
    // status lookup unreachable at expiry: transfers never expire (they wait for review).
    (
        Fault::StatusUnreachableAtExpiry,
        &[
            MomoCollection,
            WaveCollection,
            PaydunyaCollection,
            PaydunyaDeltaCollection,
        ],
    ),
    // PayDunya: a collection whose SOFTPAY is lost is `pending` at PayDunya, not unknown (above).
    (Fault::UnknownAtExpiry, &[MomoCollection, WaveCollection]),
];

/// Runs `fault` on each of its routes this gateway serves, one after the other, and checks what
/// must hold after each.
pub async fn run(f: &Faulted, fault: Fault) {
    let (_, routes) = CASES
        .iter()
        .find(|(listed, _)| *listed == fault)
        .expect("every fault is in CASES");
    let here: Vec<Route> = routes.iter().copied().filter(|r| f.routes.contains(r)).collect();
    assert!(!here.is_empty(), "{fault:?} runs on none of this gateway's routes");
    for route in here {
        match fault {
            Fault::ConnectionRefused => initiation::connection_refused(f, route).await,
            Fault::CredentialsRefused => initiation::credentials_refused(f, route).await,
            Fault::BreakerOpens => initiation::breaker_opens(f, route).await,
            Fault::RefusedAtInitiation => initiation::refused(f, route).await,
            Fault::TimeoutAfterSending => initiation::after_sending(f, route, "timeout=1s").await,
            Fault::ResetAfterSending => initiation::after_sending(f, route, "reset=after").await,
            Fault::NeverArrived => initiation::never_arrived(f, route).await,
            Fault::NeverArrivedTwice => initiation::never_arrived_twice(f, route).await,
            Fault::NeverArrivedLongAgo => initiation::never_arrived_long_ago(f, route).await,
            Fault::NoCallback => callbacks::dropped(f, route).await,
            Fault::DuplicatedCallback => callbacks::duplicated(f, route).await,
            Fault::OutOfOrderCallback => callbacks::out_of_order(f, route).await,
            Fault::LateCallback => callbacks::late(f, route).await,
            Fault::ForgedCallback => callbacks::forged(f, route).await,
            Fault::MisroutedCallback => callbacks::misrouted(f, route).await,
            Fault::MalformedCallback => callbacks::malformed(f, route).await,
            Fault::UntrustworthyStatus => answers::untrustworthy_status(f, route).await,
            Fault::UntrustworthyInitiation => answers::untrustworthy_initiation(f, route).await,
            Fault::StatusUnreachableAtExpiry => answers::unreachable_at_expiry(f, route).await,
            Fault::UnknownAtExpiry => answers::unknown_at_expiry(f, route).await,
        }
        f.assert_invariants(&format!("{fault:?} on {route}")).await;
    }
}

both_backends!(Faulted::unreachable => an_operator_refusing_connections_fails_payments_at_once_with_503);

both_backends!(
    Faulted::spawn =>
    refused_credentials_fail_payments_at_once_with_nothing_sent,
    five_transport_failures_open_the_breaker_until_a_probe_succeeds,
    a_4xx_at_initiation_fails_the_payment_and_nothing_is_resent,
    a_timeout_after_sending_leaves_the_payment_pending_until_it_settles,
    a_reset_after_sending_leaves_the_payment_pending_until_it_settles,
    an_initiation_that_never_arrived_is_sent_again_once_and_settles,
    an_initiation_lost_twice_fails_not_sent,
    an_initiation_found_missing_after_ten_minutes_fails_not_sent_without_a_resend,
    a_dropped_callback_is_made_up_for_by_polling,
    a_duplicated_callback_settles_once,
    a_stale_callback_after_the_final_one_changes_nothing,
    a_callback_after_the_reconciler_settled_changes_nothing,
    forged_callbacks_are_refused_and_settle_nothing,
    misrouted_callbacks_are_ignored_and_settle_nothing,
    malformed_callbacks_are_refused_and_settle_nothing,
    untrustworthy_status_answers_settle_nothing,
    untrustworthy_initiation_answers_leave_the_payment_pending,
    a_collection_whose_status_cannot_be_asked_at_expiry_stays_pending,
    a_collection_unknown_to_its_operator_at_expiry_waits_until_no_initiation_can_arrive,
);

async fn an_operator_refusing_connections_fails_payments_at_once_with_503(f: Faulted) {
    run(&f, Fault::ConnectionRefused).await
}

async fn refused_credentials_fail_payments_at_once_with_nothing_sent(f: Faulted) {
    run(&f, Fault::CredentialsRefused).await
}

async fn five_transport_failures_open_the_breaker_until_a_probe_succeeds(f: Faulted) {
    run(&f, Fault::BreakerOpens).await
}

async fn a_4xx_at_initiation_fails_the_payment_and_nothing_is_resent(f: Faulted) {
    run(&f, Fault::RefusedAtInitiation).await
}

async fn a_timeout_after_sending_leaves_the_payment_pending_until_it_settles(f: Faulted) {
    run(&f, Fault::TimeoutAfterSending).await
}

async fn a_reset_after_sending_leaves_the_payment_pending_until_it_settles(f: Faulted) {
    run(&f, Fault::ResetAfterSending).await
}

async fn an_initiation_that_never_arrived_is_sent_again_once_and_settles(f: Faulted) {
    run(&f, Fault::NeverArrived).await
}

async fn an_initiation_lost_twice_fails_not_sent(f: Faulted) {
    run(&f, Fault::NeverArrivedTwice).await
}

async fn an_initiation_found_missing_after_ten_minutes_fails_not_sent_without_a_resend(f: Faulted) {
    run(&f, Fault::NeverArrivedLongAgo).await
}

async fn a_dropped_callback_is_made_up_for_by_polling(f: Faulted) {
    run(&f, Fault::NoCallback).await
}

async fn a_duplicated_callback_settles_once(f: Faulted) {
    run(&f, Fault::DuplicatedCallback).await
}

async fn a_stale_callback_after_the_final_one_changes_nothing(f: Faulted) {
    run(&f, Fault::OutOfOrderCallback).await
}

async fn a_callback_after_the_reconciler_settled_changes_nothing(f: Faulted) {
    run(&f, Fault::LateCallback).await
}

async fn forged_callbacks_are_refused_and_settle_nothing(f: Faulted) {
    run(&f, Fault::ForgedCallback).await
}

async fn misrouted_callbacks_are_ignored_and_settle_nothing(f: Faulted) {
    run(&f, Fault::MisroutedCallback).await
}

async fn malformed_callbacks_are_refused_and_settle_nothing(f: Faulted) {
    run(&f, Fault::MalformedCallback).await
}

async fn untrustworthy_status_answers_settle_nothing(f: Faulted) {
    run(&f, Fault::UntrustworthyStatus).await
}

async fn untrustworthy_initiation_answers_leave_the_payment_pending(f: Faulted) {
    run(&f, Fault::UntrustworthyInitiation).await
}

async fn a_collection_whose_status_cannot_be_asked_at_expiry_stays_pending(f: Faulted) {
    run(&f, Fault::StatusUnreachableAtExpiry).await
}

async fn a_collection_unknown_to_its_operator_at_expiry_waits_until_no_initiation_can_arrive(f: Faulted) {
    run(&f, Fault::UnknownAtExpiry).await
}
