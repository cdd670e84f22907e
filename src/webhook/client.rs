//! The outbound HTTP client for webhooks: `http` and `https` only, no redirects, no proxy, a
//! timeout per attempt, the answer read only up to a cap, and private, loopback and other
//! special-purpose targets (`address.rs`) refused unless `MOMO_WEBHOOK_ALLOW_PRIVATE` says
//! otherwise, both when the URL is set and at send time (through the resolver, since a name can
//! resolve differently later).

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::{Duration, Instant};

use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use reqwest::Url;

use super::address::{is_public, special_purpose};
use crate::net::{redact_error, redact_url};

/// How much of an answer is read; the log keeps the first KiB of it.
const READ_CAP: usize = 64 * 1024;
const LOGGED_BYTES: usize = 1024;

/// Idle connections kept per receiving host: as many as the dispatcher can have in flight to
/// one host (two loops of 256 events each), so that the connections of one step are reused by
/// the next. With fewer, most deliveries to a busy endpoint opened a new connection (connect,
/// then shutdown and close when the pool dropped it), a large part of the drain's CPU.
const IDLE_PER_HOST: usize = 512;

/// Checks a webhook URL's form, and (unless private targets are allowed) that it does not name a
/// private, loopback or other special-purpose address outright.
pub fn check_url(raw: &str, allow_private: bool) -> Result<Url, UrlProblem> {
    // Its errors reach attempt records and logs: they show the URL without its secrets.
    let problem = |kind| UrlProblem {
        shown: redact_url(raw),
        kind,
    };
    let url = Url::parse(raw).map_err(|e| problem(UrlProblemKind::Unparsable(e.to_string())))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(problem(UrlProblemKind::Scheme));
    }
    let Some(host) = url.host_str() else {
        return Err(problem(UrlProblemKind::NoHost));
    };
    if !allow_private {
        let host = host.trim_start_matches('[').trim_end_matches(']');
        let block = match host.parse::<IpAddr>() {
            Ok(ip) => special_purpose(ip),
            Err(_) if host.eq_ignore_ascii_case("localhost") || host.ends_with(".localhost") => Some("loopback"),
            Err(_) => None,
        };
        if let Some(block) = block {
            return Err(problem(UrlProblemKind::Private(block)));
        }
    }
    Ok(url)
}

/// Why a webhook URL is refused; `shown` is the URL without its secrets.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("webhook URL {shown:?} {kind}")]
pub struct UrlProblem {
    pub shown: String,
    pub kind: UrlProblemKind,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UrlProblemKind {
    #[error("is not a valid URL: {0}")]
    Unparsable(String),
    #[error("must use http or https")]
    Scheme,
    #[error("has no host")]
    NoHost,
    #[error(
        "points to a private or special-purpose address ({0}); use a public address, or set \
         MOMO_WEBHOOK_ALLOW_PRIVATE=true for local testing"
    )]
    Private(&'static str),
}

/// A resolver that drops private addresses, so a public name cannot be pointed inside later.
struct PublicOnly;

impl Resolve for PublicOnly {
    fn resolve(&self, name: Name) -> Resolving {
        Box::pin(async move {
            let host = name.as_str().to_owned();
            let found: Vec<SocketAddr> = tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
            let public: Vec<SocketAddr> = found.into_iter().filter(|a| is_public(a.ip())).collect();
            if public.is_empty() {
                return Err(format!("{host} resolves only to private or special-purpose addresses").into());
            }
            let addrs: Addrs = Box::new(public.into_iter());
            Ok(addrs)
        })
    }
}

/// What one attempt produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Delivery {
    pub status_code: Option<u16>,
    pub latency_ms: u64,
    pub error: Option<String>,
    pub response: Option<String>,
    /// `Retry-After` on 429 and 503, as seconds or an HTTP-date.
    pub retry_after: Option<Duration>,
}

/// Sends signed webhook requests.
#[derive(Clone)]
pub struct WebhookClient {
    http: reqwest::Client,
    allow_private: bool,
}

impl WebhookClient {
    pub fn new(timeout: Duration, allow_private: bool) -> Result<WebhookClient, reqwest::Error> {
        let mut builder = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(timeout)
            .connect_timeout(timeout)
            .pool_max_idle_per_host(IDLE_PER_HOST)
            // A proxy from the environment (`HTTPS_PROXY`, `ALL_PROXY`) would resolve and connect
            // in our place, around the resolver that refuses private addresses.
            .no_proxy()
            .user_agent(concat!("momo-gateway/", env!("CARGO_PKG_VERSION")));
        if !allow_private {
            builder = builder.dns_resolver(Arc::new(PublicOnly));
        }
        Ok(WebhookClient {
            http: builder.build()?,
            allow_private,
        })
    }

    /// POSTs `body` with the Standard Webhooks headers; never fails, the outcome says it all.
    pub async fn send(&self, url: &str, id: &str, timestamp: i64, signature: &str, body: &str) -> Delivery {
        let started = Instant::now();
        let failed = |error: String| Delivery {
            status_code: None,
            latency_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
            error: Some(error),
            response: None,
            retry_after: None,
        };
        if let Err(e) = check_url(url, self.allow_private) {
            return failed(e.to_string());
        }
        let sent = self
            .http
            .post(url)
            .header("content-type", "application/json")
            .header("webhook-id", id)
            .header("webhook-timestamp", timestamp.to_string())
            .header("webhook-signature", signature)
            .body(body.to_owned())
            .send()
            .await;
        let mut response = match sent {
            Ok(r) => r,
            Err(e) => return failed(describe(e)),
        };
        let status = response.status();
        let retry_after = matches!(status.as_u16(), 429 | 503)
            .then(|| {
                let value = response.headers().get("retry-after")?.to_str().ok()?;
                super::retry::retry_after(value, time::OffsetDateTime::now_utc())
            })
            .flatten();
        let mut read = Vec::new();
        let mut error = None;
        loop {
            match response.chunk().await {
                Ok(Some(chunk)) => {
                    read.extend_from_slice(&chunk);
                    if read.len() >= READ_CAP {
                        break;
                    }
                }
                Ok(None) => break,
                Err(e) => {
                    error = Some(describe(e));
                    break;
                }
            }
        }
        read.truncate(LOGGED_BYTES);
        Delivery {
            status_code: Some(status.as_u16()),
            latency_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
            error: error.or_else(|| (!status.is_success()).then(|| format!("answered {status}"))),
            response: (!read.is_empty()).then(|| String::from_utf8_lossy(&read).into_owned()),
            retry_after,
        }
    }
}

/// A transport error in one line, with its cause chain (which names a refused private address),
/// and the URL it names without its secrets.
fn describe(e: reqwest::Error) -> String {
    let e = &redact_error(e);
    let mut text = if e.is_timeout() {
        "timed out".to_owned()
    } else {
        e.to_string()
    };
    let mut source = std::error::Error::source(e);
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_checked_for_scheme_and_private_targets() {
        assert!(check_url("https://shop.example.ci/hooks", false).is_ok());
        assert!(check_url("ftp://shop.example.ci/hooks", false)
            .unwrap_err()
            .to_string()
            .contains("http or https"));
        for private in [
            "http://127.0.0.1:9000/h",
            "http://localhost/h",
            "http://[::1]/h",
            "http://10.0.0.5/h",
            "http://198.18.0.1/h",
            "http://[64:ff9b::7f00:1]/h",
            "http://2130706433/h",
        ] {
            assert!(
                check_url(private, false)
                    .unwrap_err()
                    .to_string()
                    .contains("MOMO_WEBHOOK_ALLOW_PRIVATE"),
                "{private}"
            );
            assert!(check_url(private, true).is_ok(), "{private}");
        }
    }
}
