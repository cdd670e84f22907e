//! Webhook delivery to merchants. Events are written to the outbox in the same database
//! transaction as each transition to a final state (`store::PaymentStore::settle`); the
//! dispatcher delivers them at least once, signed as Standard Webhooks, with retries over about
//! three days, an attempt log and redelivery on demand.

pub mod address;
pub mod client;
pub mod dispatcher;
pub mod payload;
pub mod retry;
pub mod signing;
