//! Deciding what settles a pending payment, whoever holds it: a status check's answer, a
//! payment its operator never received (`status.rs`), a collection past its lifetime
//! (`expiry.rs`), a callback's answer ([`outcome_of`]). The workers of `reconcile` only lease
//! pending payments and hand each to [`visit`]; the settlement itself is `Balances::settle`,
//! one database transaction with its ledger entry and webhook event.

mod expiry;
mod status;

use std::time::Duration;

pub use self::expiry::{expires_at, is_expired};
pub use self::status::{next_check, visit};
use crate::domain::{Timestamp, TransactionRecord};
pub use crate::service::payments::pending::outcome_of;
use crate::service::{Payments, ServiceError};
use crate::store::Missing;

/// Room for a visit's database reads and writes beyond its operator calls. A lease that runs
/// out while its visit still writes costs a second status call by another pass, never a second
/// settlement: settlements are conditional.
const LEASE_MARGIN: Duration = Duration::from_secs(2);

/// How long a claimed status check is reserved for the pass that claimed it: as long as the
/// visits claimed together can take, and no longer, so that the claims of a process killed
/// mid-pass are free again soon after (each visit's operator calls are bounded by the longest
/// operator timeout, and the visits of one claim run at once).
pub fn check_lease(config: &crate::config::Config) -> Duration {
    config.connectors.longest_timeout() * calls_per_visit(config) + LEASE_MARGIN
}

/// Operator calls one visit makes at most: the status lookup, then a cancellation or a send
/// (`ConnectorSettings::longest_status`, `longest_send`: MoMo's token calls and its retry
/// after a 401, PayDunya's two calls, each connector of a fallback).
fn calls_per_visit(config: &crate::config::Config) -> u32 {
    config.connectors.longest_status() + config.connectors.longest_send()
}

/// How long after a payment was first found missing at its operator (or sent again) "not
/// received" is final. A send of ours starts about when a lookup can first see the row: the
/// creation's (or the payout sender's) as soon as its row is committed, a resend just after
/// noting the time. Each ends within the longest operator timeout, or is cut with its process
/// (the operator then has all of it or none). Two timeouts and the lease's margin cover a send
/// that started up to a timeout late (a starved process) and an operator recording a request
/// it has just received. Before then, an operator without the payment may only not have it yet.
pub fn missing_for_good_after(config: &crate::config::Config) -> Duration {
    check_lease(config)
}

/// When the operator's "not received" about the pending `record`, asked at `now`, is final:
/// [`missing_for_good_after`] the time it was first found missing (`now`, if this is the first
/// time). [`Missing::Spent`]: no longer pending, so nothing is left to decide;
/// [`Missing::Moved`]: carried by another connector or token than `record` was read with, so
/// the answer was about a carrier that no longer has it, and decides nothing.
pub(crate) async fn missing_for_good_at(
    payments: &Payments,
    record: &TransactionRecord,
    now: Timestamp,
) -> Result<Missing<Timestamp>, ServiceError> {
    let wait = missing_for_good_after(payments.config());
    Ok(match payments.missing_since(record, now).await? {
        Missing::Marked(since) => Missing::Marked(since.plus(wait)),
        Missing::Spent => Missing::Spent,
        Missing::Moved => Missing::Moved,
    })
}
