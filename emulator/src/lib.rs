//! An operator emulator: an HTTP server that speaks the two public mobile-money protocols the
//! gateway's connectors will speak, so that black-box tests exercise real wire traffic and real
//! faults instead of the in-process simulator.
//!
//! - `momo-openapi` (MTN MoMo Open API): `POST /{collection|disbursement}/token/`,
//!   `POST /collection/v1_0/requesttopay`, `GET /collection/v1_0/requesttopay/{referenceId}`,
//!   `POST /disbursement/v1_0/transfer`, `GET /disbursement/v1_0/transfer/{referenceId}`, and
//!   callbacks by PUT (or POST) to `X-Callback-Url`, once, no retry.
//! - `wave-checkout` (Wave Checkout and Payout APIs): `POST /v1/checkout/sessions`,
//!   `GET /v1/checkout/sessions/{id}`, `GET /v1/checkout/sessions/search?client_reference=`,
//!   `POST /v1/checkout/sessions/{id}/expire`, `POST /v1/payout`, `GET /v1/payout/{id}`,
//!   `GET /v1/payouts/search?client_reference=`, the payer's launch page `GET /c/{id}`
//!   (`POST /c/{id}/approve`, `/decline`), and webhooks signed with `Wave-Signature` to the
//!   configured URL.
//! - `/_emulator/…`: the admin API for tests (initiation counts, payments, faults, settling, and
//!   the emulator's clock, which a test advances instead of waiting: `clock.rs`).
//!
//! Outcomes follow the Sandbox number table (`scenario.rs`); faults come from the
//! `X-Emulator-Fault` header or from rules (`faults.rs`). The emulator shares nothing with the
//! gateway: it imports no domain, service, store or configuration type, only the protocols'
//! public documentation (see `docs/emulator.md`). Its state lives in memory.

mod admin;
mod callbacks;
mod clock;
mod faults;
mod fields;
mod guard;
mod listener;
mod mint;
mod momo;
mod paydunya;
mod scenario;
mod settings;
mod state;
mod wave;

#[cfg(test)]
mod tests;

use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use anyhow::Context;
use axum::Router;
use tokio::net::TcpListener;
use tokio::sync::{oneshot, Notify};
use tokio::task::JoinHandle;

pub use faults::{parse_duration, FaultRule, Faults};
pub use paydunya::notification_hash as paydunya_hash;
pub use settings::{CallbackMethod, EmulatorSettings, MomoProduct, MomoSettings, PaydunyaSettings, WaveSettings};
pub use wave::signature::{sign as wave_signature, verify as verify_wave_signature};

use clock::Clock;
use listener::{Connection, CuttableListener};
use state::State;

/// What every handler shares.
pub(crate) struct Shared {
    pub settings: EmulatorSettings,
    /// The base of the URLs the emulator hands out, without a trailing slash.
    pub base_url: String,
    state: Mutex<State>,
    /// The client of callbacks and webhooks: no proxy, no redirects.
    pub http: reqwest::Client,
    /// The emulator's time: the wall clock unless a test advanced it.
    pub clock: Clock,
    /// Told whenever a scheduled callback is done with (made, dropped or found stale).
    pub callbacks_done: Notify,
}

impl Shared {
    /// The state, even if a panic poisoned the lock (the emulator has no invariant a panic
    /// could break halfway).
    pub fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

pub(crate) type Ctx = Arc<Shared>;

/// The emulator.
pub struct Emulator;

/// A running emulator.
pub struct RunningEmulator {
    pub addr: SocketAddr,
    /// `http://{addr}` (or the configured public URL).
    pub url: String,
    shutdown: Option<oneshot::Sender<()>>,
    task: JoinHandle<std::io::Result<()>>,
}

impl Emulator {
    /// Binds `settings.listen` (port 0 picks a free port) and starts serving.
    pub async fn start(settings: EmulatorSettings) -> anyhow::Result<RunningEmulator> {
        for rule in &settings.faults {
            rule.check()
                .map_err(|e| anyhow::anyhow!("fault rule {:?}: {e}", rule.fault))?;
        }
        let listener = TcpListener::bind(settings.listen)
            .await
            .with_context(|| format!("cannot listen on {}", settings.listen))?;
        let addr = listener.local_addr()?;
        let base_url = match &settings.public_url {
            Some(url) => url.trim_end_matches('/').to_string(),
            None => format!("http://{addr}"),
        };
        let http = reqwest::Client::builder()
            .no_proxy()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .context("cannot build the callback client")?;
        let mut state = State::default();
        state.rules = settings.faults.clone();
        let ctx = Arc::new(Shared {
            settings,
            base_url: base_url.clone(),
            state: Mutex::new(state),
            http,
            clock: Clock::default(),
            callbacks_done: Notify::new(),
        });
        let app = router(ctx);
        let (shutdown, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(async move {
            axum::serve(
                CuttableListener(listener),
                app.into_make_service_with_connect_info::<Connection>(),
            )
            .with_graceful_shutdown(async {
                let _ = stopped.await;
            })
            .await
        });
        Ok(RunningEmulator {
            addr,
            url: base_url,
            shutdown: Some(shutdown),
            task,
        })
    }
}

impl RunningEmulator {
    /// Stops accepting connections and waits for in-flight requests.
    pub async fn stop(mut self) -> anyhow::Result<()> {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        (&mut self.task).await??;
        Ok(())
    }

    /// Runs until the server fails (for the binary).
    pub async fn wait(mut self) -> anyhow::Result<()> {
        (&mut self.task).await??;
        Ok(())
    }
}

fn router(ctx: Ctx) -> Router {
    Router::new()
        .merge(momo::routes())
        .merge(wave::routes())
        .merge(paydunya::routes())
        .merge(admin::routes())
        .with_state(ctx)
}
