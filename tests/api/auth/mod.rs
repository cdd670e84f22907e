//! Tokens and credentials: how a merchant signs in to the API.

pub mod forged;
pub mod sign_in_abuse;
pub mod tokens;
