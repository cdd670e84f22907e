//! What every page request goes through inside the request-id and trace layers
//! (`http::request_layers`): a path or query with a control character answered as a page (404
//! and 400, as the API answers them), the request timeout, every error answer a page (a
//! panic's bare 500, a framework rejection), and the request metrics.

use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::middleware::Next;
use axum::response::Response;
use tracing::Instrument;

use super::dashboard::bare_error;
use crate::http::guard::{is_html, within, Cut, Observed};
use crate::http::printable::holds_control_character;
use crate::http::request_id::{self, REQUEST_ID};
use crate::service::Gateway;

pub async fn middleware(State(gateway): State<Gateway>, req: Request, next: Next) -> Response {
    let id = request_id::of(&req);
    let observed = Observed::of(&req);
    let response = if holds_control_character(req.uri().path()) {
        bare_error(StatusCode::NOT_FOUND)
    } else if req.uri().query().is_some_and(holds_control_character) {
        bare_error(StatusCode::BAD_REQUEST)
    } else {
        // In the request's span (the trace layer's), which the spawned task would otherwise lose.
        let handler = REQUEST_ID.scope(id.clone(), next.run(req)).in_current_span();
        let limit = gateway.config().http.request_timeout;
        let response = within(limit, handler, &id, |cut| match cut {
            Cut::Ended => bare_error(StatusCode::INTERNAL_SERVER_ERROR),
            Cut::TimedOut(_) => bare_error(StatusCode::SERVICE_UNAVAILABLE),
        })
        .await;
        as_page(response)
    };
    observed.record(gateway.metrics(), &response);
    response
}

/// Pages answer HTML, their errors too: a panic's bare 500, or a JSON or plain-text answer
/// some layer wrote, becomes the error page of its status.
fn as_page(response: Response) -> Response {
    if response.status().as_u16() < 400 || is_html(&response) {
        return response;
    }
    let connection = response.headers().get(axum::http::header::CONNECTION).cloned();
    let mut page = bare_error(response.status());
    if let Some(value) = connection {
        page.headers_mut().insert(axum::http::header::CONNECTION, value);
    }
    page
}
