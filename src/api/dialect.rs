//! Rendering an error where the dialect is known only at run time (extractors, fallbacks, the
//! request guard): the request's generation picks its envelope.
//! Handlers of one generation use their own `Error` type instead.

use axum::response::Response;

use super::error::{ApiError, Dialect};
use super::{v1, v2};

impl ApiError {
    /// This error in the envelope of `dialect`.
    pub fn render(self, dialect: Dialect) -> Response {
        match dialect {
            Dialect::V1 => v1::envelope::error(self),
            Dialect::V2 => v2::envelope::error(self),
        }
    }
}
