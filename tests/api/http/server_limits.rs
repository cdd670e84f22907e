//! The HTTP server against clients that hold connections: silent or slow ones are closed after
//! the header read timeout, kept-alive ones after the idle timeout, a request whose body never
//! ends is answered 503 in its envelope after the request timeout, and connections beyond the
//! cap wait until one closes. Spoken to over raw TCP, since an HTTP client would not misbehave.

use std::time::{Duration, Instant};

use momo_gateway::config::Config;
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::support::helpers::TestApp;
use momo_test_support::Backend;

/// A gateway whose limits `adjust` sets; the database does not matter here.
async fn gateway(adjust: impl FnOnce(&mut Config)) -> TestApp {
    TestApp::spawn_with(Backend::Sqlite, adjust)
        .await
        .expect("SQLite is always there")
}

async fn connect(app: &TestApp) -> TcpStream {
    TcpStream::connect(app.base.trim_start_matches("http://"))
        .await
        .unwrap()
}

/// Reads until the server closes the connection; how long that took, from `since`.
async fn closed_after(stream: &mut TcpStream, since: Instant) -> Duration {
    let mut buf = [0u8; 4096];
    let read_all = async {
        while let Ok(n) = stream.read(&mut buf).await {
            if n == 0 {
                break;
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(20), read_all)
        .await
        .expect("the server closes the connection");
    since.elapsed()
}

/// Reads one answer (headers, then `content-length` bytes): its status and JSON body.
async fn read_answer(stream: &mut TcpStream) -> (u16, Value) {
    let mut raw = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        if let Some(end) = raw.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&raw[..end]).to_lowercase();
            let length: usize = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .map(|v| v.trim().parse().unwrap())
                .unwrap_or(0);
            if raw.len() >= end + 4 + length {
                let status = head[9..12].parse().unwrap();
                let body = &raw[end + 4..end + 4 + length];
                let json = serde_json::from_slice(body)
                    .unwrap_or_else(|_| panic!("answer {status} is not JSON: {}", String::from_utf8_lossy(body)));
                return (status, json);
            }
        }
        let n = tokio::time::timeout(Duration::from_secs(20), stream.read(&mut buf))
            .await
            .expect("an answer")
            .unwrap();
        assert!(n > 0, "closed before a whole answer: {}", String::from_utf8_lossy(&raw));
        raw.extend_from_slice(&buf[..n]);
    }
}

const HEALTH: &[u8] = b"GET /health HTTP/1.1\r\nhost: gateway\r\n\r\n";

fn millis(ms: u64) -> Duration {
    Duration::from_millis(ms)
}

#[tokio::test]
async fn a_connection_that_sends_nothing_or_half_its_headers_is_closed_after_the_header_read_timeout() {
    let app = gateway(|c| c.http.header_read_timeout = millis(500)).await;
    let since = Instant::now();
    let mut silent = connect(&app).await;
    let mut partial = connect(&app).await;
    partial
        .write_all(b"POST /v1/auth HTTP/1.1\r\nhost: gateway\r\ncontent-")
        .await
        .unwrap();
    for stream in [&mut silent, &mut partial] {
        let lived = closed_after(stream, since).await;
        assert!(lived >= millis(450) && lived < millis(10_000), "closed after {lived:?}");
    }
}

#[tokio::test]
async fn a_kept_alive_connection_waits_the_idle_timeout_not_the_header_one() {
    let app = gateway(|c| {
        c.http.header_read_timeout = millis(300);
        c.http.idle_timeout = millis(3_000);
    })
    .await;
    let mut stream = connect(&app).await;
    stream.write_all(HEALTH).await.unwrap();
    assert_eq!(read_answer(&mut stream).await.0, 200);
    // Idle for a second, over three header read timeouts: nothing comes, not even the close.
    let mut buf = [0u8; 64];
    let idle = tokio::time::timeout(millis(1_000), stream.read(&mut buf)).await;
    assert!(idle.is_err(), "the idle connection stayed open and silent: {idle:?}");
    stream.write_all(HEALTH).await.unwrap();
    assert_eq!(
        read_answer(&mut stream).await.0,
        200,
        "idle for longer than the header read timeout, the connection still serves"
    );
    let since = Instant::now();
    let lived = closed_after(&mut stream, since).await;
    // About 3 s; well above the header read timeout whatever this test's own delays.
    assert!(
        lived >= millis(2_000) && lived < millis(15_000),
        "closed after {lived:?}"
    );
}

#[tokio::test]
async fn a_body_that_never_ends_is_answered_503_in_its_envelope_after_the_request_timeout() {
    let app = gateway(|c| c.http.request_timeout = millis(500)).await;
    let token = app.sandbox_token().await;
    for (path, message) in [
        ("/v1/collecte/mobile-money", "ServiceUnavailableError"),
        ("/v2/collecte/mobile-money", "OPERATOR_IS_UNAVAILABLE"),
    ] {
        let mut stream = connect(&app).await;
        let head = format!(
            "POST {path} HTTP/1.1\r\nhost: gateway\r\nauthorization: Bearer {token}\r\n\
             content-type: application/json\r\ncontent-length: 200\r\n\r\n{{\"transactionId\":"
        );
        let since = Instant::now();
        stream.write_all(head.as_bytes()).await.unwrap();
        let (status, body) = read_answer(&mut stream).await;
        assert!(since.elapsed() >= millis(450), "answered after {:?}", since.elapsed());
        assert_eq!(status, 503, "{body}");
        assert_eq!(body["message"], message, "{body}");
        assert!(
            body["reason"]
                .as_str()
                .unwrap()
                .contains("MOMO_HTTP_REQUEST_TIMEOUT_MS"),
            "{body}"
        );
        let since = Instant::now();
        assert!(
            closed_after(&mut stream, since).await < millis(5_000),
            "the connection is closed after the answer, not left to the idle timeout"
        );
    }
}

#[tokio::test]
async fn connections_beyond_the_cap_wait_until_one_closes() {
    let app = gateway(|c| c.http.max_connections = 2).await;
    let first = connect(&app).await;
    let _second = connect(&app).await;
    let mut third = connect(&app).await;
    third.write_all(HEALTH).await.unwrap();
    let mut buf = [0u8; 64];
    let early = tokio::time::timeout(millis(500), third.read(&mut buf)).await;
    assert!(early.is_err(), "the third connection is not served while two are open");
    drop(first);
    assert_eq!(read_answer(&mut third).await.0, 200, "served once a slot is free");
}
