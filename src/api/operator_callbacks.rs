//! `POST` or `PUT /operator-callbacks/{operator}/{environment}`: where operators call back.
//! The connector of that operator and environment authenticates the call (a token in the URL
//! we gave it, or the protocol's signature); the service then checks the payment's status
//! with the operator before settling anything. Answers use the v1 envelope.

use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use serde::Deserialize;
use serde_json::json;

use super::error::{ApiError, Dialect, ErrorKind};
use super::v1::envelope;
use crate::domain::{Environment, OperatorCode, Timestamp};
use crate::operator::{CallbackRejected, CallbackRequest};
use crate::service::{CallbackError, CallbackReceipt, Payments};

#[derive(Debug, Default, Deserialize)]
pub struct CallbackQuery {
    token: Option<String>,
}

pub async fn receive(
    State(payments): State<Payments>,
    Path((operator, environment)): Path<(String, String)>,
    query: Result<Query<CallbackQuery>, axum::extract::rejection::QueryRejection>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let not_found = || {
        ApiError::new(
            ErrorKind::NotFound,
            "no operator callbacks are received at this address",
        )
        .render(Dialect::V1)
    };
    let (Some(operator), Ok(environment)) = (OperatorCode::from_name(&operator), environment.parse::<Environment>())
    else {
        return not_found();
    };
    let query = query.map(|Query(q)| q).unwrap_or_default();
    let request = CallbackRequest {
        token: query.token.as_deref(),
        signature: headers.get("wave-signature").and_then(|v| v.to_str().ok()),
        body: &body,
        now: Timestamp::now(),
    };
    match payments.receive_operator_callback(operator, environment, request).await {
        Ok(receipt) => {
            let outcome = match receipt {
                CallbackReceipt::Checking => "checking",
                CallbackReceipt::AlreadyFinal => "already_final",
                CallbackReceipt::Ignored => "ignored",
            };
            envelope::success(StatusCode::OK, json!({ "received": true, "outcome": outcome }))
        }
        Err(CallbackError::Rejected(CallbackRejected::Unsupported)) => not_found(),
        Err(CallbackError::Rejected(CallbackRejected::Unauthenticated(why))) => {
            ApiError::new(ErrorKind::Unauthorized, why).render(Dialect::V1)
        }
        Err(CallbackError::Rejected(CallbackRejected::Malformed(why))) => {
            ApiError::bad_request(why).render(Dialect::V1)
        }
        Err(CallbackError::Service(e)) => ApiError::from(e).render(Dialect::V1),
    }
}
