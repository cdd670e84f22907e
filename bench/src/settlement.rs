//! Scenario g: settlement under load. A gateway with the test suite's Sandbox settings
//! (simulator delay 1.5 s, collection lifetime 6 s) takes collections that the simulator settles
//! `SUCCESSFUL` after its delay (numbers ending 02) from every connection; then the bench waits
//! until nothing is pending and counts. A collection the operator settled must never end
//! `FAILED` with cause `EXPIRED`, however far the workers fall behind.

use std::time::{Duration, Instant};

use serde_json::json;

use crate::gateway::Gateway;
use crate::load::Load;
use crate::sql::Pool;
use crate::Args;

/// What became of the collections.
#[derive(Debug, Default)]
pub struct Settled {
    pub created: usize,
    pub successful: usize,
    pub expired: usize,
    pub other_failures: usize,
    pub still_pending: usize,
    /// From the end of the load until nothing was pending.
    pub drained_in: Duration,
}

pub async fn run(args: &Args, load: &Load, webhook_url: &str) -> anyhow::Result<Settled> {
    let gw = Gateway::start_with(
        args,
        webhook_url,
        &[("MOMO_SIMULATOR_DELAY_MS", "1500"), ("MOMO_COLLECTION_TTL_S", "6")],
    )
    .await?;
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(args.connections)
        .build()?;
    let (base, token) = (gw.base.clone(), gw.token.clone());
    let outcome = load
        .run(move |task, i| {
            let id = format!("g{task}x{i}");
            let phone = format!("07{:06}02", (task as u64 * 15_485_863 + i * 7_919) % 1_000_000);
            let body = json!({
                "transactionId": id, "payer": phone, "currency": "XOF", "amount": "1500",
                "operator": "GAMMA_MONEY_CI",
                "customer": {"firstName": "Awa", "lastName": "Kone", "phone": phone, "address": {"countryCode": "CI"}}
            });
            (
                client
                    .post(format!("{base}/v1/collecte/mobile-money"))
                    .bearer_auth(&token)
                    .json(&body),
                Some(id),
            )
        })
        .await;
    let pool = Pool::open(&gw.database_url).await?;
    let started = Instant::now();
    let deadline = started + Duration::from_secs(120);
    let mut settled = loop {
        let settled = tally(&pool.by_status(&gw.tenant).await?)?;
        if settled.still_pending == 0 || Instant::now() > deadline {
            break settled;
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    };
    settled.drained_in = started.elapsed();
    // Every 2xx creation is in the tally: the correctness check of the other scenarios shows
    // how; here a shortfall would show as `created` below what was answered.
    settled.created = settled.created.max(outcome.created.len());
    pool.close().await;
    gw.stop().await;
    Ok(settled)
}

/// The collections by what became of them, from their counts by status and failure code.
fn tally(counts: &[(String, Option<String>, i64)]) -> anyhow::Result<Settled> {
    let mut settled = Settled::default();
    for (status, failure_code, n) in counts {
        let n = usize::try_from(*n)?;
        settled.created += n;
        match (status.as_str(), failure_code.as_deref()) {
            ("SUCCESSFUL", _) => settled.successful += n,
            ("FAILED", Some("EXPIRED")) => settled.expired += n,
            ("FAILED", _) => settled.other_failures += n,
            ("PENDING", _) => settled.still_pending += n,
            (other, _) => anyhow::bail!("a transaction has the status {other:?}, which the bench does not know"),
        }
    }
    Ok(settled)
}

#[cfg(test)]
mod tests {
    use super::tally;

    #[test]
    fn an_expired_collection_is_told_from_other_failures() {
        let row = |status: &str, code: Option<&str>, n| (status.to_owned(), code.map(str::to_owned), n);
        let settled = tally(&[
            row("SUCCESSFUL", None, 5),
            row("FAILED", Some("EXPIRED"), 2),
            row("FAILED", Some("PAYER_DECLINED"), 1),
            row("PENDING", None, 3),
        ])
        .unwrap();
        let counts = (
            settled.created,
            settled.successful,
            settled.expired,
            settled.other_failures,
            settled.still_pending,
        );
        assert_eq!(counts, (11, 5, 2, 1, 3));
        assert!(tally(&[row("REVERSED", None, 1)]).is_err());
    }
}
