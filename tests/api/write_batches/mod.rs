//! The write pipeline: items batched into one transaction, and what a caller sees of it.

pub mod callers;
pub mod commit_failures;
pub mod crash;
pub mod metrics;
pub mod parallel_writers;
pub mod pipeline;
