//! The black-box suite: the real server on a random port, over SQLite and over PostgreSQL,
//! spoken to over HTTP as a merchant would.

mod auth;
mod customers;
mod dashboard;
mod http;
mod idempotency;
mod links;
mod model;
mod operators;
mod payments;
mod payouts;
mod refunds;
mod reports;
mod running;
mod support;
mod walkthroughs;
mod webhooks;
mod write_batches;
