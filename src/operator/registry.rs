//! Which connector serves each operator in each environment. `app.rs` builds the registry from
//! configuration and hands it to the service; tests build their own.

use std::collections::HashMap;
use std::sync::Arc;

use super::breaker::{BreakerSettings, Guarded};
use super::Operator;
use crate::domain::{Environment, OperatorCode};
use crate::telemetry::metrics::Metrics;

/// The connectors, by operator code and environment, with one serving everything unnamed.
#[derive(Clone)]
pub struct Operators {
    fallback: Arc<dyn Operator>,
    routes: HashMap<(OperatorCode, Environment), Arc<dyn Operator>>,
}

impl Operators {
    /// A registry where `fallback` serves every operator in every environment.
    pub fn new(fallback: Arc<dyn Operator>) -> Operators {
        Operators {
            fallback,
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
    /// reports to `metrics`.
    pub fn guarded(self, settings: BreakerSettings, metrics: Arc<Metrics>) -> Operators {
        let guard = |inner: Arc<dyn Operator>| -> Arc<dyn Operator> {
            Arc::new(Guarded::new(inner, settings, metrics.clone()))
        };
        Operators {
            fallback: guard(self.fallback),
            routes: self
                .routes
                .into_iter()
                .map(|(key, connector)| (key, guard(connector)))
                .collect(),
        }
    }

    /// The connector of `operator` in `environment`.
    pub fn connector(&self, operator: OperatorCode, environment: Environment) -> &dyn Operator {
        self.routes
            .get(&(operator, environment))
            .unwrap_or(&self.fallback)
            .as_ref()
    }
}

impl std::fmt::Debug for Operators {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Operators")
            .field("routes", &self.routes.keys().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}
