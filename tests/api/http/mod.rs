//! The HTTP surface: envelopes, limits, request ids, hostile bytes, and the OpenAPI document with
//! the error codes it names.

pub mod control_characters;
pub mod envelopes;
pub mod error_codes;
pub mod openapi;
pub mod openapi_document;
pub mod request_ids;
pub mod security_headers;
pub mod server_limits;
