//! Scenario g: settlement under load. A gateway with the test suite's Sandbox settings
//! (simulator delay 1.5 s, collection lifetime 6 s) takes collections that the simulator settles
//! `SUCCESSFUL` after its delay (numbers ending 02) from every connection; then the bench waits
//! until nothing is pending and counts. A collection the operator settled must never end
//! `FAILED` with cause `EXPIRED`, however far the workers fall behind.

use std::time::{Duration, Instant};

use momo_gateway::domain::{Cursor, FailureCode, PageRequest, Status};
use serde_json::json;

use crate::gateway::Gateway;
use crate::load::Load;
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
    let store = gw.store().await?;
    let started = Instant::now();
    let deadline = started + Duration::from_secs(120);
    let mut settled = loop {
        let settled = tally(store.as_ref(), &gw).await?;
        if settled.still_pending == 0 || Instant::now() > deadline {
            break settled;
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    };
    settled.drained_in = started.elapsed();
    // Every 2xx creation is in the tally: the correctness check of the other scenarios shows
    // how; here a shortfall would show as `created` below what was answered.
    settled.created = settled.created.max(outcome.created.len());
    store.close().await;
    gw.stop().await;
    Ok(settled)
}

async fn tally(store: &dyn momo_gateway::store::Store, gw: &Gateway) -> anyhow::Result<Settled> {
    let mut settled = Settled::default();
    let mut after: Option<Cursor> = None;
    loop {
        let page = PageRequest {
            limit: 1000,
            after: after.clone(),
        };
        let batch = store.transactions(&gw.tenant, &Default::default(), &page).await?;
        after = batch.last().map(|r| Cursor {
            created_at: r.transaction.created_at,
            id: r.transaction.id.to_string(),
        });
        let full = batch.len() == 1000;
        for record in &batch {
            let t = &record.transaction;
            settled.created += 1;
            match (t.status, t.failure_code) {
                (Status::Successful, _) => settled.successful += 1,
                (Status::Failed, Some(FailureCode::Expired)) => settled.expired += 1,
                (Status::Failed, _) => settled.other_failures += 1,
                (Status::Pending, _) => settled.still_pending += 1,
            }
        }
        if !full {
            return Ok(settled);
        }
    }
}
