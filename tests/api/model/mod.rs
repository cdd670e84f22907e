//! A model-based test: random sequences of operations (creations by every simulator script,
//! reused ids, the clock moving, operator callbacks, reconciler and expiry passes, top-ups,
//! manual resolutions, payers' answers, restarts, bursts of creations sharing write batches,
//! and settlements racing each other) applied both to the gateway (its service and store,
//! called directly, with no HTTP and no background loops) and to a plain in-memory model of
//! DECISIONS §3 and §6 (`state.rs`, `script.rs`). Every call gets the model's clock, never the
//! wall clock, so the model predicts each sequential step exactly, the reconciler's backoff
//! included; for the concurrent ones it checks the outcome is one some order allows
//! (`concurrent.rs`) and adopts it.
//!
//! After every step the gateway holds exactly the model's payments, each in the model's state
//! (amounts, failure code and `date_update` included); every balance and ledger account is the
//! model's, postings sum to zero, and every final payment has one webhook event (`check.rs`).
//!
//! `PROPTEST_CASES` sets the number of sequences per database (24 by default); a failure shows
//! the shrunk sequence and the first disagreement.

mod check;
mod concurrent;
mod ops;
mod run;
mod script;
mod state;

use proptest::test_runner::{Config as ProptestConfig, TestCaseError, TestError, TestRunner};

use momo_test_support::both_backends;
use momo_test_support::{Backend, TestDatabase};

/// The longest sequence drawn.
const MAX_STEPS: usize = 50;

/// Whether the backend is there (PostgreSQL may be absent outside CI; see `TestDatabase`).
async fn backend_available(backend: Backend) -> Option<Backend> {
    TestDatabase::create(backend).await.map(|_| backend)
}

both_backends!(backend_available => the_gateway_and_a_plain_model_agree_after_every_step_of_random_sequences);

async fn the_gateway_and_a_plain_model_agree_after_every_step_of_random_sequences(backend: Backend) {
    // Proptest's runner is synchronous: each case runs on its own runtime, on a blocking thread.
    let checked = tokio::task::spawn_blocking(move || sequences(backend)).await;
    if let Err(e) = checked {
        std::panic::resume_unwind(e.into_panic());
    }
}

fn sequences(backend: Backend) {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(24);
    let config = ProptestConfig {
        cases,
        // Each shrinking step runs a sequence on a fresh database.
        max_shrink_iters: 300,
        failure_persistence: None,
        ..ProptestConfig::default()
    };
    let strategy = proptest::collection::vec(ops::op(), 1..=MAX_STEPS);
    let result = TestRunner::new(config).run(&strategy, |ops| {
        // Two worker threads, so that racing operations really run at once.
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("a runtime");
        runtime.block_on(run::case(backend, &ops)).map_err(TestCaseError::fail)
    });
    match result {
        Ok(()) => {}
        Err(TestError::Fail(why, ops)) => panic!(
            "{backend:?}: the gateway and the model disagree: {why}\nshrunk sequence ({} operations):\n{}",
            ops.len(),
            ops::describe(&ops)
        ),
        Err(TestError::Abort(why)) => panic!("{backend:?}: the model-based test stopped: {why}"),
    }
}
