//! Paths that the live service answers in either generation, routed here so that neither
//! dialect calls the other: `/v1/transfers/mobile-money` takes both bodies (the dialect is
//! picked from the body's keys), and the v1 status paths answer success in the v2 envelope.

use axum::extract::{Request, State};
use axum::response::Response;
use serde_json::Value;

use super::auth::RecheckedCaller;
use super::error::{ApiError, Dialect, Rejection};
use super::extract::{json_bytes, parse_json};
use super::{transfer, v1, v2};
use crate::service::Payments;

/// Whether a body sent to `/v1/transfers/mobile-money` is the v2 transfer body.
fn is_v2_body(body: &Value) -> bool {
    ["transaction_id", "code_country", "customer_id"]
        .iter()
        .any(|k| body.get(k).is_some())
}

/// The generation an answer to `path` with `body` takes: the path's (`of_path`), but on
/// `/v1/transfers/mobile-money` the body's.
pub fn dialect_of(of_path: Dialect, path: &str, body: &[u8]) -> Dialect {
    if path == "/v1/transfers/mobile-money" {
        if let Ok(probe) = parse_json::<Value>(body) {
            if is_v2_body(&probe) {
                return Dialect::V2;
            }
        }
    }
    of_path
}

/// `POST /v1/transfers/mobile-money`: the v2 body gets the v2 answer, any other the v1 one.
pub async fn transfer(
    State(payments): State<Payments>,
    caller: RecheckedCaller,
    request: Request,
) -> Result<Response, Rejection> {
    let v1 = |e: ApiError| Rejection(Dialect::V1, e);
    let bytes = json_bytes(request, &()).await.map_err(v1)?;
    let probe: Value = parse_json(&bytes).map_err(v1)?;
    if is_v2_body(&probe) {
        transfer::from_bytes::<v2::V2>(&payments, &caller, &bytes).await
    } else {
        transfer::from_bytes::<v1::V1>(&payments, &caller, &bytes).await
    }
}
