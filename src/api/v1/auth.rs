//! `POST /v1/auth`: a token for Basic credentials.

use std::net::{IpAddr, SocketAddr};
use std::time::Instant;

use axum::extract::{ConnectInfo, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Extension;
use axum::Json;
use serde::Serialize;

use super::Error;
use crate::api::auth::basic_credentials;
use crate::api::error::ApiError;
use crate::domain::{Environment, Timestamp};
use crate::http::client_address::client_address;
use crate::service::{Gateway, ServiceError};

#[derive(Serialize)]
struct Token<'a> {
    token: &'a str,
    exp: i64,
}

/// The v1 success envelope, plus `token` and `exp` at the top level for older clients.
#[derive(Serialize)]
struct TokenAnswer<'a> {
    #[serde(rename = "statusCode")]
    status_code: u16,
    message: &'static str,
    data: Token<'a>,
    token: &'a str,
    exp: i64,
}

/// Slows guessing (`SignInLimits`): attempts per client address (behind a trusted proxy, the
/// address it forwarded), wrong secrets per API key and address.
fn check_limits(gateway: &Gateway, address: Option<IpAddr>, api_key: &str) -> Result<(), ApiError> {
    let Some(limits) = &gateway.limits().sign_in else {
        return Ok(());
    };
    limits
        .admit("api", address, api_key, Instant::now())
        .map_err(|refused| {
            gateway.metrics().rate_limited(refused.limit);
            ApiError::too_many_requests(refused.wait)
        })
}

/// Counts a wrong key or secret against the key from `address`.
fn count_failure(gateway: &Gateway, address: Option<IpAddr>, api_key: &str) {
    if let Some(limits) = &gateway.limits().sign_in {
        limits.failed("api", address, api_key, Instant::now());
    }
}

pub async fn create_token(
    State(gateway): State<Gateway>,
    address: Option<Extension<ConnectInfo<SocketAddr>>>,
    headers: HeaderMap,
) -> Result<Response, Error> {
    let (api_key, api_secret) = basic_credentials(&headers)?;
    let trusted = &gateway.config().http.trusted_proxies;
    let client = address.map(|peer| client_address(peer.0 .0.ip(), &headers, trusted));
    check_limits(&gateway, client, &api_key)?;
    let environment = match headers.get("x-environment") {
        None => Environment::Production,
        Some(value) => value
            .to_str()
            .ok()
            .and_then(|v| v.parse().ok())
            .ok_or_else(|| ApiError::bad_request("X-Environment must be Production or Sandbox"))?,
    };
    let issued = match gateway
        .auth
        .issue_token(&api_key, &api_secret, environment, Timestamp::now())
        .await
    {
        Ok(issued) => issued,
        Err(e @ ServiceError::Unauthorized(_)) => {
            count_failure(&gateway, client, &api_key);
            return Err(e.into());
        }
        Err(e) => return Err(e.into()),
    };
    let answer = TokenAnswer {
        status_code: 200,
        message: "Successful",
        data: Token {
            token: &issued.token,
            exp: issued.expires_at.millis() / 1_000,
        },
        token: &issued.token,
        exp: issued.expires_at.millis() / 1_000,
    };
    Ok((StatusCode::OK, Json(answer)).into_response())
}
