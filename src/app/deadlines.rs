//! The deadlines of one HTTP connection, so that a client that connects and says nothing, sends
//! its headers a byte at a time, or keeps a connection open without using it, cannot hold it
//! for ever. A connection is always in one of three phases:
//!
//! - **waiting** for the first byte of a request: for `header_read_timeout` after it was
//!   accepted, for `idle_timeout` after an answer (a kept-alive connection), counted from the
//!   last byte of the answer that went out (a client reading slowly is not idle);
//! - **reading headers**, from that first byte: `header_read_timeout` from it (from the accept for
//!   a connection's first request, so a slow start earns no extra time);
//! - **busy** with a request, from the end of its headers to its answer: no deadline here, the
//!   request timeout of the HTTP layer (`api::guard`) answers it instead.
//!
//! The socket ([`Guarded`]) fails its read with `TimedOut` once the deadline of its phase has
//! passed, and hyper closes the connection. hyper's own header timer cannot do this: it starts
//! as soon as an answer is written, so it would also cut kept-alive connections at the header
//! deadline.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::time::{Instant, Sleep};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Nothing of a request yet; `first` until the connection's first request arrives.
    Waiting {
        first: bool,
    },
    ReadingHeaders,
    /// Requests being answered (one at a time in HTTP/1.1, but a count cannot go wrong).
    Busy(usize),
}

#[derive(Debug)]
struct State {
    phase: Phase,
    /// When the current phase's time runs out; `None` while busy.
    deadline: Option<Instant>,
    /// The answer being prepared closes the connection (`Connection: close`), and hyper would
    /// still wait for the rest of a request body that nobody reads any more.
    closing: bool,
    /// The read that found no deadline to wait for (while busy): woken when the answer is ready,
    /// so that it starts waiting for the idle deadline (nothing else would poll it again).
    reader: Option<Waker>,
}

/// The phase and deadline of one connection, shared by its socket and its request service.
#[derive(Debug)]
pub struct Clock {
    header_read_timeout: Duration,
    idle_timeout: Duration,
    state: Mutex<State>,
}

impl Clock {
    /// The clock of a connection accepted now.
    pub fn start(header_read_timeout: Duration, idle_timeout: Duration) -> Arc<Clock> {
        Arc::new(Clock {
            header_read_timeout,
            idle_timeout,
            state: Mutex::new(State {
                phase: Phase::Waiting { first: true },
                deadline: Some(Instant::now() + header_read_timeout),
                closing: false,
                reader: None,
            }),
        })
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Bytes arrived: a waiting connection starts reading a request's headers.
    fn bytes_arrived(&self) {
        let mut state = self.state();
        if state.closing {
            return;
        }
        if let Phase::Waiting { first } = state.phase {
            state.phase = Phase::ReadingHeaders;
            if !first {
                state.deadline = Some(Instant::now() + self.header_read_timeout);
            }
        }
    }

    /// Bytes of an answer went out: a client reading a long answer slowly is not idle.
    fn bytes_sent(&self) {
        let mut state = self.state();
        if state.closing {
            return;
        }
        if let Phase::Waiting { first: false } = state.phase {
            state.deadline = Some(Instant::now() + self.idle_timeout);
        }
    }

    /// The answer being prepared says `Connection: close`: once it is out, the connection ends,
    /// even in the middle of a request body.
    pub fn close_after_answer(&self) {
        self.state().closing = true;
    }

    /// A request's headers are in and it goes to the router; until the guard is dropped (its
    /// answer is ready) the connection has no deadline of its own.
    pub fn request_started(self: &Arc<Clock>) -> Busy {
        let mut state = self.state();
        state.phase = match state.phase {
            Phase::Busy(n) => Phase::Busy(n + 1),
            Phase::Waiting { .. } | Phase::ReadingHeaders => Phase::Busy(1),
        };
        state.deadline = None;
        Busy(self.clone())
    }

    fn request_finished(&self) {
        let mut state = self.state();
        match state.phase {
            Phase::Busy(n) if n > 1 => state.phase = Phase::Busy(n - 1),
            Phase::Busy(_) | Phase::Waiting { .. } | Phase::ReadingHeaders => {
                state.phase = Phase::Waiting { first: false };
                let wait = if state.closing {
                    Duration::ZERO
                } else {
                    self.idle_timeout
                };
                state.deadline = Some(Instant::now() + wait);
                let reader = state.reader.take();
                drop(state);
                if let Some(reader) = reader {
                    reader.wake();
                }
            }
        }
    }

    /// The deadline to wait for and what its passing means, or `None` while busy, in which
    /// case `reader` is woken when there is a deadline again.
    fn deadline(&self, reader: &Waker) -> Option<(Instant, &'static str)> {
        let mut state = self.state();
        let why = match (state.closing, state.phase) {
            (true, _) => "the answer closed the connection",
            (false, Phase::Waiting { first: false }) => "no new request within the idle timeout",
            (false, Phase::Waiting { first: true } | Phase::ReadingHeaders | Phase::Busy(_)) => {
                "the request headers did not arrive within the header read timeout"
            }
        };
        match state.deadline {
            Some(at) => Some((at, why)),
            None => {
                if !state.reader.as_ref().is_some_and(|r| r.will_wake(reader)) {
                    state.reader = Some(reader.clone());
                }
                None
            }
        }
    }
}

/// Held while a request is being answered.
pub struct Busy(Arc<Clock>);

impl Drop for Busy {
    fn drop(&mut self) {
        self.0.request_finished();
    }
}

/// A connection's socket that fails its reads once the deadline of the connection's phase has
/// passed.
pub struct Guarded<IO> {
    io: IO,
    clock: Arc<Clock>,
    timer: Pin<Box<Sleep>>,
    armed: Option<Instant>,
}

impl<IO> Guarded<IO> {
    pub fn new(io: IO, clock: Arc<Clock>) -> Guarded<IO> {
        Guarded {
            io,
            clock,
            timer: Box::pin(tokio::time::sleep(Duration::ZERO)),
            armed: None,
        }
    }

    /// A write that took bytes shows the peer is reading: the clock hears of it, whichever
    /// way the bytes were written.
    fn heard_sent(&self, written: Poll<io::Result<usize>>) -> Poll<io::Result<usize>> {
        if let Poll::Ready(Ok(n)) = written {
            if n > 0 {
                self.clock.bytes_sent();
            }
        }
        written
    }
}

impl<IO: AsyncRead + Unpin> AsyncRead for Guarded<IO> {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        if let Poll::Ready(read) = Pin::new(&mut this.io).poll_read(cx, buf) {
            if read.is_ok() && buf.filled().len() > before {
                this.clock.bytes_arrived();
            }
            return Poll::Ready(read);
        }
        // Nothing to read: the phase's deadline, if it has one, wakes this read to fail it.
        let Some((deadline, why)) = this.clock.deadline(cx.waker()) else {
            return Poll::Pending;
        };
        if this.armed != Some(deadline) {
            this.timer.as_mut().reset(deadline);
            this.armed = Some(deadline);
        }
        match this.timer.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Err(io::Error::new(io::ErrorKind::TimedOut, why))),
            Poll::Pending => Poll::Pending,
        }
    }
}

impl<IO: AsyncWrite + Unpin> AsyncWrite for Guarded<IO> {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let written = Pin::new(&mut this.io).poll_write(cx, buf);
        this.heard_sent(written)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let written = Pin::new(&mut this.io).poll_write_vectored(cx, bufs);
        this.heard_sent(written)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncReadExt;

    const HEADER: Duration = Duration::from_secs(10);
    const IDLE: Duration = Duration::from_secs(60);

    /// The time left before `clock`'s deadline, to the second.
    fn left(clock: &Clock) -> Option<u64> {
        clock
            .deadline(Waker::noop())
            .map(|(at, _)| at.saturating_duration_since(Instant::now()).as_secs_f64().round() as u64)
    }

    #[test]
    fn each_phase_has_its_deadline() {
        let clock = Clock::start(HEADER, IDLE);
        assert_eq!(left(&clock), Some(10), "a new connection has the header timeout");
        clock.bytes_arrived();
        assert_eq!(left(&clock), Some(10), "its first bytes earn no extra time");
        let busy = clock.request_started();
        assert_eq!(
            left(&clock),
            None,
            "a request being answered is the request timeout's business"
        );
        drop(busy);
        assert_eq!(left(&clock), Some(60), "a kept-alive connection waits the idle timeout");
        clock.bytes_sent();
        assert_eq!(left(&clock), Some(60), "from the last byte of the answer");
        clock.bytes_arrived();
        assert_eq!(
            left(&clock),
            Some(10),
            "a later request has the header timeout from its first byte"
        );
        clock.bytes_arrived();
        assert_eq!(left(&clock), Some(10));
        let (one, two) = (clock.request_started(), clock.request_started());
        drop(one);
        assert_eq!(left(&clock), None, "busy while any request is");
        drop(two);
        assert_eq!(left(&clock), Some(60));
        let closing = clock.request_started();
        clock.close_after_answer();
        drop(closing);
        assert_eq!(
            left(&clock),
            Some(0),
            "an answer that closes ends the connection at once"
        );
        clock.bytes_sent();
        clock.bytes_arrived();
        assert_eq!(left(&clock), Some(0), "whatever still moves");
    }

    #[tokio::test]
    async fn a_read_left_waiting_while_busy_waits_for_the_idle_deadline_once_the_answer_is_ready() {
        let (_client, server) = tokio::io::duplex(64);
        let clock = Clock::start(HEADER, Duration::from_millis(50));
        let busy = clock.request_started();
        let mut socket = Guarded::new(server, clock);
        let reader = tokio::spawn(async move { socket.read(&mut [0u8; 16]).await });
        tokio::time::sleep(Duration::from_millis(20)).await;
        drop(busy);
        let read = tokio::time::timeout(Duration::from_secs(5), reader)
            .await
            .expect("the read is woken and fails at the idle deadline");
        let err = read.unwrap().unwrap_err();
        assert!(err.to_string().contains("idle timeout"), "{err}");
    }

    #[tokio::test]
    async fn the_socket_fails_its_read_at_the_deadline() {
        let (_client, server) = tokio::io::duplex(64);
        let clock = Clock::start(Duration::from_millis(50), IDLE);
        let started = Instant::now();
        let err = Guarded::new(server, clock).read(&mut [0u8; 16]).await.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::TimedOut);
        assert!(err.to_string().contains("header read timeout"), "{err}");
        assert!(started.elapsed() >= Duration::from_millis(50));
    }
}
