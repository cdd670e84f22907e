//! Scenario h: a backlog of PENDING payments must not slow creation or lookups. Two fresh
//! gateways with the same settings run side by side; `--backlog` PENDING collections are written
//! straight into the second one's database (as the drain writes its events) while its workers
//! run; then paths d (collection answered PENDING) and e (status lookup) are measured on each,
//! alternately (A B B A A B B A, a quarter of the duration each time, each with the warm-up), so
//! that the shared machine's drift falls on both alike: measured one after the other, two
//! gateways without any backlog differ by more than the effect sought (`--backlog 0` shows it).
//!
//! Two gateways rather than one before and after the insert: the collections a first
//! measurement creates come due for their first status check 30 s later
//! (`MOMO_RECONCILE_AFTER_MS`) and would charge the second with checks the backlog did not cause.
//!
//! The backlog is shaped like collections awaiting their payer: GAMMA collections of 1,500 XOF,
//! one payer each (a customer row, as the API creates), the `CREATED` transition, created 1 to
//! 10 minutes before the insert, so they are older than the reconcile delay (inside the
//! reconciler's range, which must skip them) and far from the 15-minute lifetime. Payers end
//! in 06 (the simulator never settles them; a status check answers "pending"), and each next
//! check is due at the collection's expiry, as the reconciler schedules a collection's last
//! check: none is due during the run, so the workers have nothing to do with them, and what the
//! measurement shows is the cost of their being there. The bench counts the backlog rows the
//! workers claimed, rescheduled or settled anyway. `--backlog 0` measures the method's own noise.

use std::sync::Arc;
use std::time::{Duration, Instant};

use uuid::Uuid;

use crate::gateway::{Check, Gateway};
use crate::load::{Load, Outcome};
use crate::sql::{self, Pool};
use crate::{paths, Args};

/// The gateway's defaults (the bench's gateways leave them unset).
const COLLECTION_TTL_MS: i64 = 900_000;
const RECONCILE_AFTER_MS: i64 = 30_000;
/// The backlog's creation times: from this long before the insert...
const OLDEST_MS: i64 = 600_000;
/// ...to this long before it.
const YOUNGEST_MS: i64 = 60_000;
/// Rows per INSERT statement and per database transaction.
const CHUNK: usize = 500;
const PER_COMMIT: usize = 10_000;
/// Which gateway each measured segment goes to: 0 without the backlog, 1 with it.
const ORDER: [usize; 8] = [0, 1, 1, 0, 0, 1, 1, 0];
/// Transaction id prefixes of the creation segments, unique per gateway.
const PREFIXES: [&str; 8] = ["ha", "hb", "hc", "hd", "he", "hf", "hg", "hh"];

/// A path's figures on both gateways: `[without, with]`.
pub type Pair = [Outcome; 2];

pub struct Backlog {
    pub rows: usize,
    pub inserted_in: Duration,
    pub pending: Pair,
    pub status: Pair,
    /// The reconciler's due-check query (as a SELECT from the bench, median of five) at the end.
    pub due_query: [Duration; 2],
    /// Backlog rows the workers claimed, rescheduled or settled by the end of the measurement.
    pub touched: i64,
    /// Collections created by h itself that the reconciler claimed for a status check.
    pub checked: [i64; 2],
    pub checks: [Check; 2],
}

impl Backlog {
    pub fn ok(&self) -> bool {
        self.checks.iter().all(Check::ok)
    }

    pub fn errors(&self) -> u64 {
        self.pending.iter().chain(&self.status).map(|o| o.errors).sum()
    }
}

/// The backlog must stay far from its expiry for the whole measurement.
pub fn check_args(args: &Args) -> anyhow::Result<()> {
    anyhow::ensure!(args.backlog <= 1_000_000, "--backlog is at most 1,000,000");
    let measured = 16.0 * args.warmup + 4.0 * args.duration;
    anyhow::ensure!(
        measured < 180.0,
        "scenario h measures for 16 × warm-up + 4 × duration = {measured} s, but its backlog expires 5 minutes after the insert: at most 180 s"
    );
    Ok(())
}

pub async fn run(args: &Args, load: &Load, webhook_url: &str) -> anyhow::Result<Backlog> {
    let gws = [
        Gateway::start(args, webhook_url).await?,
        Gateway::start(args, webhook_url).await?,
    ];
    let pools = [
        Pool::open(&gws[0].database_url).await?,
        Pool::open(&gws[1].database_url).await?,
    ];
    eprintln!(
        "  inserting {} PENDING payments straight into the database, the workers running",
        args.backlog
    );
    let started = Instant::now();
    insert(&pools[1], &gws[1], args.backlog).await?;
    let inserted_in = started.elapsed();

    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(args.connections)
        .build()?;
    let segment = Load {
        connections: load.connections,
        warmup: load.warmup,
        duration: load.duration / (ORDER.len() as u32 / 2),
    };
    // A running database has rows and statistics. A fresh PostgreSQL database analyzed while
    // empty plans the foreign-key checks of the first creations as sequential scans and keeps
    // them (seen: 1,569 scans reading 5.1 million customer rows on the gateway without a
    // backlog), which would make the empty database the slow one. So each gateway first takes
    // collections for one warm-up period, unmeasured, and then both are analyzed.
    let priming = Load {
        connections: load.connections,
        warmup: load.warmup,
        duration: Duration::ZERO,
    };
    for gw in &gws {
        priming
            .run(paths::collection(&client, &gw.base, &gw.token, "hp", "06"))
            .await;
        gw.analyze().await?;
    }
    eprintln!("  d. collection PENDING, A B B A A B B A");
    let pending = alternate(&segment, |g, s| {
        paths::collection(&client, &gws[g].base, &gws[g].token, PREFIXES[s], "06")
    })
    .await;
    for gw in &gws {
        gw.analyze().await?;
    }
    // The collections just created: the lookup reads a transaction the same way whatever its
    // status.
    let ids: [Arc<Vec<String>>; 2] = [0, 1].map(|g| Arc::new(pending[g].created.iter().cloned().collect()));
    anyhow::ensure!(
        ids.iter().all(|i| !i.is_empty()),
        "scenario h created no collection to look up"
    );
    eprintln!("  e. status lookup, A B B A A B B A");
    let status = alternate(&segment, |g, _| {
        paths::status_lookup(&client, &gws[g].base, &gws[g].token, ids[g].clone())
    })
    .await;

    let due_query = [due_query(&pools[0]).await?, due_query(&pools[1]).await?];
    let touched = pools[1]
        .count(&format!(
            "SELECT COUNT(*) FROM transactions WHERE transaction_id LIKE 'backlog-%' \
             AND (status <> 'PENDING' OR check_token IS NOT NULL OR next_check_at <> created_at + {COLLECTION_TTL_MS})"
        ))
        .await?;
    let mut checked = [0; 2];
    for (g, pool) in pools.iter().enumerate() {
        checked[g] = pool
            .count(
                "SELECT COUNT(*) FROM transactions WHERE check_token IS NOT NULL \
                 AND transaction_id NOT LIKE 'backlog-%'",
            )
            .await?;
    }
    let checks = [
        gws[0].check(&pending[0].created).await?,
        gws[1].check(&pending[1].created).await?,
    ];
    drop(pools);
    for gw in gws {
        gw.stop().await;
    }
    Ok(Backlog {
        rows: args.backlog,
        inserted_in,
        pending,
        status,
        due_query,
        touched,
        checked,
        checks,
    })
}

/// Runs the requests of `make(gateway, segment)` on the gateways in `ORDER`, and adds up each
/// gateway's segments.
async fn alternate<M, F>(segment: &Load, make: M) -> Pair
where
    M: Fn(usize, usize) -> F,
    F: Fn(usize, u64) -> (reqwest::RequestBuilder, Option<String>) + Send + Sync + Clone + 'static,
{
    let mut pair = Pair::default();
    for (s, &g) in ORDER.iter().enumerate() {
        let measured = segment.run(make(g, s)).await;
        eprintln!(
            "    {}: {:.0} req/s, p99 {:.1} ms",
            ["without", "with"][g],
            measured.throughput(),
            measured.percentile_ms(0.99)
        );
        let before = std::mem::take(&mut pair[g]);
        let elapsed = before.elapsed + measured.elapsed;
        let mut total = before.merge(measured);
        total.elapsed = elapsed;
        total.latencies_us.sort_unstable();
        pair[g] = total;
    }
    pair
}

/// How long the reconciler's due-check query takes now: the SELECT of its claim (`claim_due_checks`),
/// without the UPDATE, median of five.
async fn due_query(pool: &Pool) -> anyhow::Result<Duration> {
    let mut times = Vec::new();
    for _ in 0..5 {
        let now = sql::now_millis();
        let sql = format!(
            "SELECT COUNT(*) FROM (SELECT id FROM transactions WHERE status = 'PENDING' AND next_check_at <= {now} \
             AND created_at <= {} AND ('' = '' OR kind = '') ORDER BY next_check_at LIMIT 200) due",
            now - RECONCILE_AFTER_MS
        );
        let started = Instant::now();
        pool.count(&sql).await?;
        times.push(started.elapsed());
    }
    times.sort();
    Ok(times[times.len() / 2])
}

/// Writes `rows` PENDING collections (payer, transaction, `CREATED` transition), 10,000 per commit.
async fn insert(pool: &Pool, gw: &Gateway, rows: usize) -> anyhow::Result<()> {
    let (merchant, environment) = (&gw.tenant.merchant_id, gw.tenant.environment);
    let now = sql::now_millis();
    let spread = (OLDEST_MS - YOUNGEST_MS) as usize;
    for commit_start in (0..rows).step_by(PER_COMMIT) {
        let mut statements = Vec::new();
        for chunk_start in (commit_start..(commit_start + PER_COMMIT).min(rows)).step_by(CHUNK) {
            let (mut customers, mut transactions, mut transitions) = (Vec::new(), Vec::new(), Vec::new());
            for i in chunk_start..(chunk_start + CHUNK).min(rows) {
                let (customer, id) = (Uuid::new_v4(), Uuid::new_v4());
                let phone = format!("01{i:06}06");
                let created_at = now - OLDEST_MS + (i * spread / rows.max(1)) as i64;
                let next_check_at = created_at + COLLECTION_TTL_MS;
                customers.push(format!(
                    "('{customer}', '{merchant}', '{environment}', 'Awa', 'Kone', '{phone}', 'CI', '{phone}', {created_at})"
                ));
                transactions.push(format!(
                    "('{id}', 'BL{i:08}', '{merchant}', '{environment}', 'backlog-{i}', 'collecte', 'GAMMA', '{phone}', \
                     '{phone}', 1500, 30, 1470, 1500, 'PENDING', '{customer}', 'Awa Kone', {created_at}, {next_check_at})"
                ));
                transitions.push(format!(
                    "('{}', '{id}', 'PENDING', 'CREATED', {created_at})",
                    Uuid::new_v4()
                ));
            }
            statements.push(format!(
                "INSERT INTO customers (id, merchant_id, environment, first_name, last_name, phone, country_code, \
                 payer_phone, created_at) VALUES {}",
                customers.join(", ")
            ));
            statements.push(format!(
                "INSERT INTO transactions (id, ref, merchant_id, environment, transaction_id, kind, operator, phone, \
                 phone_as_sent, amount, fees, amount_receive, amount_total, status, customer_id, name, created_at, \
                 next_check_at) VALUES {}",
                transactions.join(", ")
            ));
            statements.push(format!(
                "INSERT INTO transaction_transitions (id, transaction_id, to_status, cause, at) VALUES {}",
                transitions.join(", ")
            ));
        }
        pool.execute_all(&statements).await?;
    }
    Ok(())
}

pub fn print(b: &Backlog) {
    println!();
    println!(
        "h. d and e without and with a backlog of {} PENDING payments, written straight into the database in {:.1} s \
         (payers ending 06, created 1 to 10 minutes before, next check at their expiry); two fresh gateways, same \
         settings, measured alternately (A B B A A B B A)",
        b.rows,
        b.inserted_in.as_secs_f64()
    );
    println!();
    println!(
        "| path | req/s without | req/s with | with / without | p50 ms without | p50 ms with | p99 ms without | p99 ms with | errors |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (name, [without, with]) in [("d. collection PENDING", &b.pending), ("e. status lookup", &b.status)] {
        println!(
            "| {name} | {:.0} | {:.0} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} | {} |",
            without.throughput(),
            with.throughput(),
            with.throughput() / without.throughput().max(1e-9),
            without.percentile_ms(0.50),
            with.percentile_ms(0.50),
            without.percentile_ms(0.99),
            with.percentile_ms(0.99),
            without.errors + with.errors
        );
    }
    println!();
    println!(
        "backlog rows the workers claimed, rescheduled or settled during the run: {} of {}",
        b.touched, b.rows
    );
    println!(
        "collections created by h that the reconciler claimed for their first status check (30 s after creation): \
         {} without, {} with",
        b.checked[0], b.checked[1]
    );
    println!(
        "the reconciler's due-check query (its SELECT, from the bench; the reconciler claims every 5 s): \
         {:.2} ms without, {:.2} ms with",
        b.due_query[0].as_secs_f64() * 1000.0,
        b.due_query[1].as_secs_f64() * 1000.0
    );
    for (label, c) in [("without", &b.checks[0]), ("with", &b.checks[1])] {
        println!(
            "correctness {label}: {} transactions answered 2xx, {} missing; postings sum {}; inconsistent balances {}; {}",
            c.answered,
            c.missing,
            c.ledger.postings_sum,
            c.ledger.inconsistent_balances,
            if c.ok() { "OK" } else { "FAILED" }
        );
    }
}
