//! The ledger statement and the settlement report.

pub mod access;
pub mod late;
pub mod reading;
pub mod statements;
