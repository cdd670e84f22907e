//! The fault table (`faults.rs`) on the PayDunya routes: ALPHA's collections with the payer's
//! code and DELTA's transfers, on a gateway that routes both to PayDunya, on SQLite and
//! PostgreSQL. `CASES` says which rows apply, and why the others do not; two rows take another
//! shape with PayDunya's two calls and are written out here: five transport failures (of the
//! creation call) and an initiation that never arrived (its creation lost).

use momo_gateway::domain::{FailureCode, Kind, Status};
use reqwest::StatusCode;

use crate::operators::faults::{run, Fault};
use crate::support::operator_faults::{Faulted, Route, BREAKER_COOL_DOWN, PAYDUNYA_ROUTES};
use momo_test_support::both_backends;

both_backends!(Faulted::paydunya_unreachable => paydunya_refusing_connections_fails_payments_at_once);

/// One test a row of the table.
macro_rules! rows {
    ($($name:ident => $fault:ident),+ $(,)?) => {
        both_backends!(Faulted::paydunya => $($name),+);
        $(async fn $name(f: Faulted) {
            run(&f, Fault::$fault).await
        })+
    };
}

rows!(
    paydunya_refused_credentials_fail_at_once => CredentialsRefused,
    paydunya_refusals_at_initiation_fail_and_are_never_resent => RefusedAtInitiation,
    paydunya_timeouts_after_sending_stay_pending => TimeoutAfterSending,
    paydunya_resets_after_sending_stay_pending => ResetAfterSending,
    paydunya_submissions_never_arrived_are_sent_again_once => NeverArrived,
    paydunya_submissions_lost_twice_fail_not_sent => NeverArrivedTwice,
    paydunya_submissions_found_missing_late_fail_not_sent => NeverArrivedLongAgo,
    paydunya_dropped_notifications_are_made_up_for_by_polling => NoCallback,
    paydunya_duplicated_notifications_settle_once => DuplicatedCallback,
    paydunya_stale_notifications_change_nothing => OutOfOrderCallback,
    paydunya_late_notifications_change_nothing => LateCallback,
    paydunya_notifications_without_our_hash_are_refused => ForgedCallback,
    paydunya_misrouted_notifications_are_ignored => MisroutedCallback,
    paydunya_malformed_notifications_are_refused => MalformedCallback,
    paydunya_untrustworthy_status_answers_settle_nothing => UntrustworthyStatus,
    paydunya_untrustworthy_submission_answers_leave_it_pending => UntrustworthyInitiation,
    paydunya_collections_unconfirmable_at_expiry_stay_pending => StatusUnreachableAtExpiry,
);

async fn paydunya_refusing_connections_fails_payments_at_once(f: Faulted) {
    run(&f, Fault::ConnectionRefused).await
}

both_backends!(
    Faulted::paydunya =>
    five_lost_paydunya_creations_open_the_breaker_until_a_probe_succeeds,
    a_paydunya_creation_that_never_arrived_is_made_again_once,
);

/// The row "5 consecutive transport failures" where PayDunya's calls fail: the invoice or
/// disbursement creation cut five times (each payment `PENDING`, no token recorded, nothing
/// asked to move money) opens the breaker, and the sixth fails at once. After the cool-down the
/// reconciler finds the five never received and makes each again once: paid once (ALPHA's fail
/// `NOT_SENT`: see [`made_again_once`]).
async fn five_lost_paydunya_creations_open_the_breaker_until_a_probe_succeeds(f: Faulted) {
    for route in PAYDUNYA_ROUTES {
        f.fault(creation(route), "reset", 5).await;
        let cut: Vec<String> = (0..5).map(|i| f.id(route, &format!("cut{i}"))).collect();
        for id in &cut {
            f.pending_payment(route, id, "01").await;
            assert_eq!(
                f.record(id).await.carrier.token,
                None,
                "{route}: {id} named nothing yet"
            );
            assert_eq!(
                f.counts(id).await,
                (0, 0),
                "{route}: {id} was never asked to move money"
            );
        }
        let fast = f.id(route, "fast");
        let a = f.create(route, &fast, "01").await;
        assert_eq!(
            a.status,
            StatusCode::SERVICE_UNAVAILABLE,
            "{route}: the breaker is open: {}",
            a.body
        );
        assert_eq!(
            f.counts(&fast).await,
            (0, 0),
            "{route}: the open breaker never called PayDunya"
        );
        f.app.gateway.breaker_clock().advance(BREAKER_COOL_DOWN);
        f.drain().await;
        for id in &cut {
            made_again_once(&f, route, id).await;
        }
        assert_eq!(f.status(&fast).await, "FAILED", "{route}: final stays final");
        f.assert_invariants(&format!("breaker on {route}")).await;
    }
}

/// The row "the initiation never arrived" where PayDunya's creation is lost (a 503 that made
/// nothing): no token is recorded, so the status check answers "never received" without asking
/// PayDunya, and the payment is made again once. An ALPHA collection cannot be: its payer's code
/// was for one attempt and is kept nowhere, so it fails `NOT_SENT` and nothing moved.
async fn a_paydunya_creation_that_never_arrived_is_made_again_once(f: Faulted) {
    for route in PAYDUNYA_ROUTES {
        f.fault(creation(route), "status=503", 1).await;
        let id = f.id(route, "lost-creation");
        f.pending_payment(route, &id, "01").await;
        f.drain().await;
        made_again_once(&f, route, &id).await;
        f.assert_invariants(&format!("a lost creation on {route}")).await;
    }
}

/// After a lost creation, `id` was made again once and paid once; or, an ALPHA collection, whose
/// payer's code is kept nowhere, failed `NOT_SENT` without asking PayDunya to move money.
async fn made_again_once(f: &Faulted, route: Route, id: &str) {
    let t = f.record(id).await;
    if route.code().is_some() {
        assert_eq!(t.status, Status::Failed, "{route}: {id}");
        assert_eq!(t.failure_code, Some(FailureCode::NotSent), "{route}: {id}");
        assert_eq!(f.counts(id).await, (0, 0), "{route}: {id} never asked to move money");
    } else {
        assert_eq!(t.status, Status::Successful, "{route}: {id}");
        assert_eq!(f.counts(id).await, (1, 1), "{route}: {id} made again once, paid once");
    }
}

/// The emulator's endpoint that names a payment before anything moves.
fn creation(route: Route) -> &'static str {
    match route.kind() {
        Kind::Collection => "paydunya.invoice.create",
        _ => "paydunya.disburse.create",
    }
}
