//! Two gateway processes sharing one PostgreSQL database, as it runs in production when scaled
//! out: every creation made once, every payment settled once, every webhook delivered once.

use std::collections::{HashMap, HashSet};

use momo_gateway::config::Config;
use momo_gateway::domain::{Environment, MerchantId, PageRequest, Tenant, Timestamp};
use momo_gateway::store::TransactionFilter;
use reqwest::StatusCode;
use sqlx::Connection;

use super::processes::{eventually, token};
use crate::support::requests::collect_v1;
use momo_test_support::process;
use momo_test_support::receiver::Receiver;
use momo_test_support::{Backend, TestDatabase};

#[tokio::test]
async fn two_processes_on_one_postgres_database_create_settle_and_deliver_everything_once() {
    let Some(db) = TestDatabase::create(Backend::Postgres).await else {
        return;
    };
    let receiver = Receiver::start(vec![], None).await;
    let admin = momo_gateway::app::open(Config {
        database_url: db.url.clone(),
        webhook: momo_gateway::config::WebhookSettings {
            allow_private: true,
            ..Config::default().webhook
        },
        ..Config::default()
    })
    .await
    .unwrap();
    let merchant = admin
        .merchants
        .create_merchant("Two processes", Some(&receiver.url), Timestamp::now())
        .await
        .unwrap();
    let sandbox = merchant
        .environments
        .iter()
        .find(|e| e.environment == Environment::Sandbox)
        .unwrap()
        .clone();
    let start = || {
        let mut command = process::command(&db.url);
        command
            .env("MOMO_WEBHOOK_ALLOW_PRIVATE", "true")
            .env("MOMO_SIMULATOR_DELAY_MS", "300")
            .env("MOMO_RECONCILE_INTERVAL_MS", "200")
            .env("MOMO_RECONCILE_AFTER_MS", "1000");
        process::serve(command)
    };
    let (a, b) = (start(), start());
    let client = reqwest::Client::new();
    let token = token(&client, &a.base, &sandbox.api_key, &sandbox.api_secret).await;
    // 1,000 creations, every fifth one a duplicate, alternating between the processes.
    let mut creations = tokio::task::JoinSet::new();
    for worker in 0..20 {
        let (client, token) = (client.clone(), token.clone());
        let bases = [a.base.clone(), b.base.clone()];
        creations.spawn(async move {
            let mut statuses = Vec::new();
            for i in 0..50 {
                let n = worker * 50 + i;
                let id = format!("mp-{}", n % 800);
                let ending = ["01", "02", "05"][n % 3];
                let base = &bases[n % 2];
                let answer = client
                    .post(format!("{base}/v1/collecte/mobile-money"))
                    .bearer_auth(&token)
                    .json(&collect_v1(&id, &format!("07010203{ending}"), "GAMMA_MONEY_CI", "1000"))
                    .send()
                    .await
                    .unwrap();
                let status = answer.status();
                // What a refusal said, so that an unexpected one explains itself.
                let said = if status.is_server_error() {
                    answer.text().await.unwrap_or_default()
                } else {
                    String::new()
                };
                statuses.push((id, status, said));
            }
            statuses
        });
    }
    let mut created: HashMap<String, usize> = HashMap::new();
    while let Some(statuses) = creations.join_next().await {
        for (id, status, said) in statuses.unwrap() {
            match status {
                StatusCode::OK | StatusCode::ACCEPTED => *created.entry(id).or_default() += 1,
                StatusCode::CONFLICT => {}
                other => {
                    // The processes' own account of the failure: their warnings and errors.
                    let logs = [&a, &b].map(|p| {
                        let lines = p.logs.lock().unwrap();
                        let troubles = lines.iter().filter(|l| l.contains("WARN") || l.contains("ERROR"));
                        troubles.cloned().collect::<Vec<_>>().join("\n")
                    });
                    panic!("unexpected {other} for {id}: {said}\n{}\n{}", logs[0], logs[1])
                }
            }
        }
    }
    assert_eq!(created.len(), 800, "every transaction id was created");
    assert!(created.values().all(|n| *n == 1), "and created once");
    eventually("every transaction settled and every webhook delivered", async || {
        let gauges = admin.gauges(Timestamp::now()).await.database;
        gauges.is_some_and(|g| g.pending_transactions == 0 && g.outbox_backlog == 0)
    })
    .await;
    let received = receiver.received();
    let ids: HashSet<&str> = received.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(received.len(), 800, "one delivery per transaction");
    assert_eq!(ids.len(), 800, "no event delivered twice");
    let mut conn = sqlx::PgConnection::connect(&db.url).await.unwrap();
    let twice: i64 = sqlx::query_scalar(
        "SELECT COUNT(*) FROM (SELECT transaction_id FROM transaction_transitions WHERE to_status <> 'PENDING' \
         GROUP BY transaction_id HAVING COUNT(*) > 1) AS settled_twice",
    )
    .fetch_one(&mut conn)
    .await
    .unwrap();
    assert_eq!(twice, 0, "no transaction was settled twice");
    let check = admin.payments.check_ledger().await.unwrap();
    assert_eq!(
        (
            check.postings_sum,
            check.inconsistent_balances,
            check.final_without_one_event
        ),
        (0, 0, 0)
    );
    let tenant = Tenant {
        merchant_id: MerchantId::from(merchant.id.to_string()),
        environment: Environment::Sandbox,
    };
    let successful = admin
        .payments
        .transactions(
            &tenant,
            &TransactionFilter {
                status: Some(momo_gateway::domain::Status::Successful),
                ..Default::default()
            },
            &PageRequest {
                limit: 1000,
                after: None,
            },
        )
        .await
        .unwrap();
    assert_eq!(
        successful.len(),
        800,
        "01 at once, 02 by callback, 05 by the reconciler"
    );
    let _ = conn.close().await;
    for running in [a, b] {
        let (status, _) = running.terminate().await;
        assert!(status.success());
    }
}
