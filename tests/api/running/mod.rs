//! The gateway as it runs: start-up, processes and signals, settings, metrics and workers.

pub mod deploy;
pub mod metrics_access;
pub mod metrics_without_database;
pub mod operations;
pub mod platform_settings;
pub mod processes;
pub mod processes_sharing_postgres;
pub mod startup;
pub mod stopping_with_a_backlog;
pub mod traces;
pub mod workers;
pub mod workers_survive;
