//! OpenTelemetry traces. When `OTEL_EXPORTER_OTLP_ENDPOINT` (or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`)
//! is set, the spans of requests, operator calls and write batches go to it over OTLP/HTTP
//! (protobuf, or JSON with `OTEL_EXPORTER_OTLP_PROTOCOL=http/json`), batched by the SDK on a
//! thread of its own; unset, nothing is built and nothing is exported. The SDK reads the other
//! standard variables itself (`OTEL_SERVICE_NAME`, `OTEL_RESOURCE_ATTRIBUTES`,
//! `OTEL_EXPORTER_OTLP_HEADERS`, `OTEL_BSP_*`).
//!
//! Only the three spans named in [`EXPORTED`] are exported, with their fields as attributes
//! (operator, connector, call, outcome; method, route template, request id, merchant id; the
//! batch's size and outcome): no log line becomes a span event, so no number, name or secret a
//! log line might hold leaves the process this way.

use std::sync::atomic::{AtomicBool, Ordering};

use opentelemetry::trace::{
    SpanContext, SpanId, TraceContextExt, TraceFlags, TraceId, TraceState, TracerProvider as _,
};
use opentelemetry_otlp::{Protocol, WithExportConfig};
use opentelemetry_sdk::trace::SdkTracerProvider;
use opentelemetry_sdk::Resource;
use tracing::Span;
use tracing_opentelemetry::OpenTelemetrySpanExt;
use tracing_subscriber::filter::{filter_fn, FilterFn};
use tracing_subscriber::registry::LookupSpan;
use tracing_subscriber::Layer;

/// The spans exported: a request, an operator call, a write batch.
pub const EXPORTED: [&str; 3] = ["request", "operator_call", "write_batch"];

/// Whether traces are exported by this process: spans are then given their remote parent.
static ENABLED: AtomicBool = AtomicBool::new(false);

pub fn enabled() -> bool {
    ENABLED.load(Ordering::Relaxed)
}

/// The exporting pipeline, kept to flush what is batched at exit.
pub struct Traces {
    provider: SdkTracerProvider,
}

impl Traces {
    /// The pipeline the environment asks for (`var` reads a variable), `None` when no endpoint
    /// is set, or why it cannot be built.
    pub fn from_env(var: impl Fn(&str) -> Option<String>) -> Result<Option<Traces>, String> {
        let set = |name: &str| var(name).filter(|v| !v.trim().is_empty());
        if set("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT").is_none() && set("OTEL_EXPORTER_OTLP_ENDPOINT").is_none() {
            return Ok(None);
        }
        let protocol = match set("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")
            .or_else(|| set("OTEL_EXPORTER_OTLP_PROTOCOL"))
            .as_deref()
        {
            None | Some("http/protobuf") => Protocol::HttpBinary,
            Some("http/json") => Protocol::HttpJson,
            Some(other) => {
                return Err(format!(
                    "OTEL_EXPORTER_OTLP_PROTOCOL={other:?} is not served: use http/protobuf (the default) or http/json"
                ))
            }
        };
        // The endpoint, headers and timeout come from the standard variables, read by the SDK.
        let exporter = opentelemetry_otlp::SpanExporter::builder()
            .with_http()
            .with_protocol(protocol)
            .build()
            .map_err(|e| format!("cannot build the OTLP exporter: {e}"))?;
        let service = set("OTEL_SERVICE_NAME").unwrap_or_else(|| "momo-gateway".to_owned());
        let provider = SdkTracerProvider::builder()
            .with_batch_exporter(exporter)
            .with_resource(
                Resource::builder()
                    .with_service_name(service)
                    .with_attribute(opentelemetry::KeyValue::new(
                        "service.version",
                        env!("CARGO_PKG_VERSION"),
                    ))
                    .build(),
            )
            .build();
        Ok(Some(Traces { provider }))
    }

    /// The layer that turns the [`EXPORTED`] spans into OpenTelemetry spans.
    pub fn layer<S>(&self) -> impl Layer<S>
    where
        S: tracing::Subscriber + for<'a> LookupSpan<'a>,
    {
        ENABLED.store(true, Ordering::Relaxed);
        tracing_opentelemetry::layer()
            .with_tracer(self.provider.tracer("momo-gateway"))
            .with_filter(only_exported())
    }

    /// Exports what is still batched; called once, at exit.
    pub fn shutdown(&self) {
        if let Err(e) = self.provider.shutdown() {
            eprintln!("momo-gateway: traces not all exported at exit: {e}");
        }
    }
}

/// Spans named in [`EXPORTED`], and no event: a log line never becomes a span event.
fn only_exported() -> FilterFn<impl Fn(&tracing::Metadata<'_>) -> bool> {
    filter_fn(|meta| meta.is_span() && EXPORTED.contains(&meta.name())).with_max_level_hint(tracing::Level::INFO)
}

/// Continues the caller's trace: `span`'s parent becomes the span a valid `traceparent`
/// (`00-{trace id}-{parent id}-{flags}`) names. Does nothing while traces are not exported.
pub fn continue_trace(span: &Span, traceparent: Option<&str>) {
    if !enabled() {
        return;
    }
    let Some(parent) = traceparent.and_then(remote_parent) else {
        return;
    };
    span.set_parent(opentelemetry::Context::new().with_remote_span_context(parent));
}

/// Records the answer's status on a request's span, where traces are exported.
pub fn record_status(span: &Span, status: u16) {
    if enabled() {
        span.set_attribute("http.response.status_code", i64::from(status));
    }
}

/// The span context a valid `traceparent` names.
fn remote_parent(traceparent: &str) -> Option<SpanContext> {
    let mut parts = traceparent.split('-');
    let (_version, trace, parent, flags) = (parts.next()?, parts.next()?, parts.next()?, parts.next()?);
    let flags = u8::from_str_radix(flags, 16).ok()?;
    let context = SpanContext::new(
        TraceId::from_hex(trace).ok()?,
        SpanId::from_hex(parent).ok()?,
        TraceFlags::new(flags),
        true,
        TraceState::default(),
    );
    context.is_valid().then_some(context)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nothing_is_built_without_an_endpoint_and_an_unknown_protocol_is_refused() {
        assert!(Traces::from_env(|_| None).unwrap().is_none());
        assert!(
            Traces::from_env(|n| (n == "OTEL_EXPORTER_OTLP_ENDPOINT").then(|| " ".to_owned()))
                .unwrap()
                .is_none()
        );
        let grpc = |n: &str| match n {
            "OTEL_EXPORTER_OTLP_ENDPOINT" => Some("http://127.0.0.1:4317".to_owned()),
            "OTEL_EXPORTER_OTLP_PROTOCOL" => Some("grpc".to_owned()),
            _ => None,
        };
        assert!(Traces::from_env(grpc).err().unwrap().contains("http/protobuf"));
    }

    #[test]
    fn a_traceparent_names_its_remote_parent() {
        let parent = remote_parent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01").unwrap();
        assert_eq!(parent.trace_id().to_string(), "4bf92f3577b34da6a3ce929d0e0e4736");
        assert_eq!(parent.span_id().to_string(), "00f067aa0ba902b7");
        assert!(parent.is_sampled() && parent.is_remote());
        assert!(remote_parent("00-00000000000000000000000000000000-00f067aa0ba902b7-01").is_none());
        assert!(remote_parent("garbage").is_none());
    }
}
