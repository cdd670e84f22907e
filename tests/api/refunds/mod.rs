//! Refunds: a `SUCCESSFUL` collection given back to its payer, in part or in full.

pub mod command_line;
pub mod crash;
pub mod operators;
pub mod reasons;
pub mod routes;
pub mod service;
