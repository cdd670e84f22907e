//! The black-box suite: the real server on a random port, over SQLite and over PostgreSQL,
//! spoken to over HTTP as a merchant would.

#[path = "../common/mod.rs"]
mod common;

mod auth;
mod client_script;
mod control_characters;
mod customers;
mod dashboard_browser_harness;
mod envelopes;
mod helpers;
mod lifecycle;
mod lookups;
mod model;
mod names;
mod openapi;
mod operations;
mod operator_aliases;
mod operator_errors;
mod operator_faults;
mod operator_faults_answers;
mod operator_faults_callbacks;
mod operator_faults_harness;
mod operator_faults_initiation;
mod operators_crash;
mod operators_momo;
mod operators_wave;
mod payments_balances;
mod payments_duplicates;
mod payments_input;
mod payments_shapes;
mod payments_simulator;
mod platform_settings;
mod process;
mod processes;
mod readme_walkthrough;
mod receiver;
mod request_ids;
mod requests;
mod return_urls;
mod server_limits;
mod startup;
mod webhook_fixtures;
mod webhooks_api;
mod webhooks_concurrency;
mod webhooks_delivery;
mod webhooks_hostile;
mod webhooks_retries;
mod webhooks_rotation;
mod workers;
mod write_batches;
mod write_batches_crash;
