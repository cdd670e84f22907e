//! Wave's authentication: `Authorization: Bearer <API key>` on every call, refused with 401 and
//! the documented codes (`missing-auth-header`, `invalid-auth`, `api-key-not-provided`,
//! `no-matching-api-key`).

use crate::guard::Refusal;
use axum::http::{HeaderMap, StatusCode};

use super::wire::error;
use crate::fields::header;
use crate::Ctx;

/// Checks the API key.
pub fn authorize(ctx: &Ctx, headers: &HeaderMap) -> Result<(), Refusal> {
    let denied = |code, message: &str| Err(error(StatusCode::UNAUTHORIZED, code, message).into());
    let Some(value) = header(headers, "authorization") else {
        return denied(
            "missing-auth-header",
            "Your request should include an HTTP auth header.",
        );
    };
    let Some(key) = value.strip_prefix("Bearer").map(str::trim) else {
        return denied("invalid-auth", "Your HTTP auth header can't be processed.");
    };
    if key.is_empty() {
        return denied("api-key-not-provided", "Your request should include an API key.");
    }
    if key != ctx.settings.wave.api_key {
        return denied(
            "no-matching-api-key",
            "The key you provided doesn't exist in our system.",
        );
    }
    Ok(())
}
