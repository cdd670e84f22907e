//! Payouts: the recipient checked before the money leaves.

pub mod recipients;
pub mod recipients_at_operators;
