//! The settings of each worker, one group per worker, held by [`Config`](super::Config): the
//! HTTP server, the simulated operator, the operators' circuit breakers, the reconciler (with
//! collection expiry and transfer review), the webhook dispatcher and `/metrics`.

use std::time::Duration;

use crate::net::IpRange;

/// How the HTTP server treats its connections: how long a client may take at each step, and
/// how many connections it serves at once.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct HttpSettings {
    /// From connecting, or from the first byte of a later request, to the end of the headers.
    pub header_read_timeout: Duration,
    /// From the end of a request's headers to its answer.
    pub request_timeout: Duration,
    /// How long a kept-alive connection may wait for its next request.
    pub idle_timeout: Duration,
    /// Connections served at once; further ones wait to be accepted.
    pub max_connections: usize,
    /// Reverse proxies whose forwarding headers name the client (`api::client_address`).
    pub trusted_proxies: Vec<IpRange>,
}

/// How long a merchant dashboard session lasts (`web::dashboard`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DashboardSettings {
    /// A session unused for this long ends.
    pub session_idle: Duration,
    /// A session ends this long after sign-in, used or not.
    pub session_max: Duration,
}

/// What the simulated operator needs.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SimulatorSettings {
    /// How long a pending payment waits before the simulator settles it.
    pub delay: Duration,
}

/// Each operator's circuit breaker: when it opens and for how long.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct BreakerSettings {
    /// Consecutive transport failures that open the breaker.
    pub failures: u32,
    /// How long an open breaker refuses calls before probing again.
    pub cool_down: Duration,
}

/// How the database writers batch the hot writes (creations and settlements).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BatchSettings {
    /// The most writes in one database transaction.
    pub max: usize,
    /// How long a writer waits for more writes once it has one; zero commits what is queued.
    pub wait: Duration,
    /// Writer tasks on PostgreSQL (SQLite has one writer connection, so one writer).
    pub writers: usize,
}

impl Default for BatchSettings {
    fn default() -> Self {
        BatchSettings {
            max: 128,
            wait: Duration::ZERO,
            writers: 2,
        }
    }
}

/// How payout batches are taken and sent (`service::payouts`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PayoutSettings {
    /// Transfers of batches sent per second to each operator, by each gateway process.
    pub rate_per_s: u32,
    /// The largest body of a batch's request (a batch of 5,000 is about a megabyte).
    pub max_body_bytes: usize,
    /// The most queued transfers one merchant may have in one environment.
    pub queued_max: u32,
    /// The most batch requests of one merchant in one environment recorded at once.
    pub batches_at_once: u32,
    /// The recipient checks one merchant may ask in one environment per UTC day.
    pub recipient_checks_per_day: u32,
}

/// What the reconciler and the expiry and review of pending payments need.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ReconcileSettings {
    /// How often the reconciler and collection expiry run.
    pub interval: Duration,
    /// Age after which a pending transaction is checked with its operator.
    pub after: Duration,
    /// Age after which a pending collection expires and a pending transfer needs review.
    pub collection_ttl: Duration,
    /// Age after which a pending collection started from a payment link expires.
    pub link_payment_ttl: Duration,
}

impl ReconcileSettings {
    /// How long a pending collection lives: a link's payments less long (they hold the link's
    /// place), never longer than any other collection.
    pub fn collection_lifetime(&self, from_link: bool) -> Duration {
        if from_link {
            self.link_payment_ttl.min(self.collection_ttl)
        } else {
            self.collection_ttl
        }
    }

    /// The shortest lifetime of a collection: the expiry pass looks at collections this old.
    pub fn shortest_collection_lifetime(&self) -> Duration {
        self.collection_lifetime(true)
    }
}

/// What the webhook dispatcher needs.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct WebhookSettings {
    /// How long one attempt may take, connection to last byte.
    pub timeout: Duration,
    /// Waits between attempts; its length is the number of retries.
    pub retry_schedule: Vec<Duration>,
    /// Send to private and loopback addresses (tests, local receivers).
    pub allow_private: bool,
    /// How long a claimed event is reserved for its dispatcher.
    pub lease: Duration,
    /// How long a webhook signing secret replaced by a rotation keeps signing beside the new one.
    pub secret_overlap: Duration,
}

/// Who may read `/metrics`, and how fresh its database figures are.
#[derive(Clone, PartialEq, Eq, Default)]
pub struct MetricsSettings {
    /// The bearer token a scrape must send; `None` lets anyone read, unless the gateway serves
    /// Production and `public` is false.
    pub token: Option<String>,
    /// Serve `/metrics` without a token even when Production is served.
    pub public: bool,
    /// How long one reading of the database's figures serves the scrapes after it.
    pub database_refresh: std::time::Duration,
}

impl std::fmt::Debug for MetricsSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MetricsSettings")
            .field("token", &self.token.as_ref().map(|_| "[redacted]"))
            .field("database_refresh", &self.database_refresh)
            .finish()
    }
}
