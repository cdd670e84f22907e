//! A pending payment's status check and what it settles: the operator's answer, a resend of a
//! payment it never received, or a failure once "never received" is final. Checks back off as
//! a payment ages (the next one after half its age, at least the reconcile delay and at most
//! an hour), so a backlog does not hammer an operator's status API.

use std::time::Duration;

use super::{missing_for_good_after, missing_for_good_at, outcome_of};
use crate::domain::{Cause, FailureCode, Outcome, Status, Timestamp, TransactionRecord};
use crate::operator::{OperatorAnswer, OperatorError};
use crate::service::payments::pending::FirstSend;
use crate::service::{Payments, ServiceError};
use crate::store::Missing;

/// How old a payment the operator never received may be and still be sent again: a payer
/// asked to approve much later than they started would not expect it.
const RESEND_WITHIN: Duration = Duration::from_secs(600);

/// The longest wait between two checks of one transaction.
const MAX_CHECK_INTERVAL_MS: i64 = 3_600_000;

/// When to ask again about a transaction still pending at `now`.
pub fn next_check(created_at: Timestamp, now: Timestamp, reconcile_after: Duration) -> Timestamp {
    let age = (now.millis() - created_at.millis()).max(0);
    let at_least = (reconcile_after.as_millis() as i64).max(1);
    Timestamp(now.millis() + (age / 2).clamp(at_least, MAX_CHECK_INTERVAL_MS))
}

/// One claimed pending payment: its status asked and settled, or its next check set. `true`
/// when it was settled.
pub async fn visit(payments: &Payments, record: TransactionRecord, now: Timestamp) -> Result<bool, ServiceError> {
    // A collection past its lifetime gets its last check here as in the expiry pass,
    // whichever of the two claims it first.
    if super::expiry::is_expired(payments, &record, now) {
        return super::expiry::expire(payments, &record, now).await;
    }
    let next = match decide(payments, &record, now).await? {
        Decision::Settle(outcome) => {
            return Ok(payments
                .balances()
                .settle_later(&record, outcome, now, None)
                .await?
                .is_some());
        }
        Decision::Nothing => return Ok(false),
        Decision::AskAgain => check_after(payments, &record, now),
        Decision::AskAgainAt(at) => at,
    };
    payments.schedule_check(&record.transaction.id, next).await?;
    Ok(false)
}

/// When to ask again about `record`, still pending at `now`: by its age, and for a payment that
/// expires no later than its expiry, so the last check comes on time.
fn check_after(payments: &Payments, record: &TransactionRecord, now: Timestamp) -> Timestamp {
    let t = &record.transaction;
    let next = next_check(t.created_at, now, payments.config().reconcile.after);
    super::expiry::expires_at(payments, record).map_or(next, |expiry| next.min(expiry))
}

/// What a status check of a pending payment leads to.
enum Decision {
    Settle(Outcome),
    /// Ask again after the usual wait ([`check_after`]).
    AskAgain,
    /// Ask again at this time: when the operator's "not received" becomes final.
    AskAgainAt(Timestamp),
    /// Settled meanwhile by someone else.
    Nothing,
}

impl From<Option<Outcome>> for Decision {
    fn from(outcome: Option<Outcome>) -> Decision {
        outcome.map_or(Decision::AskAgain, Decision::Settle)
    }
}

/// What the operator's answer about a pending payment settles.
async fn decide(payments: &Payments, record: &TransactionRecord, now: Timestamp) -> Result<Decision, ServiceError> {
    let t = &record.transaction;
    let answer = match payments.operator_status(record, now).await {
        Ok(answer) => answer,
        Err(e) => {
            tracing::warn!(reference = %t.reference, error = %e, "status check failed; will ask again");
            return Ok(Decision::AskAgain);
        }
    };
    if answer != OperatorAnswer::NotReceived {
        return Ok(outcome_of(answer, Cause::Reconciled).into());
    }
    // The operator has no such payment: our initiation never reached it, or has not yet. Once
    // no send of ours can still be on its way, a young payment is sent again, once, with the
    // same key (the operator executes it once whichever copy arrives first). Otherwise it fails
    // once "not received" is final. Both act only if the payment is still carried as it was
    // read: a fallback or a token recorded since makes this answer about the wrong carrier.
    let (sent_at, made) = match first_send(payments, record, now).await? {
        Sent::Now(answer) => (now, Some(answer)),
        Sent::Before(at) => (at, None),
        Sent::InFlight(settled_by) => return Ok(Decision::AskAgainAt(settled_by)),
        Sent::Final => return Ok(Decision::Nothing),
    };
    let young = now.millis() - sent_at.millis() <= RESEND_WITHIN.as_millis() as i64;
    let resent = match made {
        Some(answer) => Missing::Marked(answer),
        None if young => payments.resend(record, now).await?,
        None => Missing::Spent,
    };
    Ok(match resent {
        Missing::Moved => Decision::AskAgain,
        Missing::Spent => match missing_for_good_at(payments, record, now).await? {
            Missing::Marked(at) if at > now => Decision::AskAgainAt(at),
            Missing::Marked(_) => Decision::Settle(Outcome {
                status: Status::Failed,
                cause: Cause::NotSent,
                code: Some(FailureCode::NotSent),
                reason: Some("the operator never received the payment; nothing was debited".into()),
            }),
            Missing::Spent => Decision::Nothing,
            Missing::Moved => Decision::AskAgain,
        },
        Missing::Marked(Ok(answer)) => outcome_of(answer, Cause::Reconciled).into(),
        Missing::Marked(Err(OperatorError::Rejected { code, reason })) => Decision::Settle(Outcome {
            status: Status::Failed,
            cause: Cause::Reconciled,
            code: Some(code),
            reason: Some(reason),
        }),
        // Unknown again: the next check asks, and "never received" then fails it once final.
        Missing::Marked(Err(e)) => {
            tracing::warn!(reference = %t.reference, error = %e, "resend failed; will ask again");
            Decision::AskAgain
        }
    })
}

/// Where the first send of a payment the operator does not know stands.
enum Sent {
    /// Made by this visit: a batch's transfer the sender claimed and has not sent.
    Now(Result<OperatorAnswer, OperatorError>),
    /// Made at this time, and over: a creation's, or a batch transfer's, started longer ago
    /// than a send can last.
    Before(Timestamp),
    /// A send that may still be on its way (a creation's, or a batch transfer's): ask again at
    /// this time, when it cannot be any more. Sending it now would make two calls that may
    /// both arrive (a fallback's two connectors, or a resend without the payer's one-time code
    /// refused while the first, with it, pays); failing it would release money the operator
    /// may still pay.
    InFlight(Timestamp),
    /// Settled meanwhile.
    Final,
}

/// The first send of `record`, pending and unknown to its operator at `now`. A payment is
/// first sent by its creation, which starts as its row is committed; a batch's transfer by
/// whoever takes its mark, the payout sender or this visit, so its age counts from that send,
/// not from when its batch was recorded.
async fn first_send(payments: &Payments, record: &TransactionRecord, now: Timestamp) -> Result<Sent, ServiceError> {
    let t = &record.transaction;
    if t.purpose.batch().is_none() {
        return Ok(started_at(payments, t.created_at, now));
    }
    Ok(match payments.first_send(record, now).await? {
        FirstSend::Made(answer) => {
            tracing::warn!(reference = %t.reference, "a batch's transfer claimed but never sent: sent now");
            Sent::Now(answer)
        }
        FirstSend::SentAt(at) => started_at(payments, at, now),
        FirstSend::Final => Sent::Final,
    })
}

/// A send started `at`: over, or in flight until the longest send can last
/// ([`missing_for_good_after`]).
fn started_at(payments: &Payments, at: Timestamp, now: Timestamp) -> Sent {
    let over_at = at.plus(missing_for_good_after(payments.config()));
    if over_at > now {
        Sent::InFlight(over_at)
    } else {
        Sent::Before(at)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checks_back_off_with_age_between_the_reconcile_delay_and_an_hour() {
        let created = Timestamp(0);
        assert_eq!(
            next_check(created, Timestamp(40_000), Duration::from_secs(30)),
            Timestamp(70_000),
            "young: the reconcile delay"
        );
        assert_eq!(
            next_check(created, Timestamp(600_000), Duration::from_secs(30)),
            Timestamp(900_000),
            "ten minutes old: five more"
        );
        assert_eq!(
            next_check(created, Timestamp(86_400_000), Duration::from_secs(30)),
            Timestamp(86_400_000 + 3_600_000),
            "at most an hour"
        );
    }
}
