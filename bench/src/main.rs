//! `momo-bench`: throughput and latency of the gateway's hot paths, each next to this machine's
//! own ceiling measured in the same run (the HTTP ceiling of `GET /health`, the database's
//! single-row durable commit ceiling), then a correctness check of what the load wrote.
//!
//! ```sh
//! cargo build --release --bins && target/release/momo-bench --db sqlite
//! target/release/momo-bench --db sqlite --compare main   # the same, before and after
//! ```

mod backlog;
mod ceiling;
mod compare;
mod cost;
mod database;
mod drain;
mod gateway;
mod load;
mod multi;
mod open_loop;
mod paths;
mod payouts;
mod report;
mod settlement;
mod sql;
mod writers;

use std::collections::HashSet;
use std::time::Duration;

use clap::{Parser, ValueEnum};

use load::{Load, Outcome};
use report::Row;

/// The writers' counters before and after a load, when the gateway has them.
type Counters = Option<(writers::Totals, writers::Totals)>;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Db {
    Sqlite,
    Postgres,
}

/// Measures the gateway's hot paths against this machine's own ceilings.
#[derive(Debug, Clone, Parser)]
#[command(name = "momo-bench", version)]
pub struct Args {
    /// The database the gateway runs on (a fresh one is created and removed).
    #[arg(long, value_enum, default_value = "sqlite")]
    pub db: Db,
    /// Server for --db postgres (a database is created on it for the run).
    #[arg(long, default_value = "postgres://postgres@127.0.0.1:5432/postgres")]
    pub postgres_url: String,
    /// Seconds measured per scenario, after the warm-up.
    #[arg(long, default_value_t = 10.0)]
    pub duration: f64,
    /// Seconds of warm-up per scenario, not measured.
    #[arg(long, default_value_t = 2.0)]
    pub warmup: f64,
    /// Concurrent connections kept busy.
    #[arg(long, default_value_t = 64)]
    pub connections: usize,
    /// Webhook events in the drain scenario.
    #[arg(long, default_value_t = 100_000)]
    pub events: usize,
    /// PENDING payments in scenario h's backlog (at most 1,000,000).
    #[arg(long, default_value_t = 100_000)]
    pub backlog: usize,
    /// The gateway binary (default: `momo-gateway` beside this one).
    #[arg(long)]
    pub gateway: Option<std::path::PathBuf>,
    /// Only these scenarios (e.g. `c` to profile one path); ratios need their ceiling too.
    /// a: GET /health; b: one-row commit; c: collection SUCCESSFUL; d: collection PENDING;
    /// e: status lookup; f: webhook drain; g: settlement under load; h: d and e without and
    /// with a backlog of --backlog PENDING payments (two fresh gateways, same settings); p: ten
    /// payout batches of 5,000 accepted, and c without and while they drain; m: c on one
    /// gateway process and on two sharing one database (PostgreSQL only).
    #[arg(long, value_delimiter = ',', default_value = "a,b,c,d,e,f,g,h,p,m")]
    pub scenarios: Vec<char>,
    /// Transfers per second and per operator the payout sender sends in scenario p
    /// (MOMO_PAYOUT_RATE_PER_S, whose default this is); its transfers go to four operators.
    #[arg(long, default_value_t = 50)]
    pub payout_rate: u32,
    /// Batches of 5,000 transfers queued in scenario p before c runs again (10: 50,000).
    #[arg(long, default_value_t = 10, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    pub payout_batches: usize,
    /// Open loop: also send c, d and e at this many requests a second, on a fixed arrival
    /// schedule, each timed from its due time. Without it, c and e run open-loop at 25, 50 and
    /// 75 % of the rate their closed loop just measured.
    #[arg(long, value_name = "R")]
    pub rate: Option<f64>,
    /// Also run every scenario against the gateway built from this git revision (a commit,
    /// branch or tag, checked out and built under target/compare/), first, in the same
    /// session, and print both side by side.
    #[arg(long, value_name = "REV")]
    pub compare: Option<String>,
    /// A setting for every gateway the run starts (both sides of --compare), for example
    /// `--set MOMO_WRITE_BATCH_MAX=32`; repeatable. The bench clears the `MOMO_` variables of its
    /// own environment before it starts a gateway, so this is how one reaches it. What a
    /// scenario sets itself (its database, its listener, its simulator delay) wins.
    #[arg(long = "set", value_name = "KEY=VALUE", value_parser = gateway_setting)]
    pub set: Vec<(String, String)>,
}

/// `KEY=VALUE` of `--set`.
fn gateway_setting(s: &str) -> Result<(String, String), String> {
    match s.split_once('=') {
        Some((key, value)) if !key.is_empty() => Ok((key.to_owned(), value.to_owned())),
        _ => Err(format!("{s:?} is not KEY=VALUE (for example MOMO_WRITE_BATCH_MAX=32)")),
    }
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    let Some(rev) = args.compare.clone() else {
        return runtime.block_on(run(args)).map(|_| ());
    };
    let before_gateway = compare::build_gateway(&rev)?;
    eprintln!("== before: {rev} ==");
    let before = runtime.block_on(run(Args {
        gateway: Some(before_gateway),
        ..args.clone()
    }))?;
    eprintln!("== after: this build ==");
    let after = runtime.block_on(run(args))?;
    compare::print(&rev, &before, &after);
    Ok(())
}

async fn run(args: Args) -> anyhow::Result<compare::Summary> {
    if args.scenarios.contains(&'h') {
        backlog::check_args(&args)?;
    }
    let receiver = drain::Receiver::start().await?;
    eprintln!("starting the gateway on a fresh {:?} database", args.db);
    let gw = gateway::Gateway::start(&args, &receiver.url).await?;
    let idle_kib = gw.memory_kib("VmRSS");
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(args.connections)
        .build()?;
    let load = Load {
        connections: args.connections,
        warmup: Duration::from_secs_f64(args.warmup),
        duration: Duration::from_secs_f64(args.duration),
    };
    let base = gw.base.clone();
    let token = gw.token.clone();
    let mut rows = Vec::new();

    let wants = |s: char| args.scenarios.contains(&s);
    eprintln!("a. HTTP ceiling: GET /health");
    let health = if !wants('a') {
        load::Outcome::default()
    } else {
        let (client, url) = (client.clone(), format!("{base}/health"));
        load.run(move |_, _| (client.get(&url), None)).await
    };
    if wants('a') {
        rows.push(Row::new("a. GET /health (HTTP ceiling)", &health, None));
    }

    eprintln!("b. single-row durable commit ceiling of the database");
    let commits = if wants('b') {
        ceiling::commit_ceiling(&gw.database_url, args.db, &load).await?
    } else {
        load::Outcome::default()
    };
    if wants('b') {
        rows.push(Row::new("b. one-row INSERT commit (DB ceiling)", &commits, None));
    }

    let collect =
        |scenario: &'static str, ending: &'static str| paths::collection(&client, &base, &token, scenario, ending);
    eprintln!("c. POST /v1/collecte/mobile-money answered SUCCESSFUL");
    let mut batches = Vec::new();
    let mut c_cost = None;
    let successful = if wants('c') || wants('e') {
        // A running database has statistics, and plans made from them; a fresh one plans for
        // empty tables (on PostgreSQL, sequential scans that the writers' connections keep in
        // their cached plans until autovacuum's first ANALYZE, up to a minute later, as the
        // tables grow). So c is measured after a load of the warm-up's length and an ANALYZE.
        let priming = Load {
            warmup: Duration::ZERO,
            duration: load.warmup.max(Duration::from_secs(1)),
            ..load
        };
        priming.run(collect("cw", "01")).await;
        gw.analyze().await?;
        let probe = cost::start(gw.pid(), gw.postgres_url()).await;
        let (outcome, counters) = writers::around(&client, &base, load.run(collect("c", "01"))).await;
        c_cost = Some(cost::finish(probe, gw.pid(), gw.postgres_url(), outcome.created.len()).await);
        batches.push(("c", counters));
        outcome
    } else {
        load::Outcome::default()
    };
    if wants('c') {
        rows.push(Row::new(
            "c. collection SUCCESSFUL (ledger + outbox)",
            &successful,
            Some(("b", &commits)),
        ));
    }
    // A fresh PostgreSQL database has no statistics until autovacuum's first pass (up to a
    // minute): plans made meanwhile may pick the wrong index. A running database has them.
    gw.analyze().await?;
    eprintln!("e. GET /v2/get-status-payment/{{id}}");
    let ids: std::sync::Arc<Vec<String>> = std::sync::Arc::new(successful.created.iter().cloned().collect());
    let status = if !wants('e') || ids.is_empty() {
        load::Outcome::default()
    } else {
        load.run(paths::status_lookup(&client, &base, &token, ids)).await
    };
    if wants('e') {
        rows.push(Row::new("e. status lookup", &status, Some(("a", &health))));
    }

    let (open, open_created, open_batches) =
        open_loop::run_all(&args, &load, &client, &base, &token, (&successful, &status)).await;

    // d leaves its collections PENDING, and their first status checks come due 30 s later: the
    // reconciler working through tens of thousands of them would be measured with whatever ran
    // then. So d runs after the open loops.
    eprintln!("d. POST /v1/collecte/mobile-money answered PENDING");
    let pending = if wants('d') {
        let (outcome, counters) = writers::around(&client, &base, load.run(collect("d", "06"))).await;
        batches.push(("d", counters));
        outcome
    } else {
        load::Outcome::default()
    };
    if wants('d') {
        rows.push(Row::new("d. collection PENDING", &pending, Some(("b", &commits))));
        rows.sort_by_key(|r| r.name);
    }

    eprintln!("f. webhook drain: {} events to a local receiver", args.events);
    let drained = if wants('f') {
        drain::drain(&gw, &receiver, args.events).await?
    } else {
        drain::Drained {
            events: 0,
            elapsed: Duration::ZERO,
        }
    };

    eprintln!("g. settlement under load with the test settings (delay 1.5 s, lifetime 6 s)");
    let settled = if wants('g') {
        Some(settlement::run(&args, &load, &receiver.url).await?)
    } else {
        None
    };

    eprintln!("checking what the load wrote");
    let mut created: HashSet<String> = successful.created.union(&pending.created).cloned().collect();
    created.extend(open_created);
    let check = gw.check(&created).await?;
    let peak_kib = gw.memory_kib("VmHWM");
    gw.stop().await;

    report::print(&args, &rows, &drained, idle_kib, peak_kib, &check);
    open_loop::print(&open);
    for (scenario, counters) in &batches {
        if let Some(line) = counters.as_ref().and_then(|(b, a)| writers::describe(b, a)) {
            println!("write batches during {scenario} (warm-up included): {line}");
        }
    }
    // A creation's open-loop tail is its wait for two batches: these say how long they took.
    for (label, counters) in &open_batches {
        if let Some(line) = counters.as_ref().and_then(|(b, a)| writers::describe(b, a)) {
            println!("write batches during {label}: {line}");
        }
    }
    if let Some(c) = &c_cost {
        println!("{}", cost::describe("c", c));
    }
    if let Some(s) = &settled {
        println!(
            "g. settlement under load: {} collections the operator settles SUCCESSFUL; {} SUCCESSFUL, {} expired, {} other failures, {} still pending; nothing pending {:.1} s after the load",
            s.created, s.successful, s.expired, s.other_failures, s.still_pending, s.drained_in.as_secs_f64()
        );
        anyhow::ensure!(
            s.expired == 0 && s.other_failures == 0 && s.still_pending == 0,
            "collections the operator settled did not all end SUCCESSFUL"
        );
    }
    // After the main gateway has stopped, so its workers do not share the cores with h.
    eprintln!(
        "h. d and e without and with {} PENDING payments in the database",
        args.backlog
    );
    let backlog = if wants('h') {
        Some(backlog::run(&args, &load, &receiver.url).await?)
    } else {
        None
    };
    if let Some(b) = &backlog {
        backlog::print(b);
        anyhow::ensure!(b.ok(), "the correctness check of scenario h failed");
    }
    eprintln!(
        "p. {} payout batches of 5,000, and c without and while they drain",
        args.payout_batches
    );
    let payouts = if wants('p') {
        Some(payouts::run(&args, &load, &receiver.url).await?)
    } else {
        None
    };
    if let Some(p) = &payouts {
        payouts::print(p);
        anyhow::ensure!(p.ok(), "scenario p: not every batch completed with every transfer paid");
    }
    let multi = if wants('m') && args.db == Db::Postgres {
        eprintln!("m. c on one gateway process and on two sharing its database");
        Some(multi::run(&args, &load, &receiver.url).await?)
    } else {
        None
    };
    if let Some(m) = &multi {
        multi::print(m);
        anyhow::ensure!(m.ok(), "scenario m: a request failed or the correctness check failed");
    } else if wants('m') {
        println!("m. two processes on one database: PostgreSQL only (SQLite is one process's file)");
    }
    anyhow::ensure!(check.ok(), "the correctness check failed");
    let h = backlog.as_ref().map(|b| b.errors()).unwrap_or(0);
    let errors: u64 = [&health, &commits, &successful, &pending, &status]
        .iter()
        .map(|o: &&Outcome| o.errors)
        .sum::<u64>()
        + h
        + payouts
            .as_ref()
            .map_or(0, |p| p.alone.iter().chain(&p.draining).map(|o| o.errors).sum());
    anyhow::ensure!(errors == 0, "{errors} requests failed");
    Ok(compare::Summary {
        rows,
        drain_per_second: drained.per_second(),
        idle_kib,
        peak_kib,
        c_cost,
        open,
    })
}
