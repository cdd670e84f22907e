//! The one table the bench prints.

use crate::drain::Drained;
use crate::gateway::Check;
use crate::load::Outcome;
use crate::Args;

pub struct Row {
    pub name: &'static str,
    pub throughput: f64,
    pub p50: f64,
    pub p99: f64,
    pub max: f64,
    pub errors: u64,
    /// The ceiling it is compared with, and the ratio.
    pub ratio: Option<(&'static str, f64)>,
}

impl Row {
    pub fn new(name: &'static str, o: &Outcome, ceiling: Option<(&'static str, &Outcome)>) -> Row {
        Row {
            name,
            throughput: o.throughput(),
            p50: o.percentile_ms(0.50),
            p99: o.percentile_ms(0.99),
            max: o.percentile_ms(1.0),
            errors: o.errors,
            ratio: ceiling.map(|(label, c)| (label, o.throughput() / c.throughput().max(1e-9))),
        }
    }
}

pub fn print(args: &Args, rows: &[Row], drained: &Drained, idle_kib: u64, peak_kib: u64, check: &Check) {
    println!();
    println!(
        "momo-bench: {:?}, {} connections, {} s warm-up + {} s measured per scenario, {} cores",
        args.db,
        args.connections,
        args.warmup,
        args.duration,
        std::thread::available_parallelism().map(|n| n.get()).unwrap_or(0)
    );
    println!();
    println!("| scenario | req/s | p50 ms | p99 ms | max ms | errors | ratio to ceiling |");
    println!("|---|---:|---:|---:|---:|---:|---|");
    for r in rows {
        let ratio = r
            .ratio
            .map(|(label, x)| format!("{x:.2} × {label}"))
            .unwrap_or_else(|| "(ceiling)".to_owned());
        println!(
            "| {} | {:.0} | {:.2} | {:.2} | {:.2} | {} | {} |",
            r.name, r.throughput, r.p50, r.p99, r.max, r.errors, ratio
        );
    }
    println!(
        "| f. webhook drain ({} events) | {:.0} deliveries/s | | | | 0 | total {:.1} s |",
        drained.events,
        drained.per_second(),
        drained.elapsed.as_secs_f64()
    );
    println!();
    println!(
        "gateway memory: idle {:.1} MB, peak {:.1} MB",
        idle_kib as f64 / 1024.0,
        peak_kib as f64 / 1024.0
    );
    println!(
        "correctness: {} transactions answered 2xx, {} missing from the database; postings sum {}; inconsistent balances {}; {}",
        check.answered,
        check.missing,
        check.ledger.postings_sum,
        check.ledger.inconsistent_balances,
        if check.ok() { "OK" } else { "FAILED" }
    );
}
