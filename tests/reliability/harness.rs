//! What every scenario needs around the gateway process: a merchant made by the gateway's own
//! library (which also migrates the database), the `serve` command with the settings the
//! scenario names, a token, the stored transactions of a tenant, the money invariants, and the
//! panics and 500s to count in the figures.

use std::collections::HashMap;
use std::process::Command;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use momo_gateway::config::Config;
use momo_gateway::domain::{
    Cursor, Environment, EventFilter, EventSummary, PageRequest, Tenant, Timestamp, TransactionRecord,
};
use momo_gateway::reconcile::reconciler;
use momo_gateway::service::Gateway;
use momo_gateway::store::PendingPage;
use momo_gateway::store::TransactionFilter;

use momo_test_support::{poll, process};

/// The token key of every gateway process of a scenario, so a token outlives a restart.
pub const JWT_SECRET: &str = "reliability-jwt-secret-that-is-at-least-32-bytes";

/// A count from the environment (the full run's), or `default` (CI's reduced one).
pub fn env_count(name: &str, default: u64) -> u64 {
    match std::env::var(name) {
        Ok(raw) => raw
            .parse()
            .unwrap_or_else(|_| panic!("{name} must be a whole number, not {raw:?}")),
        Err(_) => default,
    }
}

/// A free port on loopback, for a process that must come back where it was: no outgoing
/// connection takes it while the process is down.
pub use momo_test_support::ports::free_port;

/// `sqlite` or `postgres`, for the figures.
pub fn backend(database_url: &str) -> &'static str {
    if database_url.starts_with("postgres") {
        "postgres"
    } else {
        "sqlite"
    }
}

/// The merchant a scenario pays with: its Sandbox credentials and tenant.
#[derive(Debug, Clone)]
pub struct Merchant {
    pub api_key: String,
    pub api_secret: String,
    pub webhook_secret: String,
    pub tenant: Tenant,
}

/// Opens the database as an administrator would, with the settings the processes get (in the
/// variables' own spelling), and migrates it; the returned [`Gateway`] reads what the processes
/// wrote and can run their workers' steps.
pub async fn admin(database_url: &str, settings: &[(&str, String)]) -> Gateway {
    let lookup = |name: &str| match name {
        "MOMO_DATABASE_URL" => Some(database_url.to_owned()),
        "MOMO_JWT_SECRET" => Some(JWT_SECRET.to_owned()),
        _ => settings.iter().find(|(n, _)| *n == name).map(|(_, v)| v.clone()),
    };
    let config = Config::from_sources(None, lookup).expect("valid settings");
    momo_gateway::app::open(config).await.expect("the database opens")
}

pub async fn merchant(admin: &Gateway, name: &str, webhook_url: Option<&str>) -> Merchant {
    let created = admin
        .merchants
        .create_merchant(name, webhook_url, Timestamp::now())
        .await
        .expect("a merchant");
    let sandbox = created
        .environments
        .iter()
        .find(|e| e.environment == Environment::Sandbox)
        .expect("a Sandbox")
        .clone();
    Merchant {
        api_key: sandbox.api_key,
        api_secret: sandbox.api_secret,
        webhook_secret: sandbox.webhook_secret,
        tenant: Tenant {
            merchant_id: created.id.clone(),
            environment: Environment::Sandbox,
        },
    }
}

/// `momo-gateway serve` on `database_url` with the scenario's settings; see [`process::command`].
pub fn command(database_url: &str, settings: &[(&str, String)]) -> Command {
    let mut command = process::command(database_url);
    command.env("MOMO_JWT_SECRET", JWT_SECRET);
    for (name, value) in settings {
        command.env(name, value);
    }
    command
}

pub async fn token(client: &reqwest::Client, base: &str, merchant: &Merchant) -> String {
    let answer = client
        .post(format!("{base}/v1/auth"))
        .basic_auth(&merchant.api_key, Some(&merchant.api_secret))
        .header("X-Environment", "Sandbox")
        .send()
        .await
        .expect("the gateway answers /v1/auth");
    assert!(answer.status().is_success(), "auth: {}", answer.status());
    let body: serde_json::Value = answer.json().await.expect("a JSON answer");
    body["data"]["token"].as_str().expect("a token").to_owned()
}

/// Every transaction of `tenant`, by the merchant's transaction id, paging through the store.
/// Panics when one id is stored twice.
pub async fn stored(admin: &Gateway, tenant: &Tenant) -> HashMap<String, TransactionRecord> {
    let mut all = HashMap::new();
    let mut after = None;
    loop {
        let page = admin
            .payments
            .transactions(
                tenant,
                &TransactionFilter::default(),
                &PageRequest { limit: 1000, after },
            )
            .await
            .expect("the store answers");
        let Some(last) = page.last() else { return all };
        after = Some(Cursor {
            created_at: last.transaction.created_at,
            id: last.transaction.id.to_string(),
        });
        for record in page {
            let id = record.transaction.transaction_id.to_string();
            assert!(all.insert(id.clone(), record).is_none(), "{id} is stored twice");
        }
    }
}

/// The transaction ids still `PENDING`, every tenant.
pub async fn pending(admin: &Gateway) -> Vec<String> {
    let far = Timestamp(Timestamp::now().millis() + 86_400_000);
    admin
        .payments
        .pending_transactions(PendingPage {
            created_before: far,
            kind: None,
            after: None,
            limit: 10_000,
        })
        .await
        .expect("the store answers")
        .into_iter()
        .map(|r| r.transaction.transaction_id.into_string())
        .collect()
}

/// Waits until nothing is `PENDING`, or until the count has not moved for `quiet`, or for
/// `limit` at most; what is left.
pub async fn settle(admin: &Gateway, quiet: Duration, limit: Duration) -> Vec<String> {
    let (mut last, mut since) = (usize::MAX, Instant::now());
    let left = poll(limit, async || {
        let left = pending(admin).await;
        if left.len() != last {
            (last, since) = (left.len(), Instant::now());
        }
        if left.is_empty() || since.elapsed() > quiet {
            Ok(left)
        } else {
            Err(left)
        }
    })
    .await;
    left.unwrap_or_else(|left| left)
}

/// Longer than a reconciler pass holds the payments it claimed (`check_lease` in
/// src/reconcile/mod.rs, two operator timeouts and a margin): a pass that fails (a killed
/// process, a database away) leaves its claims to run out first.
const CHECK_LEASE_MS: i64 = 120_000;

/// Runs the reconciler as it will run once every claim a failed pass left has run out (time
/// is a parameter: no test waits two minutes), against the same database and operators, until
/// nothing is `PENDING`; what is left.
pub async fn drain(admin: &Gateway) -> Vec<String> {
    for after in [5_000, 60_000, 180_000, 330_000] {
        if pending(admin).await.is_empty() {
            break;
        }
        let at = Timestamp(Timestamp::now().millis() + CHECK_LEASE_MS + after);
        reconciler::run_once(&admin.payments, at)
            .await
            .expect("a reconciler pass");
    }
    pending(admin).await
}

/// Postings sum to zero, balances agree with them and none is negative, and every final
/// transaction has exactly one webhook event.
pub async fn assert_ledger(admin: &Gateway, what: &str) {
    let check = admin.payments.check_ledger().await.expect("the ledger check runs");
    assert_eq!(
        (
            check.postings_sum,
            check.inconsistent_balances,
            check.final_without_one_event
        ),
        (0, 0, 0),
        "{what}: postings sum to zero, balances agree and are not negative, one event per final state"
    );
}

/// Lines of a process's logs (its [`process::Running::logs`], kept past its end) that report a panic.
pub fn panics(logs: &Mutex<Vec<String>>) -> usize {
    logs.lock().unwrap().iter().filter(|l| l.contains("panicked")).count()
}

/// The last `n` lines the gateway logged at `WARN` or `ERROR`, one per line.
pub fn last_warnings(logs: &Mutex<Vec<String>>, n: usize) -> String {
    let logs = logs.lock().unwrap();
    let warnings: Vec<&str> = logs
        .iter()
        .filter(|l| l.contains(" WARN ") || l.contains(" ERROR "))
        .map(String::as_str)
        .collect();
    warnings[warnings.len().saturating_sub(n)..].join("\n")
}

/// The merchant's webhook events (up to 1,000), newest first.
pub async fn webhook_events(admin: &Gateway, merchant: &Merchant) -> Vec<EventSummary> {
    let page = PageRequest {
        limit: 1000,
        after: None,
    };
    admin
        .webhooks
        .webhook_events(Some(&merchant.tenant), &EventFilter::default(), &page)
        .await
        .expect("the events")
}
