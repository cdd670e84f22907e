//! Which connectors serve each operator in each environment. `app/operators.rs` builds the
//! registry from configuration and hands it to the service; tests build their own. The Sandbox
//! falls back to the simulator; Production falls back to nothing ([`Unrouted`]): only a route
//! serves money there.
//!
//! A route names one connector or several in order (`momo-openapi|paydunya`): a payment goes
//! to the first, and to the next only when the one before refused it before anything could be
//! sent (`service::payments::deliver`). The connector that carries a payment is recorded with
//! it (`Transaction::carrier`), and everything after its sending goes there only ([`carrier`]).
//!
//! [`carrier`]: Operators::carrier

use std::collections::HashMap;
use std::sync::Arc;

use super::breaker::{BreakerClock, BreakerSettings, Guarded};
use super::unrouted::Unrouted;
use super::Operator;
use crate::domain::{Environment, OperatorCode, Transaction};
use crate::telemetry::metrics::Metrics;

/// A connector, by the name of its protocol as routes and payments record it.
#[derive(Clone)]
pub struct Connector {
    pub name: &'static str,
    pub operator: Arc<dyn Operator>,
}

impl Connector {
    pub fn new(name: &'static str, operator: Arc<dyn Operator>) -> Connector {
        Connector { name, operator }
    }
}

/// The connectors, by operator code and environment, with what serves the unnamed ones.
#[derive(Clone)]
pub struct Operators {
    /// Serves the Sandbox's unnamed operators (the simulator).
    sandbox: Connector,
    /// Serves Production's unnamed operators: [`Unrouted`], unless built with [`Self::everywhere`].
    production: Connector,
    /// Whether Production's unnamed operators are served ([`Self::everywhere`]).
    production_served: bool,
    /// Each route's connectors, in the order they are tried; never empty.
    routes: HashMap<(OperatorCode, Environment), Vec<Connector>>,
    /// What serves a payment whose recorded connector no route names any more.
    gone: Connector,
}

impl Operators {
    /// A registry where `sandbox` serves every operator of the Sandbox and nothing serves
    /// Production until [`route`](Self::route) names a connector there.
    pub fn new(sandbox: Arc<dyn Operator>) -> Operators {
        Operators {
            sandbox: Connector::new("simulator", sandbox),
            production: Connector::new("unrouted", Arc::new(Unrouted)),
            production_served: false,
            routes: HashMap::new(),
            gone: Connector::new("unrouted", Arc::new(Unrouted)),
        }
    }

    /// A registry where `connector` serves every operator in every environment (tests).
    pub fn everywhere(connector: Arc<dyn Operator>) -> Operators {
        let connector = Connector::new("simulator", connector);
        Operators {
            sandbox: connector.clone(),
            production: connector,
            production_served: true,
            routes: HashMap::new(),
            gone: Connector::new("unrouted", Arc::new(Unrouted)),
        }
    }

    /// Routes `operator` in `environment` to `connectors`, tried in order. An empty list
    /// leaves the route as it was.
    pub fn route(mut self, operator: OperatorCode, environment: Environment, connectors: Vec<Connector>) -> Operators {
        if !connectors.is_empty() {
            self.routes.insert((operator, environment), connectors);
        }
        self
    }

    /// The same registry with every connector behind a circuit breaker of its own per
    /// operator, which reports to `metrics` and keeps the time of `clock`.
    pub fn guarded(self, settings: BreakerSettings, metrics: Arc<Metrics>, clock: Arc<BreakerClock>) -> Operators {
        let guard = |inner: Connector| -> Connector {
            let guarded = Guarded::new(inner.operator, inner.name, settings, metrics.clone(), clock.clone());
            Connector::new(inner.name, Arc::new(guarded))
        };
        Operators {
            sandbox: guard(self.sandbox),
            production: guard(self.production),
            production_served: self.production_served,
            routes: self
                .routes
                .into_iter()
                .map(|(key, chain)| (key, chain.into_iter().map(guard).collect()))
                .collect(),
            gone: self.gone,
        }
    }

    /// The connectors of `operator` in `environment`, in the order a new payment tries them;
    /// in Production, an unrouted operator's fails every call (see [`is_routed`](Self::is_routed)).
    pub fn chain(&self, operator: OperatorCode, environment: Environment) -> &[Connector] {
        match self.routes.get(&(operator, environment)) {
            Some(chain) => chain,
            None => std::slice::from_ref(match environment {
                Environment::Sandbox => &self.sandbox,
                Environment::Production => &self.production,
            }),
        }
    }

    /// The first connector of `operator`'s route in `environment`: the one a new payment is
    /// recorded with.
    pub fn first(&self, operator: OperatorCode, environment: Environment) -> &Connector {
        // Never empty: `route` keeps no empty list, and the defaults are one connector.
        &self.chain(operator, environment)[0]
    }

    /// The first connector of `operator` in `environment`, as an [`Operator`] (what the payer's
    /// page check asks).
    pub fn connector(&self, operator: OperatorCode, environment: Environment) -> &dyn Operator {
        self.first(operator, environment).operator.as_ref()
    }

    /// The connector that carries `t`: the one recorded with it, else its route's first. A
    /// recorded connector its route no longer names fails every call, so nothing is asked of
    /// a connector that never saw the payment, and nothing is settled until it is routed again.
    pub fn carrier(&self, t: &Transaction) -> &dyn Operator {
        match t.carrier.connector.as_deref() {
            None => self.connector(t.operator, t.tenant.environment),
            Some(name) => self
                .chain(t.operator, t.tenant.environment)
                .iter()
                .find(|c| c.name == name)
                .unwrap_or(&self.gone)
                .operator
                .as_ref(),
        }
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
        let routes: Vec<String> = self
            .routes
            .iter()
            .map(|((operator, environment), chain)| {
                let names: Vec<&str> = chain.iter().map(|c| c.name).collect();
                format!("{operator}:{environment}={}", names.join("|"))
            })
            .collect();
        f.debug_struct("Operators")
            .field("routes", &routes)
            .finish_non_exhaustive()
    }
}
