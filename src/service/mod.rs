//! Use cases, called by HTTP handlers, the admin command line and workers.
//!
//! [`Gateway`] holds what every use case needs; each file adds the `impl Gateway` block of one
//! family of use cases.

pub mod auth;
pub mod credentials;
pub mod customers;
pub mod merchants;
pub mod metrics;
pub mod payments;
pub mod rate_limit;
pub mod webhooks;

use std::sync::Arc;
use std::time::Duration;

use crate::config::Config;
use crate::domain::FeeSchedule;
use crate::operator::simulator::Simulator;
use crate::operator::Operator;
use crate::service::metrics::Metrics;
use crate::service::rate_limit::RateLimits;
use crate::store::{Store, StoreError};

pub use auth::{IssuedToken, Keys, Principal};
pub use merchants::{CreatedMerchant, MerchantEnvironmentSecrets};
pub use payments::{Party, PaymentError, PaymentRequest};

/// The gateway's use cases over one store. Cheap to clone.
#[derive(Clone)]
pub struct Gateway {
    pub store: Arc<dyn Store>,
    pub config: Arc<Config>,
    pub keys: Arc<Keys>,
    pub operator: Arc<dyn Operator>,
    pub fees: Arc<FeeSchedule>,
    pub metrics: Arc<Metrics>,
    pub limits: Arc<RateLimits>,
}

impl Gateway {
    /// Loads (or creates, on a first start) the server's keys and assembles the gateway.
    pub async fn new(store: Arc<dyn Store>, config: Config) -> Result<Gateway, StoreError> {
        let keys = Keys::load(store.as_ref(), &config).await?;
        // No real connector exists yet: every environment uses the simulator (DECISIONS §1).
        let operator = Arc::new(Simulator {
            delay: Duration::from_millis(config.simulator_delay_ms),
        });
        Ok(Gateway {
            store,
            keys: Arc::new(keys),
            operator,
            fees: Arc::new(config.fee_schedule()),
            metrics: Arc::new(Metrics::default()),
            limits: Arc::new(RateLimits::new(config.rate_limit_per_s, config.auth_rate_limit_per_min)),
            config: Arc::new(config),
        })
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
    /// The database failed; the cause is logged, never sent.
    #[error(transparent)]
    Store(#[from] StoreError),
}
