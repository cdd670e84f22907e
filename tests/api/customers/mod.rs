//! Customer records and the payers a payment creates.

pub mod payers;
pub mod records;
