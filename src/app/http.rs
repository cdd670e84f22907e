//! The HTTP server's accept loop: HTTP/1.1 over hyper, at most `max_connections` connections at
//! once, each with the deadlines of `deadlines.rs`, and a graceful stop. `axum::serve` has no
//! setting for any of these, so this loop replaces it.

use std::io;
use std::net::SocketAddr;
use std::pin::pin;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::ConnectInfo;
use axum::Router;
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{watch, OwnedSemaphorePermit, Semaphore};
use tower::ServiceExt;

use super::deadlines::{Clock, Guarded};
use crate::config::HttpSettings;

/// Serves `router` on `listener` until `stop` completes, then stops accepting, lets each
/// connection finish the request it is answering, and returns once all are closed.
pub async fn serve(
    listener: TcpListener,
    router: Router,
    settings: HttpSettings,
    stop: impl std::future::Future<Output = ()>,
) -> io::Result<()> {
    // A connection holds a slot until it closes; when none is free the loop stops accepting,
    // and new connections wait in the kernel's listen queue rather than being refused.
    let slots = Arc::new(Semaphore::new(settings.max_connections));
    let (stopping, stop_seen) = watch::channel(false);
    let mut stop = pin!(stop);
    loop {
        let slot = tokio::select! {
            slot = slots.clone().acquire_owned() => slot.map_err(io::Error::other)?,
            () = &mut stop => break,
        };
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(e) => {
                    pause_after(e).await;
                    continue;
                }
            },
            () = &mut stop => break,
        };
        let clock = Clock::start(settings.header_read_timeout, settings.idle_timeout);
        tokio::spawn(connection(stream, peer, router.clone(), clock, stop_seen.clone(), slot));
    }
    drop(listener);
    let _ = stopping.send(true);
    // Every slot back means every connection has closed.
    let all = u32::try_from(settings.max_connections).unwrap_or(u32::MAX);
    let _ = slots.acquire_many(all).await;
    Ok(())
}

/// An accept that failed: a connection reset before it was accepted is nothing, but running out
/// of file descriptors would spin the loop, so it waits a moment (as `axum::serve` does).
async fn pause_after(error: io::Error) {
    let of_one_connection = matches!(
        error.kind(),
        io::ErrorKind::ConnectionRefused | io::ErrorKind::ConnectionAborted | io::ErrorKind::ConnectionReset
    );
    if !of_one_connection {
        tracing::error!(error = %error, "cannot accept a connection; trying again in a second");
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
}

/// Whether an answer ends its connection. hyper stops keeping such a connection alive but
/// would still read the rest of a request body, which nobody reads any more once a timeout
/// has answered.
fn closes(response: &axum::response::Response) -> bool {
    response
        .headers()
        .get(axum::http::header::CONNECTION)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').any(|t| t.trim().eq_ignore_ascii_case("close")))
}

/// Serves one connection until it closes, or until a stop asks it to finish.
async fn connection(
    stream: TcpStream,
    peer: SocketAddr,
    router: Router,
    clock: Arc<Clock>,
    mut stop_seen: watch::Receiver<bool>,
    _slot: OwnedSemaphorePermit,
) {
    let socket = TokioIo::new(Guarded::new(stream, clock.clone()));
    let service = hyper::service::service_fn(move |mut request: hyper::Request<Incoming>| {
        let busy = clock.request_started();
        let clock = clock.clone();
        // What `into_make_service_with_connect_info` gave handlers: the peer's address.
        request.extensions_mut().insert(ConnectInfo(peer));
        let router = router.clone();
        async move {
            let answer = router.oneshot(request).await;
            if let Ok(response) = &answer {
                if closes(response) {
                    clock.close_after_answer();
                }
            }
            drop(busy);
            answer
        }
    });
    let mut http = hyper::server::conn::http1::Builder::new();
    // Deadlines are `Guarded`'s; hyper's header timer would also cut idle kept-alive connections.
    http.keep_alive(true).header_read_timeout(None);
    let mut served = pin!(http.serve_connection(socket, service));
    let mut stopping = false;
    loop {
        tokio::select! {
            result = served.as_mut() => {
                if let Err(e) = result {
                    tracing::debug!(peer = %peer, error = %e, "connection closed");
                }
                break;
            }
            _ = stop_seen.wait_for(|stop| *stop), if !stopping => {
                served.as_mut().graceful_shutdown();
                stopping = true;
            }
        }
    }
}
