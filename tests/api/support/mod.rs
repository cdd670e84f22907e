//! What the API tests share: a gateway on a fresh database (`helpers`), requests as a merchant
//! sends them, a browser, the operator emulator driven through its admin API and clock
//! (`emulated`) and set up for faults, a webhook receiver's setup.

pub mod browser;
pub mod dashboard_client;
pub mod emulated;
pub mod helpers;
pub mod operator_faults;
pub mod process_merchant;
pub mod requests;
pub mod webhooks;
