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
    /// The ceiling it is compared with, and the ratio (none when that ceiling was not run:
    /// `--scenarios c` alone measures no `b`).
    pub ratio: Option<(&'static str, Option<f64>)>,
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
            ratio: ceiling.map(|(label, c)| (label, (c.completed > 0).then(|| o.throughput() / c.throughput()))),
        }
    }

    /// The last column: `1.05 × b`, or why there is no ratio.
    pub fn ratio_text(&self) -> String {
        match self.ratio {
            None => "(ceiling)".to_owned(),
            Some((label, Some(x))) => format!("{x:.2} × {label}"),
            Some((label, None)) => format!("({label} not run)"),
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
        println!(
            "| {} | {:.0} | {:.2} | {:.2} | {:.2} | {} | {} |",
            r.name,
            r.throughput,
            r.p50,
            r.p99,
            r.max,
            r.errors,
            r.ratio_text()
        );
    }
    // Only the scenarios the run was asked for have a row.
    if args.scenarios.contains(&'f') {
        println!(
            "| f. webhook drain ({} events) | {:.0} deliveries/s | | | | 0 | total {:.1} s |",
            drained.events,
            drained.per_second(),
            drained.elapsed.as_secs_f64()
        );
    }
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

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::Row;
    use crate::load::Outcome;

    fn outcome(completed: u64) -> Outcome {
        Outcome {
            completed,
            elapsed: Duration::from_secs(1),
            ..Outcome::default()
        }
    }

    #[test]
    fn a_ratio_needs_its_ceiling_measured() {
        let (c, b) = (outcome(2_100), outcome(2_000));
        assert_eq!(Row::new("c", &c, Some(("b", &b))).ratio_text(), "1.05 × b");
        assert_eq!(Row::new("c", &c, Some(("b", &outcome(0)))).ratio_text(), "(b not run)");
        assert_eq!(Row::new("b", &b, None).ratio_text(), "(ceiling)");
    }
}
