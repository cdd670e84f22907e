//! What the gateway's batch writers did during a scenario, from its `/metrics` read before and
//! after (`momo_write_batch*`): writes a batch, and how many seconds a second the writers were
//! busy and committing. It says whether a creation scenario was bound by its writers, and by what in
//! them, without a probe build. A gateway built before those metrics existed (`--compare` with
//! an older revision) shows none.

use std::time::Instant;

/// The writers' counters at one moment.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Totals {
    batches: f64,
    writes: f64,
    busy_s: f64,
    commit_s: f64,
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
        at,
    })
}

/// `32.0 writes a batch, 100 batches/s; writers busy 0.95 s a second, 0.28 s of it in COMMIT`
/// (one writer on SQLite, so 1 s a second is saturated; `MOMO_WRITERS` on PostgreSQL).
pub fn describe(before: &Totals, after: &Totals) -> Option<String> {
    let wall = after.at.duration_since(before.at).as_secs_f64();
    let batches = after.batches - before.batches;
    if batches <= 0.0 || wall <= 0.0 {
        return None;
    }
    Some(format!(
        "{:.1} writes a batch, {:.0} batches/s; writers busy {:.2} s a second, {:.2} s of it in COMMIT",
        (after.writes - before.writes) / batches,
        batches / wall,
        (after.busy_s - before.busy_s) / wall,
        (after.commit_s - before.commit_s) / wall,
    ))
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
}
