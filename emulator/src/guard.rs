//! Applies a request's faults around its handler: the rules in force and the `X-Emulator-Fault`
//! header give the faults; `enter` waits out the latency, `refusal` answers an injected status
//! or cuts the connection before anything is executed, and `leave` holds the answer (timeout
//! after accepting) or cuts the connection after executing.

use std::time::Duration;

use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::json;

use super::faults::{self, Faults, ResetWhen, Tamper};
use super::fields::header;
use super::listener::Connection;
use super::Ctx;

/// An answer that ends a request early; boxed, as a `Response` is large to carry in `Err`.
pub type Refusal = Box<Response>;

/// The header that carries a request's faults.
pub const FAULT_HEADER: &str = "x-emulator-fault";

/// Whose error body an injected status carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Protocol {
    Momo,
    Wave,
    Paydunya,
}

impl Protocol {
    /// The error the protocol answers with `status`.
    pub fn injected(self, status: u16) -> Response {
        let code = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        let body = match (self, status) {
            (Protocol::Momo, 500) => {
                json!({"code": "INTERNAL_PROCESSING_ERROR", "message": "An internal error occurred."})
            }
            (Protocol::Momo, 503) => json!({"code": "SERVICE_UNAVAILABLE", "message": "Service unavailable."}),
            (Protocol::Momo, _) => json!({"statusCode": status, "message": "Fault injected by the operator emulator."}),
            (Protocol::Paydunya, _) => {
                json!({"response_code": status.to_string(), "response_text": "Fault injected by the operator emulator."})
            }
            (Protocol::Wave, _) => {
                let wave_code = match status {
                    429 => "rate-limit-exceeded",
                    500 => "internal-server-error",
                    503 => "service-unavailable",
                    _ => "emulated-fault",
                };
                json!({"code": wave_code, "message": "Fault injected by the operator emulator."})
            }
        };
        (code, Json(body)).into_response()
    }
}

/// A request's faults, with its connection so that they can cut it.
pub struct Guard {
    pub faults: Faults,
    conn: Connection,
    protocol: Protocol,
}

/// The emulator's own refusal of a fault header it cannot read.
fn bad_fault_header(message: String) -> Response {
    (StatusCode::BAD_REQUEST, Json(json!({"emulator_error": message}))).into_response()
}

impl Guard {
    /// Gathers the faults of a request at `point` and waits out its latency.
    pub async fn enter(
        ctx: &Ctx,
        point: &str,
        headers: &HeaderMap,
        conn: Connection,
        protocol: Protocol,
    ) -> Result<Guard, Response> {
        let mut faults = faults::take(&mut ctx.lock().rules, point);
        if let Some(raw) = header(headers, FAULT_HEADER) {
            faults.merge(&Faults::parse(raw).map_err(bad_fault_header)?);
        }
        if let Some(latency) = faults.latency {
            tokio::time::sleep(latency).await;
        }
        Ok(Guard { faults, conn, protocol })
    }

    /// The answer that replaces executing the request, if a fault says so.
    pub fn refusal(&self) -> Option<Response> {
        if self.faults.reset == Some(ResetWhen::Before) {
            self.conn.cut();
            return Some(StatusCode::INTERNAL_SERVER_ERROR.into_response());
        }
        self.faults.status.map(|status| self.protocol.injected(status))
    }

    /// The answer after executing: held back, never sent, or lying.
    pub async fn leave(&self, answer: Response) -> Response {
        let answer = match self.faults.answer {
            Some(tamper) if answer.status() == StatusCode::OK => tampered(answer, tamper).await,
            _ => answer,
        };
        if let Some(timeout) = self.faults.timeout {
            tokio::time::sleep(timeout).await;
        }
        if self.faults.reset == Some(ResetWhen::After) {
            self.conn.cut();
        }
        answer
    }

    /// The delay a late payer takes, if any.
    pub fn approve_after(&self) -> Option<Duration> {
        self.faults.approve_after
    }
}

/// `answer` with the lie `tamper` in its JSON body.
async fn tampered(answer: Response, tamper: Tamper) -> Response {
    let (parts, body) = answer.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, 1 << 20).await else {
        return (
            StatusCode::INTERNAL_SERVER_ERROR,
            "the emulator could not read its own answer",
        )
            .into_response();
    };
    let body = match (tamper, serde_json::from_slice::<serde_json::Value>(&bytes)) {
        (Tamper::Malformed, _) | (_, Err(_)) => bytes[..bytes.len() / 2].to_vec(),
        (tamper, Ok(mut value)) => {
            lie(&mut value, tamper);
            value.to_string().into_bytes()
        }
    };
    let mut parts = parts;
    parts.headers.remove(axum::http::header::CONTENT_LENGTH);
    Response::from_parts(parts, axum::body::Body::from(body))
}

/// Rewrites every status, amount or currency field of `value`, however deep.
fn lie(value: &mut serde_json::Value, tamper: Tamper) {
    match value {
        serde_json::Value::Object(fields) => {
            for (key, field) in fields.iter_mut() {
                match (tamper, key.as_str(), &field) {
                    (
                        Tamper::UnknownStatus,
                        "status" | "checkout_status" | "payment_status",
                        serde_json::Value::String(_),
                    ) => {
                        *field = json!("ON_HOLD_BY_EMULATOR");
                    }
                    (
                        Tamper::OtherAmount,
                        "amount" | "receive_amount" | "total_amount",
                        serde_json::Value::String(amount),
                    ) => {
                        *field = json!(format!("{amount}0"));
                    }
                    (Tamper::OtherCurrency, "currency", serde_json::Value::String(_)) => *field = json!("EUR"),
                    _ => lie(field, tamper),
                }
            }
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(|item| lie(item, tamper)),
        _ => {}
    }
}
