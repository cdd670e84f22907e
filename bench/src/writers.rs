//! What the gateway's batch writers did during a scenario, from its `/metrics` read before and
//! after (`momo_write_batch*`): writes a batch, and how many seconds a second the writers were
//! busy and committing, and the median and 99th percentile of the batches' and the commits'
//! durations (`momo_write_*_duration_seconds`). It says whether a creation scenario was bound by
//! its writers, and by what in them, without a probe build. A gateway built before those
//! metrics existed (`--compare` with an older revision) shows none, or no percentiles.

use std::time::Instant;

/// The writers' counters at one moment.
#[derive(Debug, Clone, PartialEq)]
pub struct Totals {
    batches: f64,
    writes: f64,
    busy_s: f64,
    commit_s: f64,
    /// The cumulative buckets (upper bound in seconds, count) of the batches' durations.
    batch_times: Vec<(f64, f64)>,
    /// The same of the commits' durations.
    commit_times: Vec<(f64, f64)>,
    at: Instant,
}

/// Reads the counters from the gateway's `/metrics`; `None` when it has none.
pub async fn read(client: &reqwest::Client, base: &str) -> Option<Totals> {
    let text = client
        .get(format!("{base}/metrics"))
        .send()
        .await
        .ok()?
        .text()
        .await
        .ok()?;
    parse(&text, Instant::now())
}

/// Runs `work`, reading the counters before and after it.
pub async fn around<T>(
    client: &reqwest::Client,
    base: &str,
    work: impl std::future::Future<Output = T>,
) -> (T, Option<(Totals, Totals)>) {
    let before = read(client, base).await;
    let outcome = work.await;
    (outcome, before.zip(read(client, base).await))
}

fn parse(text: &str, at: Instant) -> Option<Totals> {
    let sample = |name: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(name)?.strip_prefix(' '))
            .and_then(|v| v.trim().parse::<f64>().ok())
    };
    Some(Totals {
        batches: sample("momo_write_batches_total{outcome=\"committed\"}")?,
        writes: sample("momo_write_batch_writes_total")?,
        busy_s: sample("momo_write_batch_busy_seconds_total")?,
        commit_s: sample("momo_write_batch_commit_seconds_total")?,
        batch_times: buckets(text, "momo_write_batch_duration_seconds_bucket{le=\""),
        commit_times: buckets(text, "momo_write_commit_duration_seconds_bucket{le=\""),
        at,
    })
}

/// A histogram's cumulative buckets, `+Inf` as infinity; empty when the gateway has none.
fn buckets(text: &str, prefix: &str) -> Vec<(f64, f64)> {
    text.lines()
        .filter_map(|l| {
            let (bound, count) = l.strip_prefix(prefix)?.split_once("\"} ")?;
            let bound = if bound == "+Inf" {
                f64::INFINITY
            } else {
                bound.parse().ok()?
            };
            Some((bound, count.trim().parse().ok()?))
        })
        .collect()
}

/// The `q` quantile of what was counted between `before` and `after` (cumulative buckets of
/// the same bounds), interpolated within its bucket as Prometheus's `histogram_quantile` does;
/// in the last bucket (`+Inf`), its lower bound. `None` without buckets or counts.
fn quantile(q: f64, before: &[(f64, f64)], after: &[(f64, f64)]) -> Option<f64> {
    if before.len() != after.len() {
        return None;
    }
    let counted: Vec<(f64, f64)> = after
        .iter()
        .zip(before)
        .map(|(&(le, a), &(_, b))| (le, a - b))
        .collect();
    let total = counted.last()?.1;
    if total <= 0.0 {
        return None;
    }
    let rank = q * total;
    let mut below = (0.0, 0.0);
    for &(le, count) in &counted {
        if count >= rank {
            if le.is_infinite() {
                return Some(below.0);
            }
            let share = if count > below.1 {
                (rank - below.1) / (count - below.1)
            } else {
                1.0
            };
            return Some(below.0 + (le - below.0) * share);
        }
        below = (le, count);
    }
    None
}

/// `32.0 writes a batch, 100 batches/s; writers busy 0.95 s a second, 0.28 s of it in COMMIT;
/// batches p50 4.1 ms, p99 9.8 ms; commits p50 1.0 ms, p99 4.2 ms` (one writer on SQLite, so 1 s
/// a second is saturated; `MOMO_WRITERS` on PostgreSQL).
pub fn describe(before: &Totals, after: &Totals) -> Option<String> {
    let wall = after.at.duration_since(before.at).as_secs_f64();
    let batches = after.batches - before.batches;
    if batches <= 0.0 || wall <= 0.0 {
        return None;
    }
    let mut line = format!(
        "{:.1} writes a batch, {:.0} batches/s; writers busy {:.2} s a second, {:.2} s of it in COMMIT",
        (after.writes - before.writes) / batches,
        batches / wall,
        (after.busy_s - before.busy_s) / wall,
        (after.commit_s - before.commit_s) / wall,
    );
    for (what, before, after) in [
        ("batches", &before.batch_times, &after.batch_times),
        ("commits", &before.commit_times, &after.commit_times),
    ] {
        if let (Some(p50), Some(p99)) = (quantile(0.5, before, after), quantile(0.99, before, after)) {
            line += &format!("; {what} p50 {:.1} ms, p99 {:.1} ms", p50 * 1e3, p99 * 1e3);
        }
    }
    Some(line)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn batch_size_and_busy_time_come_from_the_counters_difference() {
        let text = |batches: u32, writes: u32, busy: f64, commit: f64| {
            format!(
                "momo_write_batches_total{{outcome=\"committed\"}} {batches}\n\
                 momo_write_batches_total{{outcome=\"failed\"}} 0\n\
                 momo_write_batch_writes_total {writes}\n\
                 momo_write_batch_busy_seconds_total {busy}\n\
                 momo_write_batch_commit_seconds_total {commit}\n"
            )
        };
        let t0 = Instant::now();
        let before = parse(&text(10, 100, 1.0, 0.5), t0).unwrap();
        let after = parse(&text(210, 6_500, 2.9, 1.06), t0 + Duration::from_secs(2)).unwrap();
        assert_eq!(
            describe(&before, &after).unwrap(),
            "32.0 writes a batch, 100 batches/s; writers busy 0.95 s a second, 0.28 s of it in COMMIT"
        );
        assert_eq!(parse("momo_http_requests_total 3\n", t0), None, "an older gateway");
    }

    #[test]
    fn the_percentiles_come_from_the_buckets_difference() {
        let text = |counts: [u32; 4]| {
            format!(
                "momo_write_batches_total{{outcome=\"committed\"}} {}\n\
                 momo_write_batch_writes_total 0\n\
                 momo_write_batch_busy_seconds_total 0\n\
                 momo_write_batch_commit_seconds_total 0\n\
                 momo_write_batch_duration_seconds_bucket{{le=\"0.002\"}} {}\n\
                 momo_write_batch_duration_seconds_bucket{{le=\"0.004\"}} {}\n\
                 momo_write_batch_duration_seconds_bucket{{le=\"0.008\"}} {}\n\
                 momo_write_batch_duration_seconds_bucket{{le=\"+Inf\"}} {}\n",
                counts[3], counts[0], counts[1], counts[2], counts[3]
            )
        };
        let t0 = Instant::now();
        let before = parse(&text([5, 5, 5, 5]), t0).unwrap();
        // 100 batches since: 40 up to 2 ms, 50 in (2, 4], 9 in (4, 8], 1 above 8 ms.
        let after = parse(&text([45, 95, 104, 105]), t0 + Duration::from_secs(1)).unwrap();
        let line = describe(&before, &after).unwrap();
        // The median is the 10th of the 50 in (2, 4]: 2 + 2 * 10/50 = 2.4 ms. The 99th
        // percentile is the last of the 9 in (4, 8]: 8 ms.
        assert!(line.ends_with("; batches p50 2.4 ms, p99 8.0 ms"), "{line}");
        assert!(
            !line.contains("commits"),
            "no commit buckets, no commit percentiles: {line}"
        );
        assert_eq!(
            quantile(0.999, &before.batch_times, &after.batch_times),
            Some(0.008),
            "in +Inf: its lower bound"
        );
    }
}
