//! The fault table (`faults.rs`) on the PayDunya routes: ALPHA's collections with the payer's
//! code and DELTA's transfers, on a gateway that routes both to PayDunya, on SQLite and
//! PostgreSQL. `CASES` says which rows apply, and why the others do not.

use crate::operators::faults::{run, Fault};
use crate::support::operator_faults::Faulted;
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
