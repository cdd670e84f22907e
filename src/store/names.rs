//! The names the database stores for the domain's enums (the `CHECK` constraints of the
//! migrations list the same). They are part of the schema: renaming
//! one needs a migration, so they live here rather than in the domain.

use super::StoreError;
use crate::domain::ledger::Account;
use crate::domain::{Cause, EventState, FailureCode, Status};

/// The stored value among `all` whose name is `stored`, or `Corrupt` naming the column.
fn parse<T: Copy>(all: &[T], name: fn(T) -> &'static str, column: &str, stored: &str) -> Result<T, StoreError> {
    all.iter()
        .copied()
        .find(|value| name(*value) == stored)
        .ok_or_else(|| StoreError::Corrupt(format!("unknown {column} {stored:?}")))
}

/// The outbox `to_status` of a payout batch's completion event, which rides on the row of the
/// item whose settlement completed the batch (`sql::kinds::transfer`).
pub(super) const BATCH_COMPLETED_EVENT: &str = "BATCH_COMPLETED";

pub(super) fn status(status: Status) -> &'static str {
    match status {
        Status::Pending => "PENDING",
        Status::Successful => "SUCCESSFUL",
        Status::Failed => "FAILED",
    }
}

pub(super) fn parse_status(stored: &str) -> Result<Status, StoreError> {
    parse(
        &[Status::Pending, Status::Successful, Status::Failed],
        status,
        "status",
        stored,
    )
}

pub(super) fn cause(cause: Cause) -> &'static str {
    match cause {
        Cause::Created => "CREATED",
        Cause::OperatorAnswer => "OPERATOR_ANSWER",
        Cause::OperatorCallback => "OPERATOR_CALLBACK",
        Cause::Reconciled => "RECONCILED",
        Cause::Payer => "PAYER",
        Cause::Expired => "EXPIRED",
        Cause::OperatorUnavailable => "OPERATOR_UNAVAILABLE",
        Cause::Admin => "ADMIN",
        Cause::NotSent => "NOT_SENT",
    }
}

pub(super) fn event_state(state: EventState) -> &'static str {
    match state {
        EventState::Pending => "pending",
        EventState::Delivered => "delivered",
        EventState::Failed => "failed",
    }
}

pub(super) fn parse_event_state(stored: &str) -> Result<EventState, StoreError> {
    parse(
        &[EventState::Pending, EventState::Delivered, EventState::Failed],
        event_state,
        "event state",
        stored,
    )
}

/// A ledger account, by the name postings store (`Account::as_str`, which the writers bind).
pub(super) fn parse_account(stored: &str) -> Result<Account, StoreError> {
    parse(
        &[
            Account::Available,
            Account::Reserved,
            Account::OperatorClearing,
            Account::FeeRevenue,
        ],
        Account::as_str,
        "account",
        stored,
    )
}

pub(super) fn failure_code(code: FailureCode) -> &'static str {
    match code {
        FailureCode::PayerDeclined => "PAYER_DECLINED",
        FailureCode::OperatorRefused => "OPERATOR_REFUSED",
        FailureCode::WrongOtp => "WRONG_OTP",
        FailureCode::OperatorUnavailable => "OPERATOR_UNAVAILABLE",
        FailureCode::Expired => "EXPIRED",
        FailureCode::ResolvedByAdmin => "RESOLVED_BY_ADMIN",
        FailureCode::NotSent => "NOT_SENT",
    }
}

pub(super) fn parse_failure_code(stored: &str) -> Result<FailureCode, StoreError> {
    parse(&FailureCode::ALL, failure_code, "failure_code", stored)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failure_codes_round_trip() {
        for code in FailureCode::ALL {
            assert_eq!(parse_failure_code(failure_code(code)).unwrap(), code);
        }
        assert!(parse_failure_code("NOPE").is_err());
    }

    #[test]
    fn statuses_and_event_states_round_trip() {
        for s in [Status::Pending, Status::Successful, Status::Failed] {
            assert_eq!(parse_status(status(s)).unwrap(), s);
        }
        for e in [EventState::Pending, EventState::Delivered, EventState::Failed] {
            assert_eq!(parse_event_state(event_state(e)).unwrap(), e);
        }
        assert!(
            parse_status("SUCCESSFULL").is_err(),
            "a wire spelling is not a stored name"
        );
    }
}
