//! OpenTelemetry traces: a gateway process given `OTEL_EXPORTER_OTLP_ENDPOINT` sends a
//! request's spans to a local OTLP/HTTP receiver (JSON here, `OTEL_EXPORTER_OTLP_PROTOCOL`),
//! continuing the caller's `traceparent`: the request's span is a child of the caller's, the
//! operator call a child of the request, and no span carries the payer's number.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::State;
use axum::routing::post;
use axum::Router;
use momo_gateway::telemetry::traces;
use serde_json::Value;

use crate::support::helpers::TestApp;
use crate::support::requests::collect_v1;
use momo_test_support::{eventually, process, Backend};

const TRACE: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
const CALLER_SPAN: &str = "00f067aa0ba902b7";
const PAYER: &str = "0701020301";

/// Every span an OTLP/HTTP JSON export carries.
fn spans_of(export: &Value) -> Vec<Value> {
    let mut spans = Vec::new();
    for resource in export["resourceSpans"].as_array().into_iter().flatten() {
        for scope in resource["scopeSpans"].as_array().into_iter().flatten() {
            spans.extend(scope["spans"].as_array().into_iter().flatten().cloned());
        }
    }
    spans
}

/// A span's string attribute.
fn attribute<'a>(span: &'a Value, key: &str) -> Option<&'a str> {
    span["attributes"]
        .as_array()?
        .iter()
        .find(|a| a["key"] == key)?
        .get("value")?
        .get("stringValue")?
        .as_str()
}

/// A local OTLP/HTTP receiver: the spans it was sent, and its base URL.
async fn receiver() -> (Arc<Mutex<Vec<Value>>>, String) {
    let received: Arc<Mutex<Vec<Value>>> = Arc::default();
    let app = Router::new()
        .route(
            "/v1/traces",
            post(
                |State(received): State<Arc<Mutex<Vec<Value>>>>, body: Bytes| async move {
                    let export: Value = serde_json::from_slice(&body).expect("OTLP JSON");
                    received.lock().unwrap().extend(spans_of(&export));
                    "{}"
                },
            ),
        )
        .with_state(received.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (received, base)
}

#[tokio::test]
async fn a_requests_spans_reach_an_otlp_receiver_under_the_callers_trace() {
    let app = TestApp::spawn(Backend::Sqlite).await.expect("SQLite is always there");
    let (received, base) = receiver().await;
    let mut command = process::command(&app.database_url);
    command
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", &base)
        .env("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json")
        .env("OTEL_BSP_SCHEDULE_DELAY", "100");
    let gateway = process::serve(command);
    let http = reqwest::Client::new();
    let creds = &app.merchant.sandbox;
    let auth: Value = http
        .post(format!("{}/v1/auth", gateway.base))
        .basic_auth(&creds.api_key, Some(&creds.api_secret))
        .header("X-Environment", "Sandbox")
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let token = auth["data"]["token"].as_str().expect("a token").to_owned();
    let answer = http
        .post(format!("{}/v1/collecte/mobile-money", gateway.base))
        .bearer_auth(&token)
        .header("traceparent", format!("00-{TRACE}-{CALLER_SPAN}-01"))
        .json(&collect_v1("traced-1", PAYER, "GAMMA_MONEY_CI", "1500"))
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 200);

    let spans = eventually(
        "the request's spans are exported",
        Duration::from_secs(15),
        async || {
            let spans = received.lock().unwrap().clone();
            let ours = spans.iter().filter(|s| s["traceId"] == TRACE).count();
            if ours >= 2 && spans.iter().any(|s| s["name"] == "write_batch") {
                Ok(spans)
            } else {
                Err(format!("{ours} spans of the trace so far"))
            }
        },
    )
    .await;
    gateway.kill();

    let request = spans
        .iter()
        .find(|s| s["name"] == "request" && s["traceId"] == TRACE)
        .expect("the request's span");
    assert_eq!(
        request["parentSpanId"], CALLER_SPAN,
        "the caller's span is its parent: {request}"
    );
    assert_eq!(
        attribute(request, "route"),
        Some("/v1/collecte/mobile-money"),
        "{request}"
    );
    assert_eq!(attribute(request, "method"), Some("POST"));
    let call = spans
        .iter()
        .find(|s| s["name"] == "operator_call" && s["traceId"] == TRACE)
        .expect("the operator call's span");
    assert_eq!(
        call["parentSpanId"], request["spanId"],
        "the request is its parent: {call}"
    );
    assert_eq!(attribute(call, "operator"), Some("GAMMA"));
    assert_eq!(attribute(call, "connector"), Some("simulator"));
    assert_eq!(attribute(call, "call"), Some("initiate"));
    assert_eq!(attribute(call, "outcome"), Some("answered"));
    let auth_span = spans
        .iter()
        .find(|s| s["name"] == "request" && attribute(s, "route") == Some("/v1/auth"))
        .expect("the token request's span");
    assert_ne!(
        auth_span["traceId"], TRACE,
        "a request without traceparent starts its own trace"
    );
    assert!(auth_span["parentSpanId"].as_str().unwrap_or_default().is_empty());
    for span in &spans {
        let name = span["name"].as_str().unwrap_or_default();
        assert!(
            traces::EXPORTED.contains(&name),
            "only the three spans are exported: {name}"
        );
        assert!(
            span["events"].as_array().is_none_or(|e| e.is_empty()),
            "no log line becomes a span event: {span}"
        );
    }
    let exported = serde_json::to_string(&spans).unwrap();
    assert!(!exported.contains(PAYER), "no span carries the payer's number");
    assert!(!exported.contains(&token), "nor the token");
    assert!(!exported.contains(&creds.api_secret), "nor the secret");
}
