//! The ledger statement and the settlement report.

pub mod late;
pub mod statements;
