//! What a caller says about the request's identity, kept instead of replaced: an incoming
//! `X-Request-Id` (printable ASCII without spaces, at most 128 characters) becomes the
//! request id, and a W3C `traceparent` is echoed and its trace id logged (it is also the
//! request id when no `X-Request-Id` came). A value that is not valid is ignored, never an
//! error: the request gets an id of ours, as it would without one.

use axum::http::HeaderMap;

/// The longest `X-Request-Id` kept.
const MAX_REQUEST_ID: usize = 128;

/// The caller's identifiers of a request.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Incoming {
    /// A valid `X-Request-Id`.
    pub request_id: Option<String>,
    /// A valid `traceparent`, as received.
    pub traceparent: Option<String>,
    /// The trace id of `traceparent` (32 lowercase hex digits).
    pub trace_id: Option<String>,
}

impl Incoming {
    pub fn from_headers(headers: &HeaderMap) -> Incoming {
        let text = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
        let request_id = text("x-request-id")
            .filter(|id| valid_request_id(id))
            .map(str::to_owned);
        let trace = text("traceparent").and_then(|t| trace_id(t).map(|id| (t.to_owned(), id.to_owned())));
        let (traceparent, trace_id) = trace.unzip();
        Incoming {
            request_id,
            traceparent,
            trace_id,
        }
    }

    /// The request id: the caller's `X-Request-Id`, else the trace id, else `generate()`.
    pub fn request_id(&self, generate: impl FnOnce() -> String) -> String {
        self.request_id
            .clone()
            .or_else(|| self.trace_id.clone())
            .unwrap_or_else(generate)
    }
}

/// Printable ASCII without spaces (it is echoed in a header and written in logs), 1 to 128 long.
fn valid_request_id(id: &str) -> bool {
    (1..=MAX_REQUEST_ID).contains(&id.len()) && id.bytes().all(|b| b.is_ascii_graphic())
}

/// The trace id of a valid version-00 `traceparent` (`00-<32 hex>-<16 hex>-<2 hex>`, lowercase,
/// neither id all zeros). A later version may append fields after the flags.
fn trace_id(traceparent: &str) -> Option<&str> {
    let mut parts = traceparent.split('-');
    let (version, trace, parent, flags) = (parts.next()?, parts.next()?, parts.next()?, parts.next()?);
    let hex =
        |s: &str, len: usize| s.len() == len && s.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
    let extra = parts.next().is_some();
    let version_ok = hex(version, 2) && version != "ff" && (version != "00" || !extra);
    let nonzero = |s: &str| s.bytes().any(|b| b != b'0');
    (version_ok && hex(trace, 32) && nonzero(trace) && hex(parent, 16) && nonzero(parent) && hex(flags, 2))
        .then_some(trace)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TRACEPARENT: &str = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

    fn incoming(pairs: &[(&'static str, &str)]) -> Incoming {
        let mut headers = HeaderMap::new();
        for (name, value) in pairs {
            headers.insert(*name, value.parse().unwrap());
        }
        Incoming::from_headers(&headers)
    }

    #[test]
    fn a_valid_request_id_is_kept_and_an_invalid_one_ignored() {
        assert_eq!(
            incoming(&[("x-request-id", "req-42/a.b")]).request_id(|| "new".into()),
            "req-42/a.b"
        );
        let long = "x".repeat(129);
        for bad in ["", "two words", long.as_str()] {
            assert_eq!(
                incoming(&[("x-request-id", bad)]).request_id(|| "new".into()),
                "new",
                "{bad:?}"
            );
        }
        assert_eq!(
            incoming(&[("x-request-id", &"x".repeat(128))])
                .request_id(String::new)
                .len(),
            128
        );
    }

    #[test]
    fn a_valid_traceparent_gives_its_trace_id_unless_a_request_id_came() {
        let t = incoming(&[("traceparent", TRACEPARENT)]);
        assert_eq!(t.traceparent.as_deref(), Some(TRACEPARENT));
        assert_eq!(t.request_id(|| "new".into()), "4bf92f3577b34da6a3ce929d0e0e4736");
        let both = incoming(&[("traceparent", TRACEPARENT), ("x-request-id", "mine")]);
        assert_eq!(both.request_id(|| "new".into()), "mine");
        assert_eq!(both.trace_id.as_deref(), Some("4bf92f3577b34da6a3ce929d0e0e4736"));
        for bad in [
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
            "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra",
            "00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01",
            "garbage",
        ] {
            let t = incoming(&[("traceparent", bad)]);
            assert_eq!((t.traceparent, t.trace_id), (None, None), "{bad}");
        }
        let future = incoming(&[(
            "traceparent",
            "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-more",
        )]);
        assert!(future.trace_id.is_some(), "a later version may carry more fields");
    }
}
