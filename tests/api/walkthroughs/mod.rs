//! The README's walkthrough and the Python client, run as written.

pub mod client_libraries;
pub mod client_script;
pub mod readme;
