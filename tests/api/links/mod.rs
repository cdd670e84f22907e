//! Payment links: made, read, listed and deactivated through the API in both dialects, and
//! paid through, their rules held by the database under concurrency.

pub mod browser;
pub mod customers;
pub mod held;
pub mod page;
pub mod paying;
pub mod routes;
