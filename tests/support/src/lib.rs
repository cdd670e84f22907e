//! What more than one test binary of momo-gateway uses: fresh databases on both backends and
//! `both_backends!` ([`database`]), loopback ports ([`ports`]), the gateway binary as a process
//! ([`process`]), a scripted webhook receiver ([`receiver`]), and waiting for what happens on
//! its own time ([`eventually`]). A crate of its own, so that
//! `tests/api`, `tests/store` and `tests/reliability` share it without borrowing files by path.

pub mod database;
pub mod english;
pub mod eventually;
pub mod ports;
pub mod process;
pub mod receiver;
pub mod tools;

pub use database::{in_ci, Backend, TestDatabase};
pub use eventually::{eventually, poll, until};
