//! Payments: collections and transfers created (`create.rs`), refunds (`refunds.rs`), what the
//! settlement asks of operators (`pending.rs`), operator callbacks (`callbacks.rs`, one check at
//! a time per payment: `checking.rs`), the payer's BETA page (`checkout.rs`), and what merchants
//! read back of their payments (`accounts.rs`). Settling a payment and moving a balance is
//! `service::balances`.

pub mod accounts;
pub mod callbacks;
pub mod checking;
pub mod checkout;
pub mod create;
mod deliver;
pub mod pending;
pub mod recipients;
pub mod refunds;
mod request;
pub mod send;

pub use request::{Party, PaymentRequest, RecipientCheck, Refunded, Requested};

use std::sync::Arc;

use super::auth::ActiveCredentials;
use super::balances::Balances;
use super::ServiceError;
use crate::config::Config;
use crate::domain::{FeeSchedule, LinkClosed, Msisdn, OperatorCode, TransactionRecord};
use crate::operator::Operators;
use crate::store::{MerchantStore, PaymentStore};
use crate::telemetry::metrics::Metrics;

/// The payments' use cases: the payment store, the operators' connectors, the fees, and the
/// metrics they count into. Cheap to clone: one `Arc`, as every payment's handler clones it
/// (see [`super::Gateway`] for why one).
#[derive(Clone)]
pub struct Payments(Arc<PaymentsParts>);

/// What [`Payments`] holds.
#[derive(Clone)]
pub struct PaymentsParts {
    store: Arc<dyn PaymentStore>,
    /// The payer's page names the merchant it pays.
    merchants: Arc<dyn MerchantStore>,
    config: Arc<Config>,
    operators: Arc<Operators>,
    fees: Arc<FeeSchedule>,
    metrics: Arc<Metrics>,
    /// The tokens' fast path (`Auth`): a credential a creation finds revoked is forgotten there.
    active_credentials: Arc<ActiveCredentials>,
    /// The payments a callback is having checked, so callbacks cannot multiply status calls.
    checking: Arc<checking::Checking>,
    /// What settles payments and moves balances.
    balances: Balances,
}

impl std::ops::Deref for Payments {
    type Target = PaymentsParts;

    fn deref(&self) -> &PaymentsParts {
        &self.0
    }
}

impl Payments {
    pub(super) fn new(
        store: Arc<dyn PaymentStore>,
        merchants: Arc<dyn MerchantStore>,
        config: Arc<Config>,
        operators: Arc<Operators>,
        metrics: Arc<Metrics>,
        active_credentials: Arc<ActiveCredentials>,
        balances: Balances,
    ) -> Payments {
        Payments(Arc::new(PaymentsParts {
            store,
            balances,
            merchants,
            fees: Arc::new(config.fee_schedule()),
            config,
            operators,
            metrics,
            active_credentials,
            checking: Arc::default(),
        }))
    }

    /// The same payments with other operator connectors.
    pub(super) fn with_operators(&self, operators: Arc<Operators>) -> Payments {
        Payments(Arc::new(PaymentsParts {
            operators,
            ..(*self.0).clone()
        }))
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    /// What settles payments and moves balances, for the workers that settle what payments
    /// left pending.
    pub fn balances(&self) -> &Balances {
        &self.balances
    }
}

/// Why a payment was not created, or was created and failed at once.
#[derive(Debug, thiserror::Error)]
pub enum PaymentError {
    /// The merchant's transaction id is used: here is that transaction. No operator was called.
    #[error("transaction id already used")]
    Duplicate(Box<TransactionRecord>),
    /// No connector serves the operator in this environment (Production unrouted): refused
    /// before anything was recorded.
    #[error("{}", crate::operator::unrouted::reason(*.0, *.1))]
    Unrouted(OperatorCode, crate::domain::Environment),
    /// The refund asks what its collection cannot give: it is no `SUCCESSFUL` collection, or
    /// less of it remains. Nothing was written; the text says which.
    #[error("{0}")]
    NotRefundable(String),
    /// The payment link takes no payment now. Nothing was written.
    #[error("{0}")]
    LinkClosed(LinkClosed),
    /// The recipient's number holds no active account with its operator. Nothing was written.
    #[error("{0} holds no active account with this operator: nothing was sent")]
    RecipientInactive(Msisdn),
    /// The recipient could not be checked (the operator did not answer). Nothing was written.
    #[error("the recipient could not be checked with its operator, and nothing was sent: {0}")]
    RecipientUnchecked(String),
    /// The operator is disabled by configuration, for this direction.
    #[error("{0} does not accept this kind of payment here")]
    OperatorDisabled(OperatorCode),
    /// A transfer's total exceeds the available balance. Nothing was written.
    #[error("insufficient available balance")]
    InsufficientFunds,
    /// The operator refused at once: the transaction is `FAILED`.
    #[error("the operator refused the payment")]
    Refused(Box<TransactionRecord>),
    /// The operator could not be reached: the transaction is `FAILED` and nothing was sent.
    #[error("the operator is unavailable")]
    OperatorUnavailable(Box<TransactionRecord>),
    #[error(transparent)]
    Service(#[from] ServiceError),
}

service_errors_from_store!(PaymentError);
