//! Scenario p: payout batches. On a fresh gateway, c's load in four turns, A B B A, each on
//! payers of its own: A alone; then `--payout-batches` batches of 5,000 transfers (ten: 50,000)
//! are sent, each request timed from send to answer (5,000 accepted in less than a second is
//! the target); B and B again while those transfers drain through the payout sender at
//! `--payout-rate` per operator; then, once every batch has completed with every transfer
//! paid, A again. c's p99 while draining within 1.5 × its p99 alone is the target, judged on
//! the means of the two turns of each: the order cancels a drift of the machine or the
//! database over the run (a database grown by the batches, autovacuum), which a single before
//! and after would count against the drain.

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::gateway::Gateway;
use crate::load::{Load, Outcome};
use crate::sql::Pool;
use crate::{paths, Args};

/// Items per batch, the most a batch holds.
const ITEMS: usize = 5_000;
/// The operators the transfers are spread over, as a payroll pays every network.
const OPERATORS: [&str; 4] = ["ALPHA_MONEY_CI", "BETA_MONEY_CI", "GAMMA_MONEY_CI", "DELTA_MONEY_CI"];

/// What scenario p measured.
#[derive(Debug)]
pub struct Payouts {
    /// Each batch's request, send to answer.
    pub accepted_in: Vec<Duration>,
    /// c alone, before the batches and after they completed.
    pub alone: [Outcome; 2],
    /// c while the batches drain, twice.
    pub draining: [Outcome; 2],
    /// Transfers still queued when c's first load while draining began and when its second ended.
    pub queued_before: i64,
    pub queued_after: i64,
    /// From the first batch's answer until every batch was completed.
    pub drained_in: Duration,
    /// Batches completed with every transfer SUCCESSFUL.
    pub completed: usize,
}

impl Payouts {
    pub fn ok(&self) -> bool {
        self.completed == self.accepted_in.len()
    }
}

/// Batch `b`'s body: 5,000 transfers of 100 francs to numbers ending 1 (SUCCESSFUL at once).
fn batch(b: usize) -> Value {
    let items: Vec<Value> = (0..ITEMS)
        .map(|i| {
            let phone = format!("07{:07}1", (b * ITEMS + i) % 10_000_000);
            json!({
                "transactionId": format!("p{b}x{i}"), "recipient": phone, "currency": "XOF", "amount": "100",
                "operator": OPERATORS[i % OPERATORS.len()],
                "customer": {"firstName": "Awa", "lastName": "Kone", "phone": phone, "address": {"countryCode": "CI"}}
            })
        })
        .collect();
    json!({"label": format!("bench {b}"), "items": items})
}

pub async fn run(args: &Args, load: &Load, webhook_url: &str) -> anyhow::Result<Payouts> {
    let rate = args.payout_rate.to_string();
    let gw = Gateway::start_with(
        args,
        webhook_url,
        &[
            ("MOMO_SIMULATOR_DELAY_MS", "86400000"),
            ("MOMO_PAYOUT_RATE_PER_S", &rate),
        ],
    )
    .await?;
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(args.connections)
        .build()?;
    let (base, token) = (gw.base.clone(), gw.token.clone());
    let pool = Pool::open(&gw.database_url).await?;
    let turn =
        |scenario: &'static str, shift: u64| paths::collection_from(&client, &base, &token, scenario, "01", shift);
    let first = load.run(turn("pa", 0)).await;
    // Every turn starts from a quiet gateway: the webhooks of the one before are delivered
    // first, so a turn's time is shared with the drain alone.
    pool.quiet().await?;

    let bodies: Vec<Value> = (0..args.payout_batches).map(batch).collect();
    let mut accepted_in = Vec::with_capacity(bodies.len());
    let mut ids = Vec::with_capacity(bodies.len());
    let mut first_answer = None;
    for body in &bodies {
        let started = Instant::now();
        let answer = client
            .post(format!("{base}/v1/payout-batches"))
            .bearer_auth(&token)
            .json(body)
            .send()
            .await?;
        let status = answer.status();
        let answer: Value = answer.json().await?;
        accepted_in.push(started.elapsed());
        first_answer.get_or_insert_with(Instant::now);
        let accepted = &answer["data"]["batch"]["accepted"]["count"];
        anyhow::ensure!(
            status.as_u16() == 202 && accepted == ITEMS,
            "a batch of {ITEMS} was not accepted whole: {status} {accepted}"
        );
        ids.push(answer["data"]["batch"]["id"].as_str().unwrap_or_default().to_owned());
    }
    // Counted through the bench's one read connection: a store of its own (with its
    // checkpointer) on the gateway's SQLite file would contend with the gateway's writer.
    const QUEUED: &str = "SELECT COUNT(*) FROM transactions WHERE queued_at IS NOT NULL";
    let queued_before = pool.count(QUEUED).await?;
    let draining = [load.run(turn("pb", 250_000)).await, load.run(turn("pc", 500_000)).await];
    let queued_after = pool.count(QUEUED).await?;
    eprintln!(
        "p. c alone p99 {:.1} ms; while draining p99 {:.1} ms, {:.1} ms; queued {queued_before} then {queued_after}; waiting for every batch to complete",
        first.percentile_ms(0.99),
        draining[0].percentile_ms(0.99),
        draining[1].percentile_ms(0.99)
    );

    let deadline = Instant::now() + Duration::from_secs(600);
    let completed = loop {
        let mut completed = 0;
        for id in &ids {
            let b: Value = client
                .get(format!("{base}/v1/payout-batches/{id}"))
                .bearer_auth(&token)
                .send()
                .await?
                .json()
                .await?;
            let data = &b["data"];
            if data["status"] == "completed" && data["successful"]["count"] == ITEMS {
                completed += 1;
            }
        }
        if completed == ids.len() || Instant::now() > deadline {
            break completed;
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    };
    let drained_in = first_answer.map(|at| at.elapsed()).unwrap_or_default();
    pool.quiet().await?;
    let last = load.run(turn("pd", 750_000)).await;
    gw.stop().await;
    Ok(Payouts {
        accepted_in,
        alone: [first, last],
        draining,
        queued_before,
        queued_after,
        drained_in,
        completed,
    })
}

pub fn print(p: &Payouts) {
    let mut ms: Vec<f64> = p.accepted_in.iter().map(|d| d.as_secs_f64() * 1000.0).collect();
    ms.sort_by(f64::total_cmp);
    let (best, median, worst) = (ms[0], ms[ms.len() / 2], ms[ms.len() - 1]);
    let batches = p.accepted_in.len();
    println!(
        "p. payout batches: {batches} batches of {ITEMS} accepted in {best:.0} ms best, {median:.0} ms median, {worst:.0} ms worst (target < 1000 ms)"
    );
    let p99 = |o: &Outcome| o.percentile_ms(0.99);
    let mean = |turns: &[Outcome; 2], f: &dyn Fn(&Outcome) -> f64| (f(&turns[0]) + f(&turns[1])) / 2.0;
    let (alone, during) = (mean(&p.alone, &p99), mean(&p.draining, &p99));
    println!(
        "p. c in turns A B B A, p99 {:.1} / {:.1} / {:.1} / {:.1} ms, {:.0} / {:.0} / {:.0} / {:.0} req/s; while they drain {during:.1} ms against {alone:.1} ms alone (means): {:.2} × (target ≤ 1.5 ×); {} transfers queued as the first B began, {} as the second ended",
        p99(&p.alone[0]),
        p99(&p.draining[0]),
        p99(&p.draining[1]),
        p99(&p.alone[1]),
        p.alone[0].throughput(),
        p.draining[0].throughput(),
        p.draining[1].throughput(),
        p.alone[1].throughput(),
        during / alone.max(f64::MIN_POSITIVE),
        p.queued_before,
        p.queued_after,
    );
    println!(
        "p. {} of {batches} batches completed, every transfer SUCCESSFUL, {:.1} s after the first was accepted",
        p.completed,
        p.drained_in.as_secs_f64()
    );
}
