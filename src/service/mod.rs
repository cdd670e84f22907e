//! Use cases, called by HTTP handlers, the admin command line and workers.
//!
//! [`Gateway`] holds what every use case needs; each file adds the `impl Gateway` block of one
//! family of use cases.

/// A use case's own error takes a store error as any use case does, through its `Service`
/// arm. Coherence allows no blanket impl over the use cases' error types, so a macro writes
/// each; defined before the modules, as a `macro_rules!` is seen only below it.
macro_rules! service_errors_from_store {
    ($error:ident) => {
        impl From<$crate::store::StoreError> for $error {
            fn from(e: $crate::store::StoreError) -> Self {
                $error::Service(e.into())
            }
        }
    };
}

pub mod activity;
pub mod auth;
pub mod balances;
pub mod credentials;
pub mod customers;
pub mod dashboard;
pub mod gauges;
pub mod idempotency;
pub mod links;
pub mod merchants;
pub mod payments;
pub mod payouts;
pub mod rate_limit;
pub mod recipients;
pub mod reports;
pub mod settlement;
pub mod webhooks;

use std::sync::Arc;

use crate::config::{Config, WebhookSettings};
use crate::operator::breaker::BreakerClock;
use crate::operator::Operators;
use crate::service::rate_limit::RateLimits;
use crate::store::{Store, StoreError};
use crate::telemetry::metrics::Metrics;
use crate::webhook::dispatcher::Dispatcher;

/// What the reconciler's loops ask the store for, a page or a claim at a time.
pub use crate::store::{DueChecks, PendingPage};
pub use activity::{Overview, Timeline};
pub use auth::{Auth, IssuedToken, Keys, Principal};
pub use balances::Balances;
pub use customers::Customers;
pub use dashboard::{Dashboard, SignedIn};
pub use idempotency::Idempotency;
pub use idempotency::{Admission, HeldKey, RequestShape};
pub use links::{LinkPayment, LinkPaymentError, Links, PublicLink};
pub use merchants::Merchants;
pub use merchants::{CreatedMerchant, MerchantEnvironmentSecrets, RotatedWebhookSecret, WebhookUrlError};
pub use payments::callbacks::{CallbackError, CallbackReceipt};
pub use payments::checkout::{CheckoutPayment, PayerDecision};
pub use payments::pending::outcome_of;
pub use payments::{Party, PaymentError, PaymentRequest, Payments};
pub use payouts::Payouts;
pub use recipients::{Checked, LookupError, Recipients};
pub use reports::Reports;
pub use webhooks::Webhooks;

/// The gateway's use cases over one store, assembled. Cheap to clone. Each use case is a
/// service of its own holding only the store traits it uses (`payments`, `customers`,
/// `webhooks`, `reports`, `merchants`, `idempotency`, `auth`, `dashboard`); handlers, workers
/// and the command line take the one they need (`State<Payments>`, through `app::state`). The
/// gateway itself keeps what the process needs around them: settings, metrics, rate limits,
/// readiness and the database's figures. Nothing outside `service` reaches the store.
///
/// One `Arc` around all of it: axum clones the state for every extractor of every request, and
/// each clone of a field's `Arc` is an atomic increment on a cache line the cores share; the
/// services hold a few dozen of them, which measurably slowed every request
/// (docs/performance.md, Where the time goes).
#[derive(Clone)]
pub struct Gateway(Arc<Parts>);

/// What the gateway is made of (see [`Gateway`], which derefs to it).
#[derive(Clone)]
pub struct Parts {
    pub payments: Payments,
    pub balances: Balances,
    pub customers: Customers,
    pub links: Links,
    pub payouts: Payouts,
    pub recipients: Recipients,
    pub webhooks: Webhooks,
    pub reports: Reports,
    pub merchants: Merchants,
    pub idempotency: Idempotency,
    pub auth: Auth,
    pub dashboard: Dashboard,
    store: Arc<dyn Store>,
    config: Arc<Config>,
    metrics: Arc<Metrics>,
    limits: Arc<RateLimits>,
    figures: Arc<gauges::FiguresCache>,
    breaker_clock: Arc<BreakerClock>,
}

impl std::ops::Deref for Gateway {
    type Target = Parts;

    fn deref(&self) -> &Parts {
        &self.0
    }
}

impl Gateway {
    /// Loads (or creates, on a first start) the server's keys and assembles the gateway with
    /// the given operator connectors.
    pub async fn new(store: Arc<dyn Store>, config: Config, operators: Operators) -> Result<Gateway, StoreError> {
        let keys = Arc::new(Keys::load(store.as_ref(), &config).await?);
        let metrics = Arc::new(Metrics::default());
        let config = Arc::new(config);
        let active_credentials: Arc<auth::ActiveCredentials> = Arc::default();
        let auth = Auth::new(store.clone(), keys.clone(), config.clone(), active_credentials.clone());
        let webhooks = Webhooks::new(store.clone());
        let breaker_clock: Arc<BreakerClock> = Arc::default();
        let operators = Arc::new(operators.guarded(config.breaker, metrics.clone(), breaker_clock.clone()));
        let balances = Balances::new(store.clone(), metrics.clone());
        let payments = Payments::new(
            store.clone(),
            store.clone(),
            config.clone(),
            operators,
            metrics.clone(),
            active_credentials,
            balances.clone(),
        );
        let links = Links::new(
            store.clone(),
            store.clone(),
            payments.clone(),
            keys.derived("payer status pages"),
            config.public_url.clone(),
        );
        let recipients = Recipients::new(store.clone(), payments.clone(), keys.derived("recipient lookups"));
        let payouts = Payouts::new(store.clone(), payments.clone());
        Ok(Gateway(Arc::new(Parts {
            payments,
            balances,
            links,
            payouts,
            recipients,
            dashboard: Dashboard::new(
                store.clone(),
                auth.clone(),
                webhooks.clone(),
                keys.clone(),
                config.clone(),
            ),
            auth,
            webhooks,
            customers: Customers::new(store.clone()),
            reports: Reports::new(store.clone(), store.clone()),
            merchants: Merchants::new(store.clone(), keys.clone(), config.clone()),
            idempotency: Idempotency::new(store.clone(), config.clone()),
            store,
            metrics,
            limits: Arc::new(RateLimits::new(&config)),
            figures: Arc::default(),
            breaker_clock,
            config,
        })))
    }

    /// The same gateway (store, keys, metrics) with other operator connectors.
    pub fn with_operators(&self, operators: Operators) -> Gateway {
        let operators =
            Arc::new(operators.guarded(self.config.breaker, self.metrics.clone(), self.breaker_clock.clone()));
        let payments = self.payments.with_operators(operators);
        Gateway(Arc::new(Parts {
            links: self.links.with_payments(payments.clone()),
            payouts: self.payouts.with_payments(payments.clone()),
            recipients: self.recipients.with_payments(payments.clone()),
            payments,
            ..(*self.0).clone()
        }))
    }

    /// The operators' breakers' clock, which a test moves on past a cool-down.
    pub fn breaker_clock(&self) -> &BreakerClock {
        &self.breaker_clock
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    pub fn metrics(&self) -> &Metrics {
        &self.metrics
    }

    /// The metrics, shared, for a worker that outlives this borrow.
    pub fn metrics_handle(&self) -> Arc<Metrics> {
        self.metrics.clone()
    }

    pub fn limits(&self) -> &RateLimits {
        &self.limits
    }

    /// A webhook dispatcher over this gateway's outbox, with `settings` (usually
    /// `config().webhook`).
    pub fn webhook_dispatcher(&self, settings: &WebhookSettings) -> Result<Dispatcher, ServiceError> {
        Dispatcher::new(self.store.clone(), settings, self.metrics.clone())
            .map_err(|e| ServiceError::Invalid(format!("cannot build the webhook client: {e}")))
    }

    /// Has the store's writers send this process's settled events to `queue`, leased for
    /// `lease` (`store::handoff`); `false` when a queue was given before.
    pub fn hand_settled_events_to(
        &self,
        queue: tokio::sync::mpsc::Sender<crate::store::LeasedEvent>,
        lease: std::time::Duration,
    ) -> bool {
        self.store.hand_settled_events_to(queue, lease)
    }

    /// Answers when the database answers (readiness).
    pub async fn ping(&self) -> Result<(), ServiceError> {
        Ok(self.store.ping().await?)
    }

    /// Closes the database's connections, waiting for those in use (graceful shutdown).
    pub async fn close(&self) {
        self.store.close().await
    }
}

/// What a product person would name as the outcome of a refused use case.
#[derive(Debug, thiserror::Error)]
pub enum ServiceError {
    /// The input is wrong; the text names the field and says why.
    #[error("{0}")]
    Invalid(String),
    /// Credentials or token refused; the text says why, without echoing secrets.
    #[error("{0}")]
    Unauthorized(String),
    /// The record does not exist for this tenant.
    #[error("{0} not found")]
    NotFound(&'static str),
    /// The database cannot be reached or refused to work; retrying later may succeed.
    #[error("database unavailable: {0}")]
    Unavailable(String),
    /// A fault of ours (stored data that does not parse, a broken invariant); logged, never sent.
    #[error("internal fault: {0}")]
    Internal(String),
}

/// A store's answer where its `NotFound` is the caller's to hear: `what` is not there.
pub(crate) trait OrNotFound<T> {
    /// The answer, its `NotFound` told as `what` not found and any other error as usual.
    fn or_not_found(self, what: &'static str) -> Result<T, ServiceError>;
}

impl<T> OrNotFound<T> for Result<T, StoreError> {
    fn or_not_found(self, what: &'static str) -> Result<T, ServiceError> {
        self.map_err(|e| match e {
            StoreError::NotFound => ServiceError::NotFound(what),
            e => e.into(),
        })
    }
}

impl From<StoreError> for ServiceError {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::Unavailable(cause) => ServiceError::Unavailable(cause),
            StoreError::Revoked => auth::revoked(),
            StoreError::NotFound
            | StoreError::Conflict { .. }
            | StoreError::Corrupt(_)
            | StoreError::Refused(_)
            | StoreError::InsufficientFunds
            | StoreError::NotRefundable
            | StoreError::LinkClosed
            | StoreError::OverLimit(_) => ServiceError::Internal(e.to_string()),
        }
    }
}
