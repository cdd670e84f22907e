//! Mobile-money operators (ALPHA, BETA, GAMMA, DELTA), each reached through a connector behind
//! one interface. The built-in [`simulator::Simulator`] implements it for the Sandbox (and for
//! Production while no real connector is configured). The operator emulator, which the connectors'
//! tests speak to over HTTP, is a crate of its own (`emulator/`): it shares no code with these.

pub mod answer;
pub mod breaker;
pub mod http;
pub mod momo;
pub mod paydunya;
pub mod registry;
pub mod simulator;
pub mod unrouted;
pub mod wave;

use async_trait::async_trait;

pub use registry::{Connector, Operators};

use crate::domain::{Amount, FailureCode, Kind, Msisdn, OperatorCode, Purpose, ReturnUrls, Timestamp, Transaction};

/// What we ask an operator to do.
#[derive(Debug, Clone)]
pub struct OperatorRequest<'a> {
    /// Our reference for this payment (`ref`), which the operator echoes in callbacks.
    pub reference: &'a str,
    /// The operator-side idempotency key: the transaction's internal id (a UUID in v4 form,
    /// `domain::ids::new_transaction_id`), stored with the `PENDING` row before any call, so a
    /// resend after a crash is the same payment.
    pub operator_reference: &'a str,
    pub operator: OperatorCode,
    pub phone: &'a Msisdn,
    /// The payer's or recipient's name and email as given with the payment (PayDunya asks them).
    pub name: &'a str,
    pub email: Option<&'a str>,
    pub amount: Amount,
    pub purpose: Instruction<'a>,
    /// The payment's id at this connector's protocol, where [`Operator::prepare`] gave one and
    /// the gateway recorded it.
    pub token: Option<&'a str>,
}

impl<'a> OperatorRequest<'a> {
    /// What the operator is asked for the stored `t`: `purpose` for `amount`, under the token
    /// the gateway recorded for it, if any.
    pub fn of(t: &'a Transaction, amount: Amount, purpose: Instruction<'a>) -> OperatorRequest<'a> {
        OperatorRequest {
            reference: &t.reference,
            operator_reference: &t.id,
            operator: t.operator,
            phone: &t.phone,
            name: &t.name,
            email: t.email.as_deref(),
            amount,
            purpose,
            token: t.carrier.token.as_deref(),
        }
    }

    pub fn kind(&self) -> Kind {
        self.purpose.kind()
    }

    /// ALPHA's one-time code, where a collection carries one.
    pub fn otp_code(&self) -> Option<&str> {
        self.purpose.otp_code()
    }

    /// Where a collection's hosted page sends the payer back.
    pub fn return_urls(&self) -> Option<&ReturnUrls> {
        match self.purpose {
            Instruction::Collection { return_urls, .. } => Some(return_urls),
            Instruction::Transfer | Instruction::Refund(_) => None,
        }
    }
}

/// What the operator is asked to do with the money, and what only that kind sends.
#[derive(Debug, Clone, Copy)]
pub enum Instruction<'a> {
    Collection {
        /// ALPHA's one-time code, typed by the payer (`None` when resent: it is never stored).
        otp_code: Option<&'a str>,
        /// Where a hosted payment page sends the payer after paying, or after a failed attempt.
        return_urls: &'a ReturnUrls,
    },
    Transfer,
    Refund(RefundOf<'a>),
}

impl<'a> Instruction<'a> {
    /// What the operator is asked for a payment stored with `purpose`: a collection's code
    /// (typed by the payer, never stored: `None` when sent again) and return URLs, or the
    /// collection a refund gives back (`refund_of`, which the use case reads before sending).
    pub fn of(
        purpose: &'a Purpose,
        otp_code: Option<&'a str>,
        refund_of: Option<RefundOf<'a>>,
    ) -> Option<Instruction<'a>> {
        Some(match purpose {
            Purpose::Collection(collection) => Instruction::Collection {
                otp_code,
                return_urls: &collection.return_urls,
            },
            Purpose::Transfer(_) => Instruction::Transfer,
            Purpose::Refund(_) => Instruction::Refund(refund_of?),
        })
    }

    pub fn kind(&self) -> Kind {
        match self {
            Instruction::Collection { .. } => Kind::Collection,
            Instruction::Transfer => Kind::Transfer,
            Instruction::Refund(_) => Kind::Refund,
        }
    }

    pub fn otp_code(&self) -> Option<&str> {
        match self {
            Instruction::Collection { otp_code, .. } => *otp_code,
            Instruction::Transfer | Instruction::Refund(_) => None,
        }
    }
}

/// The collection a refund gives back, as its operator knows it.
#[derive(Debug, Clone, Copy)]
pub struct RefundOf<'a> {
    /// Its `ref`, which the operator holds as its own reference (MoMo's `externalId`, Wave's
    /// `client_reference`).
    pub reference: &'a str,
    /// Its operator-side idempotency key (MoMo's `X-Reference-Id`, which a refund names as
    /// `referenceIdToRefund`).
    pub operator_reference: &'a str,
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
    /// Not settled yet, and the payer approves on the operator's page at `launch_url` (an
    /// initiation, or a status check of a payment still open on such a page).
    AwaitingPayer {
        launch_url: String,
    },
    /// The operator has no payment with this reference: the initiation never reached it (a
    /// crash between our `PENDING` commit and the call). Only a status check answers this.
    NotReceived,
}

/// What an operator says of a mobile-money number before money is sent to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AccountHolder {
    /// An active account; its holder's name where the operator gives one.
    Active { name: Option<String> },
    /// No active account at this number: money sent there would not arrive, or reach a stranger.
    Inactive,
    /// The operator does not say (its protocol has no such lookup).
    Unknown,
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
    /// The operator answered, but with something we cannot take at its word (malformed, an
    /// unknown status, another amount or currency than we sent): like `Ambiguous`, nothing is
    /// settled on it, and it is counted by kind.
    #[error("operator answer refused ({kind}): {detail}")]
    BadAnswer { kind: BadAnswer, detail: String },
}

impl OperatorError {
    pub fn bad_answer(kind: BadAnswer, detail: impl Into<String>) -> OperatorError {
        OperatorError::BadAnswer {
            kind,
            detail: detail.into(),
        }
    }
}

/// What was wrong with an operator's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum BadAnswer {
    /// Not the JSON the protocol sends.
    Malformed,
    /// A status the protocol does not define.
    UnknownStatus,
    /// Another amount than we sent.
    AmountMismatch,
    /// Another currency than we sent.
    CurrencyMismatch,
    /// Longer than `MOMO_OPERATOR_MAX_ANSWER_BYTES`: not read to its end.
    TooLarge,
}

impl BadAnswer {
    /// The metrics label.
    pub fn name(self) -> &'static str {
        match self {
            BadAnswer::Malformed => "malformed",
            BadAnswer::UnknownStatus => "unknown_status",
            BadAnswer::AmountMismatch => "amount_mismatch",
            BadAnswer::CurrencyMismatch => "currency_mismatch",
            BadAnswer::TooLarge => "too_large",
        }
    }
}

impl std::fmt::Display for BadAnswer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// An operator's callback as it reached us over HTTP.
#[derive(Debug, Clone, Copy)]
pub struct CallbackRequest<'a> {
    /// The `token` query parameter of the callback URL we gave the operator.
    pub token: Option<&'a str>,
    /// The protocol's signature header, where it has one (`Wave-Signature`).
    pub signature: Option<&'a str>,
    pub body: &'a [u8],
    pub now: Timestamp,
}

/// Why a callback is refused before anything is looked up.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CallbackRejected {
    /// Not from the operator: no or a wrong token or signature, or too old (a replay).
    #[error("callback not authenticated: {0}")]
    Unauthenticated(String),
    /// Authenticated, but not a body this protocol sends.
    #[error("malformed callback: {0}")]
    Malformed(String),
    /// This connector receives no callbacks.
    #[error("this operator sends no callbacks here")]
    Unsupported,
}

/// Compares two secrets in time that does not depend on where they differ. Hand-written:
/// one comparison does not earn a crate.
pub fn same_secret(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.bytes().zip(b.bytes()).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// A kind of payment this connector's protocol has no call for: refused, nothing sent. The
/// gateway asks [`Operator::refunds`] before it reserves anything, so reaching this is a fault
/// of ours, never the payer's.
pub fn unserved(kind: Kind) -> OperatorError {
    OperatorError::Rejected {
        code: FailureCode::OperatorRefused,
        reason: format!("this operator's protocol has no call for a {}", kind.as_str()),
    }
}

/// One operator connector.
#[async_trait]
pub trait Operator: Send + Sync + 'static {
    /// Asks the protocol for the payment's id before anything moves, where it hands one out
    /// first (PayDunya's invoice or disbursement token): the gateway records it, then calls
    /// [`initiate`](Self::initiate) with it, so a status check can always name the payment and
    /// a payment without a recorded token was never asked to move money. The default: none.
    async fn prepare(&self, _request: &OperatorRequest<'_>) -> Result<Option<String>, OperatorError> {
        Ok(None)
    }

    /// Whether [`prepare`](Self::prepare) calls the operator: one that does not is neither
    /// refused by an open breaker nor counted as an answer that closes it.
    fn prepares(&self) -> bool {
        false
    }

    /// Starts a collection, a transfer or a refund: the connector's method for that instruction.
    /// A connector names only the instructions its protocol serves; the others are refused
    /// before anything is sent.
    async fn initiate(&self, request: &OperatorRequest<'_>) -> Result<OperatorAnswer, OperatorError> {
        match request.purpose {
            Instruction::Collection { .. } => self.collect(request).await,
            Instruction::Transfer => self.transfer(request).await,
            Instruction::Refund(collection) => self.refund(request, collection).await,
        }
    }

    /// Asks the payer for money (with [`OperatorRequest::otp_code`] where the payer typed one).
    async fn collect(&self, request: &OperatorRequest<'_>) -> Result<OperatorAnswer, OperatorError> {
        Err(unserved(request.kind()))
    }

    /// Sends money to the recipient.
    async fn transfer(&self, request: &OperatorRequest<'_>) -> Result<OperatorAnswer, OperatorError> {
        Err(unserved(request.kind()))
    }

    /// Gives `collection`'s money back to its payer.
    async fn refund(
        &self,
        request: &OperatorRequest<'_>,
        _collection: RefundOf<'_>,
    ) -> Result<OperatorAnswer, OperatorError> {
        Err(unserved(request.kind()))
    }

    /// Cancels a payment still pending at the operator, where the protocol allows it (a
    /// checkout session can be expired; a push request cannot). Called before a collection
    /// expires; the default does nothing.
    async fn cancel(&self, _transaction: &Transaction) -> Result<(), OperatorError> {
        Ok(())
    }

    /// Asks where a payment we started stands: the connector's lookup for its kind.
    async fn status(&self, transaction: &Transaction, now: Timestamp) -> Result<OperatorAnswer, OperatorError> {
        match transaction.purpose {
            Purpose::Collection(_) => self.collection_status(transaction, now).await,
            Purpose::Transfer(_) => self.transfer_status(transaction, now).await,
            Purpose::Refund(_) => self.refund_status(transaction, now).await,
        }
    }

    async fn collection_status(
        &self,
        transaction: &Transaction,
        _now: Timestamp,
    ) -> Result<OperatorAnswer, OperatorError> {
        Err(unserved(transaction.kind()))
    }

    async fn transfer_status(
        &self,
        transaction: &Transaction,
        _now: Timestamp,
    ) -> Result<OperatorAnswer, OperatorError> {
        Err(unserved(transaction.kind()))
    }

    async fn refund_status(&self, transaction: &Transaction, _now: Timestamp) -> Result<OperatorAnswer, OperatorError> {
        Err(unserved(transaction.kind()))
    }

    /// Whether `phone` holds an active account with the operator, and whose. Asked before money
    /// is sent to a number; nothing is sent by asking. The default: the protocol cannot tell.
    async fn account_holder(&self, _operator: OperatorCode, _phone: &Msisdn) -> Result<AccountHolder, OperatorError> {
        Ok(AccountHolder::Unknown)
    }

    /// Whether a collection from `operator`'s payers needs the one-time code they obtained on
    /// their phone (ALPHA over PayDunya): one without it is refused before anything is recorded.
    fn needs_code(&self, _operator: OperatorCode) -> bool {
        false
    }

    /// Whether the protocol gives a payment back at all. Where it does not, the gateway refuses
    /// a refund of a payment it carried before anything is reserved.
    fn refunds(&self) -> bool {
        true
    }

    /// Whether the operator gives part of a payment back. Where it refunds only in full, the
    /// gateway refuses a partial refund before anything is reserved.
    fn refunds_in_part(&self) -> bool {
        true
    }

    /// Whether the payer approves on a page the gateway serves (the simulator's BETA launch
    /// page) rather than with the operator.
    fn hosts_payer_page(&self) -> bool {
        false
    }

    /// Authenticates a callback and reads which payment (our `ref`) it is about. The callback
    /// is only a hint: the gateway then asks the operator for the status before settling.
    fn verify_callback(&self, _request: &CallbackRequest<'_>) -> Result<String, CallbackRejected> {
        Err(CallbackRejected::Unsupported)
    }

    /// The callback the operator has made by `now` about a pending payment, if any. Real
    /// connectors receive callbacks over HTTP and answer `None`; the simulator makes them up.
    fn callback(&self, transaction: &Transaction, now: Timestamp) -> Option<OperatorAnswer>;
}
