//! [`Faulted`]: the gateway with its connectors pointed at the operator emulator (or at a closed
//! port), a Sandbox token, and what every scenario needs: a payment per [`Route`], the emulator's
//! counts and admin calls, and callbacks made by hand. The checks run after each scenario are
//! `invariants.rs`.

use std::time::Duration;

use momo_gateway::config::Config;
use momo_gateway::domain::{Environment, Kind, Transaction, TransactionRef};
use momo_gateway::reconcile::reconciler;
use momo_gateway::store::PendingPage;
use momo_operator_emulator::RunningEmulator;
use reqwest::StatusCode;
use serde_json::{json, Value};

use super::routes::{Route, ALL_ROUTES, PAYDUNYA_ROUTES};
use crate::support::emulated::{self, PATIENCE};
use crate::support::helpers::{answer, free_port, gateway_port, later, Answer, TestApp};
use crate::support::requests::{collect_v1, collect_v2, post, transfer_v1, transfer_v2};
use momo_test_support::{eventually, Backend};

/// The secret the MoMo routes' callback tokens are derived from.
pub const CALLBACK_TOKEN: &str = "momo-callback-token-for-fault-tests";
/// The secret before it, in [`Faulted::rotating`].
pub const PREVIOUS_CALLBACK_TOKEN: &str = "momo-callback-token-before-rotation";
pub const WAVE_SECRET: &str = "wave-webhook-secret";
pub use crate::support::emulated::PAYDUNYA_MASTER_KEY;
/// The emulator's Sandbox delay (rows 02, 03, 05), on its clock: longer than any scenario runs,
/// so those rows settle only when a scenario advances the clock ([`Faulted::past_the_delay`]),
/// and short enough that the advances of a whole test stay well inside the lifetime of a MoMo
/// token (an hour) and of a Wave checkout session (30 min from its creation).
pub const DELAY: Duration = Duration::from_secs(60);
/// A test passes the cool-down by moving the breakers' clock on (`Gateway::breaker_clock`),
/// never by waiting. It stays short all the same: on a loaded machine a probe may time out and
/// open the breaker again, and the test's passes then get through after this much real time.
pub const BREAKER_COOL_DOWN: Duration = Duration::from_millis(300);

/// Where the gateway's connectors are pointed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reach {
    Emulator,
    /// A loopback port nobody listens on: every connection is refused.
    ClosedPort,
}

/// The gateway, the emulator, and a Sandbox token.
pub struct Faulted {
    pub app: TestApp,
    pub emulator: RunningEmulator,
    pub token: String,
    /// The routes this gateway serves: [`ALL_ROUTES`] or [`PAYDUNYA_ROUTES`].
    pub routes: &'static [Route],
}

impl Faulted {
    /// The gateway calling the emulator.
    pub async fn spawn(backend: Backend) -> Option<Faulted> {
        Faulted::start(backend, &ALL_ROUTES, Reach::Emulator, |_| {}).await
    }

    /// The gateway calling the emulator's PayDunya for ALPHA and DELTA.
    pub async fn paydunya(backend: Backend) -> Option<Faulted> {
        Faulted::start(backend, &PAYDUNYA_ROUTES, Reach::Emulator, |_| {}).await
    }

    /// The PayDunya gateway calling a port where nothing listens.
    pub async fn paydunya_unreachable(backend: Backend) -> Option<Faulted> {
        Faulted::start(backend, &PAYDUNYA_ROUTES, Reach::ClosedPort, |_| {}).await
    }

    /// The gateway calling the emulator, amid a rotation of the MoMo callback secret from
    /// [`PREVIOUS_CALLBACK_TOKEN`] to [`CALLBACK_TOKEN`].
    pub async fn rotating(backend: Backend) -> Option<Faulted> {
        Faulted::start(backend, &ALL_ROUTES, Reach::Emulator, |c| {
            c.connectors.momo_callback_token_previous = Some(PREVIOUS_CALLBACK_TOKEN.to_owned())
        })
        .await
    }

    /// The gateway calling a port where nothing listens (the emulator runs, uncalled).
    pub async fn unreachable(backend: Backend) -> Option<Faulted> {
        Faulted::start(backend, &ALL_ROUTES, Reach::ClosedPort, |_| {}).await
    }

    async fn start(
        backend: Backend,
        routes: &'static [Route],
        reach: Reach,
        adjust: impl FnOnce(&mut Config),
    ) -> Option<Faulted> {
        let port = gateway_port();
        let emulator = emulated::start(port, DELAY, "Sandbox").await;
        let url = match reach {
            Reach::Emulator => emulator.url.clone(),
            Reach::ClosedPort => format!("http://127.0.0.1:{}", free_port()),
        };
        let app = TestApp::spawn_with(backend, |c| {
            c.listen = ([127, 0, 0, 1], port).into();
            c.public_url = format!("http://127.0.0.1:{port}");
            c.connectors.routes = routes
                .iter()
                .flat_map(|r| {
                    [Environment::Sandbox, Environment::Production].map(|e| (r.operator(), e, r.protocol().into()))
                })
                .collect();
            c.connectors.timeout = Duration::from_millis(500);
            // Production routes too, to the emulator over http on this machine.
            emulated::connect(c, &url);
            c.connectors.momo_callback_token = Some(CALLBACK_TOKEN.to_owned());
            c.connectors.wave_webhook_secret = Some(WAVE_SECRET.to_owned());
            c.breaker.cool_down = BREAKER_COOL_DOWN;
            // It serves Production, whose `/metrics` is otherwise closed without a token; the
            // tests read the operator counters there.
            c.metrics.public = true;
            adjust(c);
        })
        .await?;
        let token = app.sandbox_token().await;
        Some(Faulted {
            app,
            emulator,
            token,
            routes,
        })
    }

    /// A merchant transaction id for `name` on `route`, unique in the run of one fault.
    pub fn id(&self, route: Route, name: &str) -> String {
        format!("{}-{name}", route.tag())
    }

    /// Creates a payment through v1 to or from a number ending in `ending`.
    pub async fn create(&self, route: Route, id: &str, ending: &str) -> Answer {
        let (phone, operator) = (
            format!("07010203{ending}"),
            format!("{}_MONEY_CI", route.operator().name()),
        );
        let (path, body) = match route.kind() {
            Kind::Collection => {
                let mut body = collect_v1(id, &phone, &operator, route.amount());
                if let Some(code) = route.code() {
                    body["otpCode"] = json!(code);
                }
                ("/v1/collecte/mobile-money", body)
            }
            Kind::Transfer => (
                "/v1/transfer/mobile-money",
                transfer_v1(id, &phone, &operator, route.amount()),
            ),
            Kind::Refund => unreachable!("the fault routes are collections and transfers"),
        };
        post(&self.app, &self.token, path, &body).await
    }

    /// The same through v2.
    pub async fn create_v2(&self, route: Route, id: &str, ending: &str) -> Answer {
        let (phone, operator) = (
            json!(format!("07010203{ending}")),
            format!("{}_MONEY_CI", route.operator().name()),
        );
        let amount: Value = route.amount().parse::<u64>().unwrap().into();
        let (path, body) = match route.kind() {
            Kind::Collection => {
                let mut body = collect_v2(id, phone, &operator, amount);
                if let Some(code) = route.code() {
                    body["code_otp"] = json!(code);
                }
                ("/v2/collecte/mobile-money", body)
            }
            Kind::Transfer => ("/v2/transfers/mobile-money", transfer_v2(id, phone, &operator, amount)),
            Kind::Refund => unreachable!("the fault routes are collections and transfers"),
        };
        post(&self.app, &self.token, path, &body).await
    }

    /// Creates a payment that must come back 202 `PENDING`; its data.
    pub async fn pending_payment(&self, route: Route, id: &str, ending: &str) -> Value {
        let a = self.create(route, id, ending).await;
        assert_eq!(
            (a.status, a.body["data"]["status"].as_str()),
            (StatusCode::ACCEPTED, Some("PENDING")),
            "{route}: {id} is PENDING: {}",
            a.body
        );
        a.body["data"].clone()
    }

    /// The v2 status lookup's data.
    pub async fn lookup(&self, id: &str) -> Value {
        emulated::lookup(&self.app, &self.token, id).await
    }

    pub async fn status(&self, id: &str) -> String {
        self.lookup(id).await["status"].as_str().unwrap_or_default().to_owned()
    }

    /// Waits (up to [`PATIENCE`]) for `id` to leave PENDING; its status then, or `PENDING`.
    pub async fn settled(&self, id: &str) -> String {
        emulated::settled(&self.app, &self.token, id).await
    }

    /// Moves the emulator's clock `by` forward: what falls due happens, and the callbacks due
    /// are made and answered before this returns.
    pub async fn advance(&self, by: Duration) {
        emulated::advance(&self.emulator, by).await;
    }

    /// Moves the emulator's clock past its Sandbox delay: rows 02, 03 and 05 settle there.
    pub async fn past_the_delay(&self) {
        self.advance(DELAY).await;
    }

    pub async fn record(&self, id: &str) -> Transaction {
        self.app
            .gateway
            .payments
            .transaction(&self.app.sandbox_tenant(), &TransactionRef::from(id))
            .await
            .expect("the transaction exists")
            .transaction
    }

    /// What a final transaction shows, to compare before and after a late callback.
    pub async fn snapshot(&self, id: &str) -> String {
        let t = self.record(id).await;
        format!("{:?}", (t.status, t.updated_at, t.failure_code, t.failure_reason))
    }

    /// A `GET` on the emulator's admin API (`path` from `/_emulator/`).
    pub async fn emulator_get(&self, path: &str) -> Value {
        emulated::admin(&self.emulator, path).await
    }

    /// What the emulator counts and finds `id`'s initiation under: its internal id (MoMo's
    /// `X-Reference-Id`, Wave's `idempotency-key`), or its `ref` at PayDunya.
    pub async fn key(&self, id: &str) -> String {
        let t = self.record(id).await;
        match t.carrier.connector.as_deref() {
            Some("paydunya") => t.reference.to_string(),
            _ => t.id.to_string(),
        }
    }

    /// How many times the operator received and executed the initiation of `id`.
    pub async fn counts(&self, id: &str) -> (u64, u64) {
        let key = self.key(id).await;
        let c = self.emulator_get(&format!("initiations/{key}")).await;
        (c["received"].as_u64().unwrap(), c["executed"].as_u64().unwrap())
    }

    /// A fault rule at the emulator's endpoint `on`, for the next `times` requests.
    pub async fn fault(&self, on: &str, fault: &str, times: u32) {
        let answer = reqwest::Client::new()
            .post(format!("{}/_emulator/faults", self.emulator.url))
            .json(&json!({"on": on, "fault": fault, "times": times}))
            .send()
            .await
            .unwrap();
        assert!(answer.status().is_success(), "{:?}", answer.text().await);
    }

    /// Settles `id` at the operator (`succeeded`, `failed`), which calls back as it would.
    pub async fn settle_at_operator(&self, id: &str, outcome: &str) {
        let key = self.key(id).await;
        let answer = reqwest::Client::new()
            .post(format!("{}/_emulator/payments/{key}/settle", self.emulator.url))
            .json(&json!({"outcome": outcome}))
            .send()
            .await
            .unwrap();
        assert!(answer.status().is_success(), "{:?}", answer.text().await);
    }

    /// Settles `id` at the operator as a success, then waits for its callback to settle it
    /// (or, where no callback comes, lets the reconciler find it).
    pub async fn paid_at_operator(&self, route: Route, id: &str) {
        self.settle_at_operator(id, "succeeded").await;
        if route.calls_back() {
            assert_eq!(self.settled(id).await, "SUCCESSFUL", "{route}: by the callback");
        } else {
            self.drain().await;
            assert_eq!(self.status(id).await, "SUCCESSFUL", "{route}: by a status check");
        }
    }

    /// Waits (up to [`PATIENCE`]) until the emulator has made (or dropped) `n` callbacks about
    /// `id` and the status checks the gateway started on them have ended (it answers a callback
    /// at once and asks the operator after: a test that goes on before would race that check);
    /// all it made about it.
    pub async fn callbacks_made(&self, id: &str, n: usize) -> Vec<Value> {
        let key = self.key(id).await;
        eventually(
            &format!("{n} callbacks about {id}, their checks ended"),
            PATIENCE,
            async || {
                let made = emulated::callbacks_about(&self.emulator, &key).await;
                let checking = self.app.gateway.payments.callback_checks_in_flight();
                if made.len() >= n && checking == 0 {
                    Ok(made)
                } else {
                    Err((made, checking))
                }
            },
        )
        .await
    }

    /// The transaction ids still PENDING, every tenant.
    pub async fn pending(&self) -> Vec<String> {
        self.app
            .gateway
            .payments
            .pending_transactions(PendingPage {
                created_before: later(100_000_000),
                kind: None,
                after: None,
                limit: 1_000,
            })
            .await
            .unwrap()
            .into_iter()
            .map(|r| r.transaction.transaction_id.into_string())
            .collect()
    }

    /// Reconciler passes at later and later times (each after the previous one's backoff, all
    /// young enough for a resend) until nothing is pending.
    pub async fn drain(&self) {
        for at in [60_000, 100_000, 160_000, 250_000, 400_000, 590_000] {
            if self.pending().await.is_empty() {
                return;
            }
            reconciler::run_once(&self.app.gateway.payments, later(at))
                .await
                .unwrap();
        }
    }

    pub async fn reserved(&self) -> String {
        let a = answer(self.app.get("/v1/balance").bearer_auth(&self.token)).await;
        a.body["data"]["reserved"].as_str().unwrap_or_default().to_owned()
    }
}
