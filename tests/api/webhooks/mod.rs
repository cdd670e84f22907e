//! Webhook endpoints, delivery, retries, signatures and the outbox under load.

pub mod concurrency;
pub mod delivery;
pub mod endpoints;
pub mod failing_endpoints;
pub mod handoff;
pub mod hostile;
pub mod retries;
pub mod rotation;
pub mod secrets_in_urls;
