//! Extractors whose refusals are envelopes of the request's generation, never axum's plain
//! text: JSON bodies (content type, size, syntax, missing and mistyped fields named), query
//! strings and path parameters.

use axum::body::Bytes;
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::header::CONTENT_TYPE;
use axum::http::request::Parts;
use axum::http::StatusCode;
use serde::de::DeserializeOwned;

use super::error::{ApiError, Dialect, ErrorKind, Rejection};

/// A JSON request body of type `T`.
pub struct JsonBody<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for JsonBody<T> {
    type Rejection = Rejection;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        let dialect = Dialect::of(req.extensions());
        let bytes = json_bytes(req, state).await.map_err(|e| Rejection(dialect, e))?;
        parse_json(&bytes).map(JsonBody).map_err(|e| Rejection(dialect, e))
    }
}

/// The raw bytes of a JSON body: checks the content type (absent means JSON) and the size.
pub async fn json_bytes<S: Send + Sync>(req: Request, state: &S) -> Result<Bytes, ApiError> {
    if let Some(value) = req.headers().get(CONTENT_TYPE) {
        let text = value.to_str().unwrap_or("");
        let essence = text.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
        if essence != "application/json" && !essence.ends_with("+json") {
            return Err(ApiError::new(
                ErrorKind::UnsupportedMediaType,
                format!("Content-Type must be application/json, not {text:?}"),
            ));
        }
    }
    body_bytes(req, state).await
}

/// The raw bytes of a body, within the size limit (`MOMO_MAX_BODY_BYTES`), whatever its type.
pub async fn body_bytes<S: Send + Sync>(req: Request, state: &S) -> Result<Bytes, ApiError> {
    Bytes::from_request(req, state).await.map_err(|rejection| {
        if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
            ApiError::new(ErrorKind::PayloadTooLarge, "request body is too large")
        } else {
            ApiError::bad_request(format!("could not read the request body: {}", rejection.body_text()))
        }
    })
}

/// Parses JSON into `T`, naming the offending field in the error.
pub fn parse_json<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, ApiError> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(ApiError::bad_request("request body is empty: expected a JSON object"));
    }
    let de = &mut serde_json::Deserializer::from_slice(bytes);
    serde_path_to_error::deserialize(de).map_err(|err| {
        let path = err.path().to_string();
        let inner = err.into_inner();
        let message = inner.to_string();
        let message = match message.rfind(" at line ") {
            Some(at) => message[..at].to_owned(),
            None => message,
        };
        let reason = if inner.is_syntax() || inner.is_eof() {
            format!("request body is not valid JSON: {message}")
        } else if path == "." {
            format!("invalid request body: {message}")
        } else {
            format!("invalid request body at `{path}`: {message}")
        };
        ApiError::bad_request(reason)
    })
}

/// Query parameters of type `T`.
pub struct QueryParams<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequestParts<S> for QueryParams<T> {
    type Rejection = Rejection;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        let dialect = Dialect::of(&parts.extensions);
        axum::extract::Query::<T>::try_from_uri(&parts.uri)
            .map(|q| QueryParams(q.0))
            .map_err(|e| {
                Rejection(
                    dialect,
                    ApiError::bad_request(format!("invalid query string: {}", e.body_text())),
                )
            })
    }
}

/// The single path parameter of a route that looks a record up: one that cannot even be decoded
/// names no record, so it is an ordinary 404.
pub struct PathId(pub String);

impl<S: Send + Sync> FromRequestParts<S> for PathId {
    type Rejection = Rejection;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        let dialect = Dialect::of(&parts.extensions);
        axum::extract::Path::<String>::from_request_parts(parts, state)
            .await
            .map(|p| PathId(p.0))
            .map_err(|_| Rejection(dialect, ApiError::new(ErrorKind::NotFound, "no record has this id")))
    }
}
