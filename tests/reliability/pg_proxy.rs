//! A TCP proxy between the gateway and PostgreSQL, so one test can take "its" database away
//! without stopping the server other tests share: [`PgProxy::stop`] closes every connection
//! through it and its port (new connections are refused, as a stopped server's are), and
//! [`PgProxy::start`] opens the port again.

use std::net::SocketAddr;

use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;

pub struct PgProxy {
    /// Where the gateway connects instead of PostgreSQL.
    pub addr: SocketAddr,
    /// Dropped with the proxy, which ends its thread.
    up: watch::Sender<bool>,
}

impl PgProxy {
    /// A proxy on a free loopback port to PostgreSQL at `upstream`. It runs on a thread of its
    /// own, so it keeps serving while the test blocks (waiting for a process to start, say).
    pub fn start_to(upstream: SocketAddr) -> PgProxy {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a port for the proxy");
        listener.set_nonblocking(true).unwrap();
        let addr = listener.local_addr().unwrap();
        let (up, watch) = watch::channel(true);
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        std::thread::spawn(move || runtime.block_on(serve(listener, upstream, watch)));
        PgProxy { addr, up }
    }

    /// Cuts every connection and refuses new ones.
    pub fn stop(&self) {
        self.up.send_replace(false);
    }

    /// Accepts connections again.
    pub fn start(&self) {
        self.up.send_replace(true);
    }

    /// `url` (a PostgreSQL URL) pointed at the proxy instead.
    pub fn url(&self, url: &str) -> String {
        let mut proxied = reqwest::Url::parse(url).expect("a PostgreSQL URL");
        proxied.set_ip_host(self.addr.ip()).unwrap();
        proxied.set_port(Some(self.addr.port())).unwrap();
        proxied.to_string()
    }
}

/// Pipes connections to `upstream` while up; while down, cuts them all and closes the port.
async fn serve(listener: std::net::TcpListener, upstream: SocketAddr, mut watch: watch::Receiver<bool>) {
    let addr = listener.local_addr().unwrap();
    let mut listener = Some(TcpListener::from_std(listener).unwrap());
    loop {
        let Some(open) = listener.take() else {
            // Down: nothing listens until the proxy is started again (or dropped).
            if watch.wait_for(|up| *up).await.is_err() {
                return;
            }
            listener = Some(TcpListener::bind(addr).await.expect("the proxy's port again"));
            continue;
        };
        let mut pipes = tokio::task::JoinSet::new();
        loop {
            tokio::select! {
                accepted = open.accept() => {
                    let Ok((client, _)) = accepted else { continue };
                    pipes.spawn(pipe(client, upstream));
                }
                changed = watch.changed() => {
                    if changed.is_err() {
                        return;
                    }
                    if !*watch.borrow() {
                        break;
                    }
                }
            }
        }
        // Every connection is cut at once, both ways, and the port closes.
        pipes.abort_all();
    }
}

async fn pipe(mut client: TcpStream, upstream: SocketAddr) {
    if let Ok(mut server) = TcpStream::connect(upstream).await {
        let _ = tokio::io::copy_bidirectional(&mut client, &mut server).await;
    }
}

/// Where the PostgreSQL of `url` listens.
pub async fn upstream(url: &str) -> SocketAddr {
    let parsed = reqwest::Url::parse(url).expect("a PostgreSQL URL");
    let host = parsed.host_str().unwrap_or("127.0.0.1").to_owned();
    let port = parsed.port().unwrap_or(5432);
    let mut addresses = tokio::net::lookup_host(format!("{host}:{port}"))
        .await
        .expect("PostgreSQL's address");
    addresses.next().expect("PostgreSQL's address")
}
