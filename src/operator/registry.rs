//! Which connector serves each operator in each environment. `app/operators.rs` builds the
//! registry from configuration and hands it to the service; tests build their own. The Sandbox
//! falls back to the simulator; Production falls back to nothing ([`Unrouted`]): only a route
//! serves money there.

use std::collections::HashMap;
use std::sync::Arc;

use super::breaker::{BreakerClock, BreakerSettings, Guarded};
use super::unrouted::Unrouted;
use super::Operator;
use crate::domain::{Environment, OperatorCode};
use crate::telemetry::metrics::Metrics;

/// The connectors, by operator code and environment, with what serves the unnamed ones.
#[derive(Clone)]
pub struct Operators {
    /// Serves the Sandbox's unnamed operators (the simulator).
    sandbox: Arc<dyn Operator>,
    /// Serves Production's unnamed operators: [`Unrouted`], unless built with [`Self::everywhere`].
    production: Arc<dyn Operator>,
    /// Whether Production's unnamed operators are served ([`Self::everywhere`]).
    production_served: bool,
    routes: HashMap<(OperatorCode, Environment), Arc<dyn Operator>>,
}

impl Operators {
    /// A registry where `sandbox` serves every operator of the Sandbox and nothing serves
    /// Production until [`route`](Self::route) names a connector there.
    pub fn new(sandbox: Arc<dyn Operator>) -> Operators {
        Operators {
            sandbox,
            production: Arc::new(Unrouted),
            production_served: false,
            routes: HashMap::new(),
        }
    }

    /// A registry where `connector` serves every operator in every environment (tests).
    pub fn everywhere(connector: Arc<dyn Operator>) -> Operators {
        Operators {
            sandbox: connector.clone(),
            production: connector,
            production_served: true,
            routes: HashMap::new(),
        }
    }

    /// Routes `operator` in `environment` to `connector`.
    pub fn route(
        mut self,
        operator: OperatorCode,
        environment: Environment,
        connector: Arc<dyn Operator>,
    ) -> Operators {
        self.routes.insert((operator, environment), connector);
        self
    }

    /// The same registry with every connector behind a circuit breaker per operator, which
    /// reports to `metrics` and keeps the time of `clock`.
    pub fn guarded(self, settings: BreakerSettings, metrics: Arc<Metrics>, clock: Arc<BreakerClock>) -> Operators {
        let guard = |inner: Arc<dyn Operator>| -> Arc<dyn Operator> {
            Arc::new(Guarded::new(inner, settings, metrics.clone(), clock.clone()))
        };
        Operators {
            sandbox: guard(self.sandbox),
            production: guard(self.production),
            production_served: self.production_served,
            routes: self
                .routes
                .into_iter()
                .map(|(key, connector)| (key, guard(connector)))
                .collect(),
        }
    }

    /// The connector of `operator` in `environment`; in Production, an unrouted operator's
    /// fails every call (see [`is_routed`](Self::is_routed)).
    pub fn connector(&self, operator: OperatorCode, environment: Environment) -> &dyn Operator {
        self.routes
            .get(&(operator, environment))
            .unwrap_or(match environment {
                Environment::Sandbox => &self.sandbox,
                Environment::Production => &self.production,
            })
            .as_ref()
    }

    /// Whether a connector serves `operator` in `environment`: always in the Sandbox, only
    /// when routed in Production.
    pub fn is_routed(&self, operator: OperatorCode, environment: Environment) -> bool {
        environment == Environment::Sandbox
            || self.production_served
            || self.routes.contains_key(&(operator, environment))
    }
}

impl std::fmt::Debug for Operators {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Operators")
            .field("routes", &self.routes.keys().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}
