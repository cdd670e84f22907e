//! `POST /v1/auth`: a token for Basic credentials.

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Serialize;

use super::Error;
use crate::api::auth::basic_credentials;
use crate::api::error::ApiError;
use crate::domain::{Environment, Timestamp};
use crate::service::Gateway;

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

pub async fn create_token(State(gateway): State<Gateway>, headers: HeaderMap) -> Result<Response, Error> {
    let (api_key, api_secret) = basic_credentials(&headers)?;
    let environment = match headers.get("x-environment") {
        None => Environment::Production,
        Some(value) => value
            .to_str()
            .ok()
            .and_then(|v| v.parse().ok())
            .ok_or_else(|| ApiError::bad_request("X-Environment must be Production or Sandbox"))?,
    };
    let issued = gateway
        .issue_token(&api_key, &api_secret, environment, Timestamp::now())
        .await?;
    let answer = TokenAnswer {
        status_code: 200,
        message: "Successful",
        data: Token {
            token: &issued.token,
            exp: issued.exp,
        },
        token: &issued.token,
        exp: issued.exp,
    };
    Ok((StatusCode::OK, Json(answer)).into_response())
}
