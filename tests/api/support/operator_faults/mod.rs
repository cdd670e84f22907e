//! The harness of the fault table (`operator_faults.rs`): the gateway with ALPHA and GAMMA routed
//! to the MoMo Open API connector and BETA and DELTA to the Wave connector (in Sandbox and
//! Production), or, for the PayDunya routes, ALPHA and DELTA routed to PayDunya; the operator
//! emulator behind them, and what every scenario needs: a payment per
//! [`Route`], the emulator's counts and admin calls, callbacks made by hand, and the checks run
//! after each scenario.
//!
//! [`Route`] and what each route means at the emulator are in `routes.rs`; [`Faulted`], the
//! gateway and the emulator set up for the faults, in `harness.rs`.

pub mod by_hand;
pub mod harness;
mod invariants;
pub mod routes;

pub use harness::PAYDUNYA_MASTER_KEY;
pub use harness::{Faulted, BREAKER_COOL_DOWN, CALLBACK_TOKEN, PREVIOUS_CALLBACK_TOKEN, WAVE_SECRET};
pub use routes::{
    MomoCollection, MomoTransfer, PaydunyaCollection, PaydunyaDeltaCollection, PaydunyaTransfer, WaveCollection,
    WaveTransfer,
};
pub use routes::{Route, ALL_ROUTES, EVERY_ROUTE, PAYDUNYA_ROUTES};
