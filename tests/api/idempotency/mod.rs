//! `Idempotency-Key`: replays, conflicts, and the leases of requests in flight.

pub mod keys;
pub mod leases;
