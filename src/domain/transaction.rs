//! Transactions and their state machine: `PENDING` to `SUCCESSFUL` or `FAILED`, and nothing
//! ever leaves a final state.

use std::fmt;

use super::environment::Tenant;
use super::fees::Amounts;
use super::ids::{CustomerId, Reference, TransactionId, TransactionKey};
use super::msisdn::Msisdn;
use super::operator::OperatorCode;
use super::purpose::{Kind, Purpose};
use super::time::Timestamp;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Status {
    Pending,
    Successful,
    Failed,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Pending => "PENDING",
            Status::Successful => "SUCCESSFUL",
            Status::Failed => "FAILED",
        }
    }

    pub fn parse(raw: &str) -> Option<Status> {
        match raw {
            "PENDING" => Some(Status::Pending),
            "SUCCESSFUL" => Some(Status::Successful),
            "FAILED" => Some(Status::Failed),
            _ => None,
        }
    }

    pub fn is_final(self) -> bool {
        match self {
            Status::Pending => false,
            Status::Successful | Status::Failed => true,
        }
    }
}

/// Why a transaction changed state; recorded with every transition.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Cause {
    /// The merchant created it.
    Created,
    /// The operator answered the creation request.
    OperatorAnswer,
    /// The operator called back.
    OperatorCallback,
    /// The reconciler asked the operator.
    Reconciled,
    /// The payer approved or declined on the BETA launch page.
    Payer,
    /// A collection pending past its time to live.
    Expired,
    /// The operator could not be reached, so nothing was sent.
    OperatorUnavailable,
    /// An administrator settled it by hand.
    Admin,
    /// The operator never received the initiation (a crash before or during the call).
    NotSent,
}

impl Cause {
    pub fn as_str(self) -> &'static str {
        match self {
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
}

impl fmt::Display for Cause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A transition that the state machine refuses.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("a {from:?} transaction cannot become {to:?}")]
pub struct InvalidTransition {
    pub from: Status,
    pub to: Status,
}

/// The only transitions there are: from `PENDING` to a final state.
pub fn check_transition(from: Status, to: Status) -> Result<(), InvalidTransition> {
    match (from, to) {
        (Status::Pending, Status::Successful) | (Status::Pending, Status::Failed) => Ok(()),
        (Status::Pending, Status::Pending) | (Status::Successful, _) | (Status::Failed, _) => {
            Err(InvalidTransition { from, to })
        }
    }
}

/// Why a payment failed, in the gateway's own words. Connectors translate their operator's
/// codes into these; the human detail travels beside it as the reason.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FailureCode {
    /// The payer declined, or could not pay (no funds, no approval).
    PayerDeclined,
    /// The operator refused the payment (a transfer's recipient, limits, rules).
    OperatorRefused,
    /// ALPHA's one-time code was wrong.
    WrongOtp,
    /// The operator could not be reached, so nothing was sent.
    OperatorUnavailable,
    /// A collection the payer never approved in time.
    Expired,
    /// An administrator failed it by hand after review.
    ResolvedByAdmin,
    /// The operator never received the payment, so nothing moved.
    NotSent,
}

impl FailureCode {
    /// Every code (the store reads stored ones back with it): a new code fails to compile in
    /// `every_failure_code_is_in_all` below until it is listed here.
    pub const ALL: [FailureCode; 7] = [
        FailureCode::PayerDeclined,
        FailureCode::OperatorRefused,
        FailureCode::WrongOtp,
        FailureCode::OperatorUnavailable,
        FailureCode::Expired,
        FailureCode::ResolvedByAdmin,
        FailureCode::NotSent,
    ];
}

impl fmt::Display for FailureCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}

/// A final outcome and its detail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    pub status: Status,
    pub cause: Cause,
    /// Why it failed; `None` for a success.
    pub code: Option<FailureCode>,
    pub reason: Option<String>,
}

/// A stored transaction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Transaction {
    /// Internal id.
    pub id: TransactionKey,
    /// The service reference: 10 characters `A-Z0-9`, unique over the whole service. Also the
    /// reference we give the operator.
    pub reference: Reference,
    pub tenant: Tenant,
    /// The merchant's own identifier, unique per tenant.
    pub transaction_id: TransactionId,
    /// What it is for: its kind, and what only that kind carries.
    pub purpose: Purpose,
    pub operator: OperatorCode,
    /// The deployment's alias of the operator the merchant sent (`ORANGE_MONEY_CI`), shown
    /// instead of the generation's code; `None` when a reference code was sent.
    pub operator_alias: Option<String>,
    pub phone: Msisdn,
    /// The number as the client sent it (v2 `number_user` echoes it).
    pub phone_as_sent: String,
    pub amounts: Amounts,
    pub status: Status,
    pub customer_id: CustomerId,
    /// The payer's or recipient's name and email as given with this payment.
    pub name: String,
    pub email: Option<String>,
    pub failure_code: Option<FailureCode>,
    pub failure_reason: Option<String>,
    pub created_at: Timestamp,
    /// Null until the first change after creation.
    pub updated_at: Option<Timestamp>,
    /// The connector that carries it, and its id there, once either is recorded.
    pub carrier: Carrier,
}

/// Which connector carries a payment and what its protocol calls it. Both are recorded before
/// the call that could move money, so a status check, a callback or a refund goes to the
/// connector that was asked, and nowhere else.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Carrier {
    /// The connector's protocol name (`paydunya`). `None`: the only connector of its route,
    /// recorded only when the route names more than one or the protocol hands out a token.
    pub connector: Option<String>,
    /// The payment's id at that protocol where it hands one out before anything moves
    /// (PayDunya's invoice and disbursement tokens). `None`: never asked to move money there.
    pub token: Option<String>,
}

impl Transaction {
    pub fn kind(&self) -> Kind {
        self.purpose.kind()
    }

    /// The operator code to show: the alias the merchant sent, else the generation's `code`.
    pub fn operator_code(&self, code: fn(OperatorCode) -> &'static str) -> &str {
        self.operator_alias.as_deref().unwrap_or_else(|| code(self.operator))
    }
}

/// The service reference alphabet.
pub const REFERENCE_ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
pub const REFERENCE_LEN: usize = 10;

/// The length of a payer's page token (of the reference alphabet): about 165 bits.
pub const CHECKOUT_TOKEN_LEN: usize = 32;

#[cfg(test)]
mod tests {
    use super::FailureCode;

    /// Fails to compile when a code is added without a place in `FailureCode::ALL`'s list
    /// below, and fails when the list and `ALL` part.
    #[test]
    fn every_failure_code_is_in_all() {
        let listed = |code: FailureCode| match code {
            FailureCode::PayerDeclined => 0,
            FailureCode::OperatorRefused => 1,
            FailureCode::WrongOtp => 2,
            FailureCode::OperatorUnavailable => 3,
            FailureCode::Expired => 4,
            FailureCode::ResolvedByAdmin => 5,
            FailureCode::NotSent => 6,
        };
        for (i, code) in FailureCode::ALL.into_iter().enumerate() {
            assert_eq!(listed(code), i, "{code}");
        }
    }

    use super::*;

    #[test]
    fn only_pending_moves_and_only_to_a_final_state() {
        let all = [Status::Pending, Status::Successful, Status::Failed];
        for from in all {
            for to in all {
                let allowed = from == Status::Pending && to.is_final();
                assert_eq!(check_transition(from, to).is_ok(), allowed, "{from:?} -> {to:?}");
            }
        }
    }

    #[test]
    fn names_round_trip() {
        for s in [Status::Pending, Status::Successful, Status::Failed] {
            assert_eq!(Status::parse(s.as_str()), Some(s));
        }
        for k in [Kind::Collection, Kind::Transfer] {
            assert_eq!(Kind::parse(k.as_str()), Some(k));
        }
        assert_eq!(Kind::parse("transfert"), Some(Kind::Transfer));
    }
}
