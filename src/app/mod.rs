//! Assembling and running the gateway: store, use cases, HTTP server, graceful shutdown.

mod deadlines;
mod demo;
mod http;
pub mod operators;
mod state;

use std::net::SocketAddr;

use anyhow::Context;
use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use crate::config::Config;
use crate::domain::Timestamp;
use crate::net::redact_url;
use crate::operator::Operators;
use crate::service::{CreatedMerchant, Gateway};
use crate::store;

/// Opens the configured database (migrating it) and assembles the use cases with the
/// operator connectors that configuration names.
pub async fn open(config: Config) -> anyhow::Result<Gateway> {
    let operators = operators::operators(&config)?;
    open_with(config, operators).await
}

/// Opens the configured database (migrating it) and assembles the use cases with `operators`.
pub async fn open_with(config: Config, operators: Operators) -> anyhow::Result<Gateway> {
    let store = store::connect_with(&config.database_url, config.batching)
        .await
        .with_context(|| format!("cannot open the database {}", redact_url(&config.database_url)))?;
    Ok(Gateway::new(store, config, operators).await?)
}

/// The whole HTTP surface: the API beside the web pages, inside the layers they share.
pub fn router(gateway: Gateway) -> axum::Router {
    use crate::http::security_headers::{with_hsts, Transport};
    let transport = Transport::of(&gateway.config().public_url);
    let served = crate::http::request_layers(crate::api::router(gateway.clone()).merge(crate::web::router(gateway)));
    with_hsts(served, transport)
}

/// A running HTTP server, for `serve` and for tests.
pub struct Server {
    pub addr: SocketAddr,
    pub gateway: Gateway,
    shutdown: Option<oneshot::Sender<()>>,
    task: JoinHandle<std::io::Result<()>>,
}

impl Server {
    /// Binds `config.listen` (port 0 picks a free port) and starts serving.
    pub async fn start(gateway: Gateway) -> anyhow::Result<Server> {
        let listen = gateway.config().listen;
        let listener = TcpListener::bind(listen)
            .await
            .with_context(|| format!("cannot listen on {listen}"))?;
        Server::serve(gateway, listener)
    }

    /// Starts serving on `listener`, already bound: for a caller that must know the port before
    /// the gateway starts (its public URL) and cannot let another process take it meanwhile.
    pub fn start_on(gateway: Gateway, listener: std::net::TcpListener) -> anyhow::Result<Server> {
        listener.set_nonblocking(true)?;
        Server::serve(gateway, TcpListener::from_std(listener)?)
    }

    fn serve(gateway: Gateway, listener: TcpListener) -> anyhow::Result<Server> {
        let addr = listener.local_addr()?;
        let (shutdown, stopped) = oneshot::channel::<()>();
        let app = router(gateway.clone());
        let settings = gateway.config().http.clone();
        let task = tokio::spawn(http::serve(listener, app, settings, async {
            let _ = stopped.await;
        }));
        Ok(Server {
            addr,
            gateway,
            shutdown: Some(shutdown),
            task,
        })
    }

    /// Stops accepting connections and waits for in-flight requests to finish.
    pub async fn stop(mut self) -> anyhow::Result<()> {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        (&mut self.task).await??;
        Ok(())
    }
}

/// Concurrent webhook dispatcher loops in each process.
const DISPATCHER_LOOPS: usize = 2;

/// How long a shutdown waits for in-flight requests.
const SHUTDOWN_GRACE: std::time::Duration = std::time::Duration::from_secs(30);

/// `momo-gateway serve`: runs until SIGINT or SIGTERM.
pub async fn serve(config: Config) -> anyhow::Result<()> {
    let gateway = open(config).await?;
    let config = gateway.config().clone();
    tracing::info!(database = %redact_url(&config.database_url), "database ready");
    let routes = operators::routing_table(&config);
    tracing::info!(%routes, "operator routes (MOMO_OPERATOR_CONNECTORS; refused: Production payments to that operator are refused)");
    if config.listen.ip().is_loopback() {
        if let Some(demo) = create_demo_merchant(&gateway).await? {
            demo::show_credentials(&demo, &config);
        }
    }
    let (stop_workers, workers_stopped) = tokio::sync::watch::channel(false);
    let mut workers = crate::reconcile::spawn_loops(&gateway, workers_stopped.clone());
    // Two loops per process: one sends while the other records and claims. Leases keep them
    // (and other processes) from sending the same attempt twice.
    let dispatcher = gateway.webhook_dispatcher(&config.webhook)?;
    // The writers' settled events go straight to this process's dispatcher (`store::handoff`).
    let (handed, queue) = crate::webhook::dispatcher::handoff_queue();
    if gateway.hand_settled_events_to(handed, dispatcher.lease()) {
        workers.extend(crate::webhook::dispatcher::spawn_handoff_loops(
            dispatcher.clone(),
            queue,
            workers_stopped.clone(),
        ));
    }
    for _ in 0..DISPATCHER_LOOPS {
        workers.push(crate::webhook::dispatcher::spawn_loop(
            dispatcher.clone(),
            workers_stopped.clone(),
        ));
    }
    let stop = shutdown_signal();
    let server = Server::start(gateway).await?;
    tracing::info!(address = %server.addr, "momo-gateway listening on http://{}", server.addr);
    stop.await;
    tracing::info!("shutting down: finishing in-flight requests and the workers' current step");
    let gateway = server.gateway.clone();
    match tokio::time::timeout(SHUTDOWN_GRACE, server.stop()).await {
        Ok(stopped) => stopped?,
        Err(_) => tracing::warn!(
            grace_s = SHUTDOWN_GRACE.as_secs(),
            "in-flight requests did not finish in time; stopping anyway"
        ),
    }
    let _ = stop_workers.send(true);
    for worker in workers {
        let _ = worker.await;
    }
    gateway.close().await;
    tracing::info!("stopped");
    Ok(())
}

/// On the first start on an empty database, creates a demo merchant (once, even when several
/// processes start together).
pub async fn create_demo_merchant(gateway: &Gateway) -> anyhow::Result<Option<CreatedMerchant>> {
    Ok(gateway.merchants.create_demo_merchant(Timestamp::now()).await?)
}

/// Resolves on the first SIGINT or SIGTERM. It registers for both before it returns, not at
/// its first poll: a signal sent as soon as the server says it listens must not meet the
/// default action, which kills the process instead of stopping it cleanly.
fn shutdown_signal() -> impl std::future::Future<Output = ()> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        let interrupt = signal(SignalKind::interrupt()).ok();
        let terminate = signal(SignalKind::terminate()).ok();
        async move {
            let wait = |s: Option<tokio::signal::unix::Signal>| async move {
                match s {
                    Some(mut s) => {
                        s.recv().await;
                    }
                    None => std::future::pending::<()>().await,
                }
            };
            tokio::select! {
                _ = wait(interrupt) => {},
                _ = wait(terminate) => {},
            }
        }
    }
    #[cfg(not(unix))]
    async {
        let _ = tokio::signal::ctrl_c().await;
    }
}
