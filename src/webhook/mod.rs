//! Webhook delivery to merchants. Events are written to the outbox in the same database
//! transaction as each transition to a final state (see `store::PaymentStore::settle`); the
//! dispatcher that delivers them comes with the webhook work (issue 4).

pub mod payload;
