//! Collections and transfers: their input, answers, lookups, balances and lifecycle.

pub mod balances;
pub mod duplicates;
pub mod input;
pub mod lifecycle;
pub mod lookups;
pub mod lookups_batched;
pub mod names;
pub mod return_urls;
pub mod return_urls_hygiene;
pub mod shapes;
pub mod simulator;
