//! Scenario m: two gateway processes on one PostgreSQL database, sharing c's load as they would
//! behind a reverse proxy (docs/operations.md). On a fresh database, c in four turns A B B A,
//! each on payers of its own: A on one process with every connection; B with the connections
//! split over the two, each connection keeping to one process as a proxy keeps a client's
//! connection. Two processes' combined rate at least 0.9 × one's is the target, judged on the
//! means of the two turns of each (the order cancels a drift of the database over the run).
//! Then the correctness check over every answer of the four turns: each stored once, the
//! ledger balanced. The processes compete with each other, PostgreSQL and the bench for the
//! same cores, so the target says what a second process costs, not what it adds.

use crate::gateway::Gateway;
use crate::load::{Load, Outcome};
use crate::sql::Pool;
use crate::{paths, Args};

/// What scenario m measured.
pub struct Multi {
    /// c on one process, first and last.
    pub one: [Outcome; 2],
    /// c on two processes, twice.
    pub two: [Outcome; 2],
    pub check: crate::gateway::Check,
}

impl Multi {
    /// Two processes' rate against one's, on the means of their turns.
    pub fn ratio(&self) -> f64 {
        let mean = |turns: &[Outcome; 2]| (turns[0].throughput() + turns[1].throughput()) / 2.0;
        mean(&self.two) / mean(&self.one).max(f64::MIN_POSITIVE)
    }

    pub fn ok(&self) -> bool {
        self.check.ok() && self.errors() == 0
    }

    pub fn errors(&self) -> u64 {
        self.one.iter().chain(&self.two).map(|o| o.errors).sum()
    }
}

pub async fn run(args: &Args, load: &Load, webhook_url: &str) -> anyhow::Result<Multi> {
    const SETTINGS: &[(&str, &str)] = &[("MOMO_SIMULATOR_DELAY_MS", "86400000")];
    let gw = Gateway::start_with(args, webhook_url, SETTINGS).await?;
    let second = gw.another_process(args, SETTINGS)?;
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(args.connections)
        .build()?;
    let one = |scenario: &'static str, shift: u64| {
        paths::collection_from(&client, &gw.base, &gw.token, scenario, "01", shift)
    };
    let two = |scenario: &'static str, shift: u64| {
        let (first, other) = (
            paths::collection_from(&client, &gw.base, &gw.token, scenario, "01", shift),
            // The token is the database's: either process checks it.
            paths::collection_from(&client, &second.base, &gw.token, scenario, "01", shift),
        );
        move |task: usize, i: u64| {
            if task.is_multiple_of(2) {
                first(task, i)
            } else {
                other(task, i)
            }
        }
    };
    // Every turn starts from a quiet database with fresh statistics: the webhooks of the turn
    // before are delivered first, so a turn does not pay for its predecessor's, and the planner
    // has seen the rows it added (as autovacuum's ANALYZE would have, in time).
    let pool = Pool::open(&gw.database_url).await?;
    let settle = async || -> anyhow::Result<()> {
        pool.quiet().await?;
        gw.analyze().await
    };
    let a = load.run(one("ma", 0)).await;
    settle().await?;
    let b = load.run(two("mb", 250_000)).await;
    settle().await?;
    let c = load.run(two("mc", 500_000)).await;
    settle().await?;
    let d = load.run(one("md", 750_000)).await;
    second.stop().await;
    let answered = [&a, &b, &c, &d]
        .iter()
        .flat_map(|o| o.created.iter().cloned())
        .collect();
    let check = gw.check(&answered).await?;
    gw.stop().await;
    Ok(Multi {
        one: [a, d],
        two: [b, c],
        check,
    })
}

pub fn print(m: &Multi) {
    let p99 = |o: &Outcome| o.percentile_ms(0.99);
    let rate = |o: &Outcome| o.throughput();
    println!(
        "m. two processes on one database: c in turns A B B A (one, two, two, one process) {:.0} / {:.0} / {:.0} / {:.0} req/s, p99 {:.1} / {:.1} / {:.1} / {:.1} ms; two against one (means) {:.2} × (target ≥ 0.9 ×); {} answered, {} missing, postings sum {}, inconsistent balances {}",
        rate(&m.one[0]),
        rate(&m.two[0]),
        rate(&m.two[1]),
        rate(&m.one[1]),
        p99(&m.one[0]),
        p99(&m.two[0]),
        p99(&m.two[1]),
        p99(&m.one[1]),
        m.ratio(),
        m.check.answered,
        m.check.missing,
        m.check.ledger.postings_sum,
        m.check.ledger.inconsistent_balances,
    );
}
