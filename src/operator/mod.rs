//! Mobile-money operators (ALPHA, BETA, GAMMA, DELTA), each reached through a connector behind
//! one interface. The built-in [`simulator::Simulator`] implements it for the Sandbox (and for
//! Production while no real connector is configured). [`emulator`] is no connector: an HTTP server
//! that speaks the operators' public protocols, with faults, for the connectors' tests.

pub mod emulator;
pub mod registry;
pub mod simulator;

use async_trait::async_trait;

pub use registry::Operators;

use crate::domain::{FailureCode, Kind, Msisdn, OperatorCode, Timestamp, Transaction};

/// What we ask an operator to do.
#[derive(Debug, Clone)]
pub struct OperatorRequest<'a> {
    /// Our reference for this payment, which the operator echoes in callbacks.
    pub reference: &'a str,
    pub kind: Kind,
    pub operator: OperatorCode,
    pub phone: &'a Msisdn,
    pub amount: i64,
    /// ALPHA's one-time code, typed by the payer.
    pub otp_code: Option<&'a str>,
}

/// An operator's answer about a payment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OperatorAnswer {
    Succeeded,
    Failed {
        code: FailureCode,
        reason: String,
    },
    /// Not settled yet: a callback or a later status check will tell.
    Pending,
}

/// Why an operator call did not produce an answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OperatorError {
    /// The operator refused the request outright: nothing will happen.
    #[error("operator rejected the request: {code}: {reason}")]
    Rejected { code: FailureCode, reason: String },
    /// The request never reached the operator (connection refused, DNS): nothing happened.
    #[error("operator unreachable: {0}")]
    Transient(String),
    /// The request may have reached the operator (a timeout after sending): the outcome is
    /// unknown, so the transaction stays `PENDING` for the reconciler, never `FAILED`.
    #[error("operator outcome unknown: {0}")]
    Ambiguous(String),
}

/// One operator connector.
#[async_trait]
pub trait Operator: Send + Sync + 'static {
    /// Starts a collection or a transfer.
    async fn initiate(&self, request: &OperatorRequest<'_>) -> Result<OperatorAnswer, OperatorError>;

    /// Asks where a payment we started stands.
    async fn status(&self, transaction: &Transaction, now: Timestamp) -> Result<OperatorAnswer, OperatorError>;

    /// The callback the operator has made by `now` about a pending payment, if any. Real
    /// connectors receive callbacks over HTTP and answer `None`; the simulator makes them up.
    fn callback(&self, transaction: &Transaction, now: Timestamp) -> Option<OperatorAnswer>;
}
