//! The HTTP surface: envelopes, limits, request ids, hostile bytes, and the OpenAPI document.

pub mod control_characters;
pub mod envelopes;
pub mod openapi;
pub mod openapi_document;
pub mod request_ids;
pub mod security_headers;
pub mod server_limits;
