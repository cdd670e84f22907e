//! A TCP listener whose connections a handler can cut: the `reset` fault. A handler that calls
//! [`Connection::cut`] makes the socket refuse every further write, so hyper drops the connection
//! before a byte of the answer leaves, and the socket is closed with an RST (zero linger): the
//! client sees a connection reset, not an HTTP answer.

use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::extract::connect_info::Connected;
use axum::serve::{IncomingStream, Listener};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};

/// The emulator's listener.
pub struct CuttableListener(pub TcpListener);

/// An accepted connection that can be cut.
pub struct CuttableStream {
    inner: TcpStream,
    cut: Arc<AtomicBool>,
}

/// What a handler knows of its connection (axum's `ConnectInfo`).
#[derive(Debug, Clone)]
pub struct Connection {
    cut: Arc<AtomicBool>,
}

impl Connection {
    /// Drops the connection without answering.
    pub fn cut(&self) {
        self.cut.store(true, Ordering::SeqCst);
    }
}

impl Listener for CuttableListener {
    type Io = CuttableStream;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (CuttableStream, SocketAddr) {
        loop {
            match self.0.accept().await {
                Ok((inner, addr)) => {
                    let _ = inner.set_nodelay(true);
                    return (
                        CuttableStream {
                            inner,
                            cut: Arc::new(AtomicBool::new(false)),
                        },
                        addr,
                    );
                }
                // Out of file descriptors and the like: wait a little rather than spin.
                Err(_) => tokio::time::sleep(std::time::Duration::from_millis(50)).await,
            }
        }
    }

    fn local_addr(&self) -> io::Result<SocketAddr> {
        self.0.local_addr()
    }
}

impl Connected<IncomingStream<'_, CuttableListener>> for Connection {
    fn connect_info(stream: IncomingStream<'_, CuttableListener>) -> Connection {
        Connection {
            cut: stream.io().cut.clone(),
        }
    }
}

impl CuttableStream {
    /// When the connection was cut: arrange an RST on close and fail the operation.
    fn refuse(&self) -> Option<io::Error> {
        if !self.cut.load(Ordering::SeqCst) {
            return None;
        }
        let _ = self.inner.set_zero_linger();
        Some(io::Error::new(
            io::ErrorKind::ConnectionReset,
            "connection cut by the reset fault",
        ))
    }
}

impl AsyncRead for CuttableStream {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if let Some(error) = this.refuse() {
            return Poll::Ready(Err(error));
        }
        Pin::new(&mut this.inner).poll_read(cx, buf)
    }
}

impl AsyncWrite for CuttableStream {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        if let Some(error) = this.refuse() {
            return Poll::Ready(Err(error));
        }
        Pin::new(&mut this.inner).poll_write(cx, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if let Some(error) = this.refuse() {
            return Poll::Ready(Err(error));
        }
        Pin::new(&mut this.inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        if let Some(error) = this.refuse() {
            return Poll::Ready(Err(error));
        }
        Pin::new(&mut this.inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }
}
