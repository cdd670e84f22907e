//! A webhook receiver inside the test binary: a real HTTP server on a random port that records
//! every request and answers as its script says.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::Router;

/// One scripted answer.
#[derive(Debug, Clone)]
pub struct Reply {
    pub status: u16,
    pub retry_after: Option<&'static str>,
    pub body: &'static str,
    /// `Location`, for redirects.
    pub location: Option<&'static str>,
    /// How long the receiver takes to answer.
    pub delay_ms: u64,
}

impl Reply {
    pub fn status(status: u16) -> Reply {
        Reply {
            status,
            retry_after: None,
            body: "",
            location: None,
            delay_ms: 0,
        }
    }
}

/// One request received.
#[derive(Debug, Clone)]
pub struct Received {
    pub id: String,
    pub timestamp: String,
    pub signature: String,
    pub content_type: String,
    pub body: String,
}

#[derive(Default)]
struct Inner {
    script: VecDeque<Reply>,
    otherwise: Option<Reply>,
    received: Vec<Received>,
}

#[derive(Clone)]
pub struct Receiver {
    pub url: String,
    inner: Arc<Mutex<Inner>>,
}

async fn hook(State(inner): State<Arc<Mutex<Inner>>>, headers: HeaderMap, body: Bytes) -> Response {
    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok()).unwrap_or("").to_owned();
    let reply = {
        let mut inner = inner.lock().unwrap();
        inner.received.push(Received {
            id: header("webhook-id"),
            timestamp: header("webhook-timestamp"),
            signature: header("webhook-signature"),
            content_type: header("content-type"),
            body: String::from_utf8_lossy(&body).into_owned(),
        });
        inner
            .script
            .pop_front()
            .or_else(|| inner.otherwise.clone())
            .unwrap_or(Reply::status(200))
    };
    if reply.delay_ms > 0 {
        tokio::time::sleep(std::time::Duration::from_millis(reply.delay_ms)).await;
    }
    let mut response = (StatusCode::from_u16(reply.status).unwrap(), reply.body).into_response();
    if let Some(seconds) = reply.retry_after {
        response.headers_mut().insert("retry-after", seconds.parse().unwrap());
    }
    if let Some(location) = reply.location {
        response.headers_mut().insert("location", location.parse().unwrap());
    }
    response
}

impl Receiver {
    /// Starts a receiver that answers `script` in order, then `otherwise` (200 if none).
    pub async fn start(script: Vec<Reply>, otherwise: Option<Reply>) -> Receiver {
        Receiver::start_on(0, script, otherwise).await
    }

    /// [`Receiver::start`] on loopback port `port` (0: any free one), so that a receiver can
    /// come up at a URL the gateway was already given while nothing listened there.
    pub async fn start_on(port: u16, script: Vec<Reply>, otherwise: Option<Reply>) -> Receiver {
        let inner = Arc::new(Mutex::new(Inner {
            script: script.into(),
            otherwise,
            received: Vec::new(),
        }));
        let app = Router::new().route("/hook", post(hook)).with_state(inner.clone());
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await.unwrap();
        let url = format!("http://{}/hook", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        Receiver { url, inner }
    }

    pub fn received(&self) -> Vec<Received> {
        self.inner.lock().unwrap().received.clone()
    }
}
