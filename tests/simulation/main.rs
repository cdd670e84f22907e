//! A seeded simulation of a payment's actors (docs/reliability.md, The simulation): creating
//! requests, the reconciler's and the expiry's visits, operator callbacks, the caller's timeouts
//! and crash-restarts, against the real service layer and store, with each connector replaced by
//! a scripted operator whose calls the scheduler holds, answers, times out, resets after they
//! took effect, or refuses before they did. A seed decides the order and the faults; the
//! invariants are checked after every step.
//!
//! `SIM_SEEDS=N` runs N seeds (2,000 on SQLite and 200 on PostgreSQL by default), from
//! `SIM_FIRST` (0); `SIM_SEED=n` replays one seed and prints its trace; `SIM_SURVEY=1` names
//! every failing seed instead of stopping at the first.

mod actors;
mod books;
mod invariants;
mod operator;
mod world;

use std::io::Write;
use std::time::Instant;

use momo_test_support::{Backend, TestDatabase};

use world::{Counts, World};

fn env_u64(name: &str) -> Option<u64> {
    std::env::var(name).ok().and_then(|v| v.parse().ok())
}

/// Which seeds to run, and how.
#[derive(Debug, Clone, Copy)]
struct Plan {
    backend: Backend,
    first: u64,
    count: u64,
    /// Lanes that run at once, each on a database of its own: seed `first + i` goes to lane
    /// `i % lanes`.
    lanes: u64,
    /// Print each seed's trace (`SIM_SEED`).
    replay: bool,
    /// Name every failing seed instead of stopping at the first (`SIM_SURVEY=1`).
    survey: bool,
}

/// Seeds a lane runs on one database before it takes a fresh one.
const SEEDS_PER_DATABASE: u32 = 100;

/// A seed that broke an invariant: what broke, and its trace.
struct Broken {
    seed: u64,
    what: String,
    trace: String,
}

/// Runs one lane's seeds on one database, each seed with a merchant of its own.
async fn lane(plan: Plan, lane: u64) -> (Counts, Vec<Broken>) {
    let mut total = Counts::default();
    let mut broken = Vec::new();
    let Some(mut db) = TestDatabase::create(plan.backend).await else {
        return (total, broken);
    };
    let mut seed = plan.first + lane;
    let mut on_this_database = 0;
    while seed < plan.first + plan.count {
        // A fresh database now and then: the check at rest reads the whole ledger, which would
        // make a long run's seeds slower and slower.
        if on_this_database == SEEDS_PER_DATABASE {
            db = TestDatabase::create(plan.backend).await.expect("another database");
            on_this_database = 0;
        }
        on_this_database += 1;
        let mut world = World::open(seed, &db.url).await.expect("the seed's world opens");
        let outcome = world.run().await;
        let trace = world.sim.lock().trace.join("\n");
        world.gateway.close().await;
        total.add(world.counts);
        if plan.replay {
            eprintln!("{trace}");
        }
        if let Err(what) = outcome {
            if plan.survey {
                eprintln!("seed {seed}: {what}");
            }
            broken.push(Broken { seed, what, trace });
            if !plan.survey {
                break;
            }
        }
        seed += plan.lanes;
    }
    (total, broken)
}

/// Runs the seeds `SIM_SEED`, `SIM_SEEDS` and `SIM_FIRST` name (else `default_seeds` from 0) on
/// `backend`; panics with the first failing seed's trace and the command that replays it.
async fn run(backend: Backend, default_seeds: u64) {
    let replayed = env_u64("SIM_SEED");
    let plan = Plan {
        backend,
        first: replayed.or(env_u64("SIM_FIRST")).unwrap_or(0),
        count: replayed.map_or(env_u64("SIM_SEEDS").unwrap_or(default_seeds), |_| 1),
        lanes: env_u64("SIM_LANES").unwrap_or(2).max(1),
        replay: replayed.is_some(),
        survey: std::env::var("SIM_SURVEY").is_ok_and(|v| v == "1"),
    };
    let started = Instant::now();
    // On this task, not spawned: the store's futures are not `Send` for every lifetime. The
    // actors are tasks of their own, and each database works on threads of its own.
    let lanes = futures_util::future::join_all((0..plan.lanes).map(|i| lane(plan, i))).await;
    let mut total = Counts::default();
    let mut broken = Vec::new();
    for (counts, found) in lanes {
        total.add(counts);
        broken.extend(found);
    }
    // On the real stderr, past the harness's capture: the figures show in every run.
    let _ = writeln!(
        std::io::stderr(),
        "simulation {backend:?}: seeds={} (from {}) steps={} faults={} crashes={} payments={} \
         violations={} in {:.1}s",
        total.seeds,
        plan.first,
        total.steps,
        total.faults,
        total.crashes,
        total.payments,
        broken.len(),
        started.elapsed().as_secs_f64()
    );
    broken.sort_by_key(|b| b.seed);
    if let Some(Broken { seed, what, trace }) = broken.first() {
        let backend_name = format!("{backend:?}").to_lowercase();
        panic!(
            "{} seeds broke an invariant; the first, seed {seed}: {what}\n\ntrace:\n{trace}\n\nreplay: \
             SIM_SEED={seed} cargo test --test simulation {backend_name} -- --nocapture",
            broken.len()
        );
    }
}

mod seeds {
    use super::*;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn sqlite() {
        run(Backend::Sqlite, 2_000).await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn postgres() {
        run(Backend::Postgres, 200).await;
    }
}
