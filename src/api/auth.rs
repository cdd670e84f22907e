//! Credentials on the wire: the Basic header of `/v1/auth`, and the bearer extractor that every
//! other route uses.

use axum::extract::FromRequestParts;
use axum::http::header::AUTHORIZATION;
use axum::http::request::Parts;
use axum::http::HeaderMap;
use base64::engine::general_purpose::STANDARD;
use base64::Engine;

use super::error::{ApiError, Dialect, ErrorKind, Rejection};
use crate::service::{Gateway, Principal};

/// The caller, established from `Authorization: Bearer <token>` (and `X-Environment` when sent).
pub struct Authenticated(pub Principal);

/// The caller of a request whose own query checks the credential again (a transaction lookup,
/// `Auth::transaction_checked`; a payment's creation, whose `PENDING` insert does): the same
/// checks, but a credential found active in the last seconds is not asked about again.
pub struct RecheckedCaller(pub Principal);

impl FromRequestParts<Gateway> for Authenticated {
    type Rejection = Rejection;

    async fn from_request_parts(parts: &mut Parts, gateway: &Gateway) -> Result<Self, Self::Rejection> {
        caller(parts, gateway, false).await.map(Authenticated)
    }
}

impl FromRequestParts<Gateway> for RecheckedCaller {
    type Rejection = Rejection;

    async fn from_request_parts(parts: &mut Parts, gateway: &Gateway) -> Result<Self, Self::Rejection> {
        caller(parts, gateway, true).await.map(RecheckedCaller)
    }
}

/// A caller the idempotency layer already established (and counted against the rate limit)
/// for this request, so the handler's extractor does not do it again.
#[derive(Debug, Clone)]
pub(super) struct Established(pub Principal);

/// The caller of a request: its bearer token checked, and the request counted against the
/// merchant environment's rate limit.
pub(super) async fn caller(parts: &Parts, gateway: &Gateway, rechecked: bool) -> Result<Principal, Rejection> {
    if let Some(Established(principal)) = parts.extensions.get::<Established>() {
        return Ok(principal.clone());
    }
    let dialect = Dialect::of(&parts.extensions);
    let token = bearer_token(&parts.headers).ok_or_else(|| {
        gateway.metrics().auth_failure("bearer");
        Rejection(
            dialect,
            ApiError::new(
                ErrorKind::Unauthorized,
                "missing bearer token: send Authorization: Bearer <token>, with a token from POST /v1/auth",
            ),
        )
    })?;
    let environment = parts
        .headers
        .get("x-environment")
        .map(|v| v.to_str().unwrap_or("(not text)"));
    let principal = if rechecked {
        gateway.auth.authenticate_rechecked(token, environment).await
    } else {
        gateway.auth.authenticate(token, environment).await
    }
    .map_err(|e| {
        if let crate::service::ServiceError::Unauthorized(_) = e {
            gateway.metrics().auth_failure("bearer");
        }
        Rejection(dialect, e.into())
    })?;
    if let Some(limit) = &gateway.limits().api {
        let key = format!("{}/{}", principal.tenant.merchant_id, principal.tenant.environment);
        if let Err(wait) = limit.take(&key, std::time::Instant::now()) {
            gateway.metrics().rate_limited("api");
            return Err(Rejection(dialect, ApiError::too_many_requests(wait)));
        }
    }
    tracing::Span::current().record("merchant", principal.tenant.merchant_id.as_str());
    Ok(principal)
}

/// The token of `Authorization: Bearer <token>`, if the request sends one.
pub(super) fn bearer_token(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    let token = token.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then_some(token)
}

/// The API key and secret of `Authorization: Basic base64(key:secret)`.
pub fn basic_credentials(headers: &HeaderMap) -> Result<(String, String), ApiError> {
    let missing = || ApiError::bad_request("missing credentials: send Authorization: Basic base64(api_key:api_secret)");
    let value = headers
        .get(AUTHORIZATION)
        .ok_or_else(missing)?
        .to_str()
        .map_err(|_| missing())?;
    let (scheme, encoded) = value.split_once(' ').ok_or_else(missing)?;
    if !scheme.eq_ignore_ascii_case("basic") {
        return Err(missing());
    }
    let decoded = STANDARD.decode(encoded.trim()).map_err(|_| {
        ApiError::bad_request("malformed Basic credentials: the value must be base64(api_key:api_secret)")
    })?;
    let text =
        String::from_utf8(decoded).map_err(|_| ApiError::bad_request("malformed Basic credentials: not UTF-8"))?;
    // No key or secret we issue holds a control character; a NUL would reach the key's query,
    // which PostgreSQL refuses as a fault of its own.
    if text.chars().any(char::is_control) {
        return Err(ApiError::bad_request(
            "malformed Basic credentials: the key and secret must not contain control characters",
        ));
    }
    match text.split_once(':') {
        Some((key, secret)) if !key.is_empty() && !secret.is_empty() => Ok((key.to_owned(), secret.to_owned())),
        _ => Err(ApiError::bad_request(
            "malformed Basic credentials: expected api_key:api_secret",
        )),
    }
}
