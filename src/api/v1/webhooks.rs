//! The merchant's webhook events (beyond the reference, v1 envelope, bearer token):
//! `GET /v1/webhooks/events`, `GET /v1/webhooks/events/{id}` (with its attempts),
//! `POST /v1/webhooks/events/{id}/redeliver`, `POST /v1/webhooks/redeliver?from=&to=`, and
//! `POST /v1/webhooks/secret/rotate` (a new signing secret, shown once).

use axum::extract::State;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::Response;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use super::wire::StatusV1;
use super::{envelope, Error};
use crate::api::auth::Authenticated;
use crate::api::error::ApiError;
use crate::api::extract::{PathId, QueryParams};
use crate::api::pagination::{with_next_cursor, PageParams};
use crate::domain::page::split_page;
use crate::domain::{Attempt, EventFilter, EventSummary, FailedEvents};
use crate::domain::{EventState, Timestamp};
use crate::service::{Merchants, Webhooks};

/// An event as the API shows it.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EventOut<'a> {
    pub id: &'a str,
    pub transaction_id: &'a str,
    #[serde(rename = "ref")]
    pub reference: &'a str,
    pub transaction_status: StatusV1,
    pub status: &'static str,
    pub attempts: u32,
    pub next_attempt_at: Option<String>,
    pub last_error: Option<&'a str>,
    pub created_at: String,
    pub delivered_at: Option<String>,
    /// The body delivered, exactly.
    pub payload: Option<&'a RawValue>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delivery_attempts: Option<Vec<AttemptOut<'a>>>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AttemptOut<'a> {
    pub attempt: u32,
    pub at: String,
    pub url: &'a str,
    pub status_code: Option<u16>,
    pub latency_ms: u64,
    pub error: Option<&'a str>,
    pub response: Option<&'a str>,
}

impl<'a> EventOut<'a> {
    pub fn new(e: &'a EventSummary, attempts: Option<&'a [Attempt]>) -> EventOut<'a> {
        EventOut {
            id: &e.id,
            transaction_id: &e.transaction_id,
            reference: &e.transaction_ref,
            transaction_status: e.transaction_status.into(),
            status: e.state.as_str(),
            attempts: e.attempts,
            next_attempt_at: e.next_attempt_at.map(|t| t.iso8601_millis()),
            last_error: e.last_error.as_deref(),
            created_at: e.created_at.iso8601_millis(),
            delivered_at: e.delivered_at.map(|t| t.iso8601_millis()),
            payload: serde_json::from_str(&e.payload).ok(),
            delivery_attempts: attempts.map(|list| {
                list.iter()
                    .map(|a| AttemptOut {
                        attempt: a.attempt,
                        at: a.at.iso8601_millis(),
                        url: &a.url,
                        status_code: a.status_code,
                        latency_ms: a.latency_ms,
                        error: a.error.as_deref(),
                        response: a.response.as_deref(),
                    })
                    .collect()
            }),
        }
    }
}

#[derive(Debug, Default, Deserialize)]
pub struct EventParams {
    #[serde(flatten)]
    pub page: PageParams,
    #[serde(rename = "transactionId")]
    pub transaction_id: Option<String>,
    pub status: Option<String>,
}

pub async fn list(
    State(webhooks): State<Webhooks>,
    Authenticated(caller): Authenticated,
    QueryParams(params): QueryParams<EventParams>,
) -> Result<Response, Error> {
    let page = params.page.page_request()?;
    let state = params
        .status
        .as_deref()
        .filter(|s| !s.is_empty())
        .map(|s| {
            EventState::parse(s)
                .ok_or_else(|| ApiError::bad_request(format!("status must be delivered, pending or failed, got {s:?}")))
        })
        .transpose()?;
    let filter = EventFilter {
        transaction_id: params.transaction_id.filter(|t| !t.is_empty()),
        state,
    };
    let events = webhooks.webhook_events(Some(&caller.tenant), &filter, &page).await?;
    let (events, next) = split_page(events, &page);
    let body: Vec<EventOut> = events.iter().map(|e| EventOut::new(e, None)).collect();
    Ok(with_next_cursor(envelope::success(StatusCode::OK, body), next))
}

pub async fn show(
    State(webhooks): State<Webhooks>,
    Authenticated(caller): Authenticated,
    PathId(id): PathId,
) -> Result<Response, Error> {
    let (event, attempts) = webhooks.webhook_event(Some(&caller.tenant), &id).await?;
    Ok(envelope::success(
        StatusCode::OK,
        EventOut::new(&event, Some(&attempts)),
    ))
}

pub async fn redeliver(
    State(webhooks): State<Webhooks>,
    Authenticated(caller): Authenticated,
    PathId(id): PathId,
) -> Result<Response, Error> {
    webhooks
        .redeliver_event(Some(&caller.tenant), &id, Timestamp::now())
        .await?;
    let (event, attempts) = webhooks.webhook_event(Some(&caller.tenant), &id).await?;
    Ok(envelope::success(
        StatusCode::ACCEPTED,
        EventOut::new(&event, Some(&attempts)),
    ))
}

#[derive(Debug, Default, Deserialize)]
pub struct RangeParams {
    pub from: Option<String>,
    pub to: Option<String>,
}

#[derive(Serialize)]
struct Redelivered {
    redelivered: u64,
}

pub async fn redeliver_range(
    State(webhooks): State<Webhooks>,
    Authenticated(caller): Authenticated,
    QueryParams(params): QueryParams<RangeParams>,
) -> Result<Response, Error> {
    let time = |raw: &Option<String>, name: &str| {
        let raw = raw.as_deref().filter(|r| !r.is_empty()).ok_or_else(|| {
            ApiError::bad_request(format!(
                "{name} is required: an ISO 8601 time like 2026-11-20T10:15:30Z"
            ))
        })?;
        Timestamp::parse_iso8601(raw)
            .ok_or_else(|| ApiError::bad_request(format!("{name} must be an ISO 8601 time, got {raw:?}")))
    };
    let (from, to) = (time(&params.from, "from")?, time(&params.to, "to")?);
    let events = FailedEvents {
        tenant: Some(&caller.tenant),
        created: from..to,
    };
    let count = webhooks.redeliver_failed_events(&events, Timestamp::now()).await?;
    Ok(envelope::success(
        StatusCode::ACCEPTED,
        Redelivered { redelivered: count },
    ))
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct RotatedSecret {
    environment: &'static str,
    webhook_secret: String,
    previous_secret_valid_until: String,
}

/// A new webhook signing secret for the caller's environment, in the answer only (never
/// stored by caches); the old one keeps signing beside it until `previousSecretValidUntil`.
pub async fn rotate_secret(
    State(merchants): State<Merchants>,
    Authenticated(caller): Authenticated,
) -> Result<Response, Error> {
    let rotated = merchants
        .rotate_webhook_secret(&caller.tenant, Timestamp::now())
        .await?;
    let mut response = envelope::success(
        StatusCode::OK,
        RotatedSecret {
            environment: rotated.environment.as_str(),
            previous_secret_valid_until: rotated.previous_valid_until.iso8601_millis(),
            webhook_secret: rotated.webhook_secret,
        },
    );
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    Ok(response)
}
