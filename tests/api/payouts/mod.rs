//! Payouts: the recipient checked before the money leaves, and batches of transfers.

pub mod abandoned;
pub mod batches;
pub mod command_line;
pub mod crash;
pub mod fair;
pub mod large;
pub mod limits;
pub mod recipient_lookups;
pub mod recipients;
pub mod recipients_at_operators;
pub mod sent_once;
