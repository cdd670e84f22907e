//! List parameters shared by every list: `limit` and an opaque `cursor`, answered with
//! `X-Next-Cursor` when more records follow.

use axum::http::HeaderValue;
use axum::response::Response;
use serde::Deserialize;

use super::error::ApiError;
use crate::domain::{Cursor, PageRequest};

/// The most records a list answers at once, and its default size.
pub const LIST_CAP: u32 = 1000;

#[derive(Debug, Default, Deserialize)]
pub struct PageParams {
    pub limit: Option<String>,
    pub cursor: Option<String>,
}

impl PageParams {
    /// The page to read, asking for one record more than the caller wants so we know whether
    /// another page follows.
    pub fn page_request(&self) -> Result<PageRequest, ApiError> {
        let limit = match self.limit.as_deref() {
            None | Some("") => LIST_CAP,
            Some(raw) => raw
                .parse::<u32>()
                .ok()
                .filter(|n| (1..=LIST_CAP).contains(n))
                .ok_or_else(|| {
                    ApiError::bad_request(format!(
                        "limit must be a whole number from 1 to {LIST_CAP}, got {raw:?}"
                    ))
                })?,
        };
        let after = match self.cursor.as_deref() {
            None | Some("") => None,
            Some(raw) => Some(Cursor::decode(raw).ok_or_else(|| {
                ApiError::bad_request(
                    "cursor is not one this server issued: use the X-Next-Cursor header of the previous page",
                )
            })?),
        };
        Ok(PageRequest {
            limit: limit + 1,
            after,
        })
    }
}

/// Adds `X-Next-Cursor` to a list answer.
pub fn with_next_cursor(mut response: Response, next: Option<Cursor>) -> Response {
    if let Some(value) = next.and_then(|c| HeaderValue::from_str(&c.encode()).ok()) {
        response.headers_mut().insert("x-next-cursor", value);
    }
    response
}
