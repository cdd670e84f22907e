//! What the API and the web pages share of HTTP, and know no dialect or page of: request ids
//! and trace context, the client's address behind trusted proxies, the check for control
//! characters in a path or query, the request timeout, the headers that guard browsers, and the
//! layers around both.

pub mod client_address;
pub mod guard;
pub mod printable;
pub mod request_id;
pub mod security_headers;
pub mod trace_context;

use std::any::Any;

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Router;
use tower::util::MapRequestLayer;
use tower::ServiceBuilder;
use tower_http::propagate_header::PropagateHeaderLayer;
use tower_http::request_id::{PropagateRequestIdLayer, SetRequestIdLayer};
use tower_http::trace::TraceLayer;

/// `app`'s router inside the layers every request goes through, outermost first: the caller's
/// ids when valid, else ours, echoed; the request's span and log line. The API's and the
/// pages' own guards run inside that span.
pub fn request_layers(router: Router) -> Router {
    router.layer(
        ServiceBuilder::new()
            .layer(MapRequestLayer::new(request_id::ignore_invalid))
            .layer(SetRequestIdLayer::x_request_id(request_id::TraceIdOrOurs))
            .layer(PropagateRequestIdLayer::x_request_id())
            .layer(PropagateHeaderLayer::new(request_id::TRACEPARENT))
            .layer(
                TraceLayer::new_for_http()
                    .make_span_with(request_id::RequestSpan)
                    .on_request(())
                    .on_response(request_id::RequestServed)
                    .on_failure(()),
            ),
    )
}

/// A panic is a bug: log it and answer a bare 500, which the guard of the API or of the pages
/// turns into its own error answer with the request id.
pub fn panic_response(panic: Box<dyn Any + Send + 'static>) -> Response {
    let message = panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".to_owned());
    tracing::error!(request_id = %request_id::current(), panic = %message, "handler panicked");
    StatusCode::INTERNAL_SERVER_ERROR.into_response()
}
