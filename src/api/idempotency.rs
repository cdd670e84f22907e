//! `Idempotency-Key` on the merchant's POSTs (both generations; not `/v1/auth`, whose answer
//! is a fresh token): a route layer that claims the key for the caller's merchant and
//! environment before the handler runs, then keeps the handler's answer for the retries or
//! lets the key go. Requests without the header pass through untouched.
//!
//! The same key with the same method, path and body replays the first answer (its status and
//! body, with `Idempotent-Replayed: true`); with another request it is 422
//! (`IdempotencyKeyReusedError` / `IDEMPOTENCY_KEY_REUSED`); while the first request runs, 409
//! (`IdempotencyKeyInUseError` / `IDEMPOTENCY_KEY_IN_USE`); a key that is empty, longer than
//! 255 characters or not printable ASCII, 400. The rules (what is "the same request", which
//! answers are kept, leases, expiry) are `service::idempotency`'s; docs/idempotency.md says why.

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::auth::{self, Established};
use super::either;
use super::error::{ApiError, Dialect, ErrorKind};
use super::extract::body_bytes;
use crate::domain::{IdempotencyKey, KeptAnswer, Timestamp};
use crate::service::{Admission, Gateway, HeldKey, RequestShape};

/// The request header (Stripe's name).
pub const KEY_HEADER: &str = "idempotency-key";

/// The header of a replayed answer (Stripe's name).
pub const REPLAYED_HEADER: &str = "idempotent-replayed";

pub async fn layer(State(gateway): State<Gateway>, req: Request, next: Next) -> Response {
    if !covered(&req) {
        return next.run(req).await;
    }
    let (mut parts, body) = req.into_parts();
    // The caller first, as the handler would establish it (a 401 or 429 comes before anything
    // about the key); the handler's extractor then takes it from here.
    let principal = match auth::caller(&parts, &gateway, false).await {
        Ok(principal) => principal,
        Err(rejection) => return rejection.into_response(),
    };
    parts.extensions.insert(Established(principal.clone()));
    // The body, read once within the size limit the handler would apply, then handed on.
    let mut reader = Request::new(body);
    *reader.headers_mut() = parts.headers.clone();
    *reader.extensions_mut() = parts.extensions.clone();
    let path = parts.uri.path().to_owned();
    let bytes = match body_bytes(reader, &()).await {
        Ok(bytes) => bytes,
        Err(e) => return e.render(Dialect::of(&parts.extensions)),
    };
    let dialect = either::dialect_of(Dialect::of(&parts.extensions), &path, &bytes);
    let raw = parts.headers.get(KEY_HEADER).map(|v| v.to_str().unwrap_or("\u{fffd}"));
    let key = match IdempotencyKey::parse(raw.unwrap_or_default()) {
        Ok(key) => key,
        Err(e) => return ApiError::bad_request(format!("the Idempotency-Key header {e}")).render(dialect),
    };
    let target = parts.uri.path_and_query().map_or(path.as_str(), |p| p.as_str());
    let shape = RequestShape {
        method: parts.method.as_str(),
        target,
        body: &bytes,
    };
    let held = match gateway.idempotency.admit(&principal.tenant, &key, shape, Timestamp::now()).await {
        Ok(Admission::Run(held)) => held,
        Ok(Admission::Replay(answer)) => return replay(answer),
        Ok(Admission::InFlight) => {
            return ApiError::new(
                ErrorKind::IdempotencyKeyInUse,
                "a request with this Idempotency-Key is still being processed: retry once it is answered",
            )
            .render(dialect)
        }
        Ok(Admission::Mismatch) => {
            return ApiError::new(
                ErrorKind::IdempotencyKeyReused,
                "this Idempotency-Key was used for another request (method, path or body): send a new key with a new request",
            )
            .render(dialect)
        }
        Err(e) => return ApiError::from(e).render(dialect),
    };
    let response = next.run(Request::from_parts(parts, Body::from(bytes))).await;
    settle(&gateway, &held, dialect, response).await
}

/// Whether the layer looks at `req`: a POST of the merchant API carrying the header.
fn covered(req: &Request) -> bool {
    let path = req.uri().path();
    req.method() == Method::POST
        && req.headers().contains_key(KEY_HEADER)
        && (path.starts_with("/v1/") || path.starts_with("/v2/"))
        && path != "/v1/auth"
}

/// Keeps the answer for the retries, or lets the key go, then sends it.
async fn settle(gateway: &Gateway, held: &HeldKey, dialect: Dialect, response: Response) -> Response {
    if !kept(&response) {
        if let Err(e) = gateway.idempotency.release_key(held).await {
            // The key stays in flight until its lease lapses; a retry then runs again.
            tracing::warn!(error = %e, "cannot release an idempotency key");
        }
        return response;
    }
    let (parts, body) = response.into_parts();
    let bytes = match axum::body::to_bytes(body, usize::MAX).await {
        Ok(bytes) => bytes,
        Err(e) => {
            let _ = gateway.idempotency.release_key(held).await;
            return ApiError::internal(&e).render(dialect);
        }
    };
    let answer = KeptAnswer {
        status: parts.status.as_u16(),
        body: String::from_utf8_lossy(&bytes).into_owned(),
    };
    match gateway.idempotency.keep_answer(held, &answer).await {
        Ok(true) => {}
        Ok(false) => tracing::warn!("an idempotency key was taken over before its answer was kept"),
        // The key stays in flight until its lease lapses; a retry then runs again and meets
        // the transaction id's uniqueness.
        Err(e) => tracing::warn!(error = %e, "cannot keep the answer of an idempotency key"),
    }
    Response::from_parts(parts, Body::from(bytes))
}

/// Whether an answer is kept for the retries: those of requests that took effect. A request
/// refused before it wrote anything lets its key go, as it leaves its transaction id unspent
/// (DECISIONS §3), and so does an answer that says nothing of the request (a revoked token, a
/// rate limit, an unavailable database, an internal fault): a retry runs again.
fn kept(response: &Response) -> bool {
    match response.extensions().get::<ErrorKind>() {
        None => response.status().is_success(),
        Some(kind) => match kind {
            // The transaction exists, FAILED, its id spent: the answer is final.
            ErrorKind::OperatorUnavailable | ErrorKind::PaymentFailed => true,
            // Refused before anything was written: a corrected request may take the key.
            ErrorKind::BadRequest
            | ErrorKind::UnsupportedOperator
            | ErrorKind::TransactionIdTooLong
            | ErrorKind::AmountOutOfRange
            | ErrorKind::NotFound
            | ErrorKind::TransactionNotFound
            | ErrorKind::MethodNotAllowed
            | ErrorKind::Duplicate
            | ErrorKind::InsufficientBalance
            | ErrorKind::NotOffered
            | ErrorKind::NotRefundable
            | ErrorKind::LinkClosed
            | ErrorKind::RecipientInactive
            | ErrorKind::RecipientCheckOff
            | ErrorKind::LinkInvalid
            | ErrorKind::BatchRefused
            | ErrorKind::PayloadTooLarge
            | ErrorKind::UnsupportedMediaType => false,
            // Nothing said about the request: a retry runs it.
            ErrorKind::Unauthorized
            | ErrorKind::TooManyRequests
            | ErrorKind::Internal
            | ErrorKind::Unavailable
            | ErrorKind::IdempotencyKeyInUse
            | ErrorKind::IdempotencyKeyReused => false,
        },
    }
}

/// The first answer again, marked as a replay.
fn replay(answer: KeptAnswer) -> Response {
    let status = StatusCode::from_u16(answer.status).unwrap_or(StatusCode::OK);
    let mut response = (status, answer.body).into_response();
    let headers = response.headers_mut();
    headers.insert(
        axum::http::header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    headers.insert(REPLAYED_HEADER, HeaderValue::from_static("true"));
    // A replay may hold what was meant to be shown once (a rotated webhook secret).
    headers.insert(axum::http::header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}
