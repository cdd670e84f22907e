//! The merchant dashboard: its pages and forms over HTTP, and in a real browser.

pub mod actions;
pub mod browser_access;
pub mod browser_links;
pub mod browser_payer;
pub mod browser_payouts;
pub mod browser_refund;
pub mod browser_refusals;
pub mod browser_walkthrough;
pub mod in_french;
pub mod links;
pub mod pages;
pub mod payouts;
pub mod refunds;
pub mod sessions;
