//! In-process HTTP tests of the emulator: each starts it on a random port, with a short Sandbox
//! delay, and a receiver on another random port that records every callback and webhook. They
//! talk to it with reqwest only, as a connector would.

mod clock;
mod faults;
mod momo;
mod wave;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, Method, Uri};
use axum::Router;
use serde_json::Value;
use tokio::net::TcpListener;

use super::{Emulator, EmulatorSettings, RunningEmulator};

/// The Sandbox delay in these tests.
pub const DELAY: Duration = Duration::from_millis(50);

/// A delay for tests that check a payment is still pending before it settles: long enough that
/// a busy machine cannot skip past it, never slept through (the tests wait for the callback).
pub const SLOW: Duration = Duration::from_millis(400);

/// One call the receiver got.
#[derive(Debug, Clone)]
pub struct Received {
    pub method: Method,
    pub path: String,
    pub signature: Option<String>,
    pub body: String,
    pub at: Instant,
}

impl Received {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("{e}: {}", self.body))
    }
}

type Log = Arc<Mutex<Vec<Received>>>;

async fn record(State(log): State<Log>, method: Method, uri: Uri, headers: HeaderMap, body: Bytes) -> &'static str {
    let signature = headers
        .get("wave-signature")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let body = String::from_utf8_lossy(&body).into_owned();
    log.lock().unwrap().push(Received {
        method,
        path: uri.path().to_string(),
        signature,
        body,
        at: Instant::now(),
    });
    "ok"
}

/// The emulator, a client, and the receiver of its calls back.
pub struct Harness {
    pub emulator: RunningEmulator,
    pub http: reqwest::Client,
    /// `http://127.0.0.1:{port}` of the receiver.
    pub receiver: String,
    log: Log,
}

/// Starts a receiver and an emulator whose Wave webhooks go to `{receiver}/wave`.
pub async fn start(configure: impl FnOnce(&mut EmulatorSettings)) -> Harness {
    let log: Log = Arc::default();
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let receiver = format!("http://{}", listener.local_addr().unwrap());
    let app = Router::new().fallback(record).with_state(log.clone());
    tokio::spawn(async move { axum::serve(listener, app).await });
    let mut settings = EmulatorSettings {
        delay: DELAY,
        ..EmulatorSettings::default()
    };
    settings.wave.webhook_url = Some(format!("{receiver}/wave"));
    configure(&mut settings);
    let emulator = Emulator::start(settings).await.unwrap();
    let http = reqwest::Client::builder()
        .no_proxy()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    Harness {
        emulator,
        http,
        receiver,
        log,
    }
}

impl Harness {
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.emulator.url)
    }

    /// What the receiver got so far.
    pub fn received(&self) -> Vec<Received> {
        self.log.lock().unwrap().clone()
    }

    /// Waits (up to 3 s) until the receiver got `n` calls, and returns them.
    pub async fn wait_for(&self, n: usize) -> Vec<Received> {
        let deadline = Instant::now() + Duration::from_secs(3);
        loop {
            let got = self.received();
            if got.len() >= n || Instant::now() > deadline {
                assert!(got.len() >= n, "expected {n} calls back, got {got:#?}");
                return got;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }

    /// `GET` on the admin API.
    pub async fn admin(&self, path: &str) -> Value {
        self.http
            .get(self.url(&format!("/_emulator/{path}")))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap()
    }

    /// `received` and `executed` of an initiation key.
    pub async fn counts(&self, key: &str) -> (u64, u64) {
        let counts = self.admin(&format!("initiations/{key}")).await;
        (
            counts["received"].as_u64().unwrap(),
            counts["executed"].as_u64().unwrap(),
        )
    }
}

/// Status and JSON body (`Null` when empty) of an answer.
pub async fn answer(response: reqwest::Response) -> (u16, Value) {
    let status = response.status().as_u16();
    let text = response.text().await.unwrap();
    (
        status,
        if text.is_empty() {
            Value::Null
        } else {
            serde_json::from_str(&text).unwrap()
        },
    )
}

/// Sleeps past the Sandbox delay.
pub async fn past_the_delay() {
    tokio::time::sleep(DELAY + Duration::from_millis(20)).await;
}
