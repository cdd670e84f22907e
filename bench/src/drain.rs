//! The webhook drain: a local receiver that answers 200, and a burst of events written straight
//! into the outbox (as settled transactions), timed until every one is delivered.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::routing::post;
use axum::Router;

use crate::gateway::Gateway;
use crate::sql::{self, Pool};

pub struct Receiver {
    pub url: String,
    pub received: Arc<AtomicU64>,
}

impl Receiver {
    pub async fn start() -> anyhow::Result<Receiver> {
        let received = Arc::new(AtomicU64::new(0));
        let counter = received.clone();
        let app = Router::new().route(
            "/hook",
            post(move || {
                let counter = counter.clone();
                async move {
                    counter.fetch_add(1, Ordering::Relaxed);
                    "ok"
                }
            }),
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let url = format!("http://{}/hook", listener.local_addr()?);
        tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Ok(Receiver { url, received })
    }
}

/// What the drain measured.
pub struct Drained {
    pub events: usize,
    pub elapsed: Duration,
}

impl Drained {
    pub fn per_second(&self) -> f64 {
        self.events as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }
}

pub async fn drain(gw: &Gateway, receiver: &Receiver, events: usize) -> anyhow::Result<Drained> {
    let pool = Pool::open(&gw.database_url).await?;
    // Let the events of the earlier scenarios go first, so the drain is measured alone.
    pool.quiet().await?;
    let (merchant, environment, customer) = (&gw.tenant.merchant_id, gw.tenant.environment, &gw.customer_id);
    let now = sql::now_millis();
    let mut statements = Vec::new();
    for chunk_start in (0..events).step_by(500) {
        let chunk = chunk_start..(chunk_start + 500).min(events);
        let transactions: Vec<String> = chunk
            .clone()
            .map(|i| {
                format!(
                    "('drain-{i}', 'D{i:09}', '{merchant}', '{environment}', 'drain-{i}', 'collecte', 'GAMMA', '0701020399', \
                     '0701020399', 1500, 30, 1470, 1500, 'SUCCESSFUL', '{customer}', 'Drain Bench', {now}, {now})"
                )
            })
            .collect();
        statements.push(format!(
            "INSERT INTO transactions (id, ref, merchant_id, environment, transaction_id, kind, operator, phone, phone_as_sent, \
             amount, fees, amount_receive, amount_total, status, customer_id, name, created_at, updated_at) VALUES {}",
            transactions.join(", ")
        ));
        let outbox: Vec<String> = chunk
            .map(|i| {
                let payload = format!(
                    r#"{{"ref":"D{i:09}","transactionId":"drain-{i}","currency":"XOF","amount":"1500","fees":"30","amountReceive":"1470","amountTotal":"1500","phone":"0701020399","status":"SUCCESSFUL","typeTransaction":"collecte","operator":"GAMMA_MONEY_CI","createdAt":"2026-11-22T10:00:00.000Z","customer":{{"id":"{customer}","lastName":"Bench","firstName":"Drain","email":"d@example.ci","phoneNumber":"0701020399","address":{{"countryCode":"CI","city":null,"streetAddress":null}},"createdAt":"2026-11-22T10:00:00.000Z"}}}}"#
                );
                format!("('msg_drain_{i}', '{merchant}', '{environment}', 'drain-{i}', 'SUCCESSFUL', '{payload}', {now}, {now})")
            })
            .collect();
        statements.push(format!(
            "INSERT INTO outbox_events (id, merchant_id, environment, transaction_id, to_status, payload, next_attempt_at, created_at) VALUES {}",
            outbox.join(", ")
        ));
    }
    let before = receiver.received.load(Ordering::Relaxed);
    pool.execute_all(&statements).await?;
    let started = Instant::now();
    let deadline = started + Duration::from_secs(900);
    while receiver.received.load(Ordering::Relaxed) < before + events as u64 {
        anyhow::ensure!(Instant::now() < deadline, "the drain did not finish in 15 minutes");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    Ok(Drained {
        events,
        elapsed: started.elapsed(),
    })
}
