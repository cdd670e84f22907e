//! MoMo's two credentials: the product's `Ocp-Apim-Subscription-Key` on every call (checked by
//! the API gateway, which answers its own 401 body), and an access token from
//! `POST /{product}/token/` with Basic `apiUser:apiKey`, sent as `Authorization: Bearer` and
//! valid for that product only, until `expires_in` runs out.

use axum::body::Bytes;
use axum::extract::{ConnectInfo, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use base64::Engine;

use super::wire::{AccessToken, GatewayError, TokenError};
use crate::fields::header;
use crate::guard::{Guard, Protocol, Refusal};
use crate::listener::Connection;
use crate::settings::MomoProduct;
use crate::state::Flow;
use crate::{mint, Ctx};

/// A MoMo product: its own credentials and tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Product {
    Collection,
    Disbursement,
}

impl Product {
    pub fn of(flow: Flow) -> Product {
        match flow {
            Flow::Transfer | Flow::Refund => Product::Disbursement,
            _ => Product::Collection,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Product::Collection => "collection",
            Product::Disbursement => "disbursement",
        }
    }

    fn credentials(self, ctx: &Ctx) -> &MomoProduct {
        match self {
            Product::Collection => &ctx.settings.momo.collection,
            Product::Disbursement => &ctx.settings.momo.disbursement,
        }
    }
}

fn gateway_denial(message: &'static str) -> Response {
    (
        StatusCode::UNAUTHORIZED,
        Json(GatewayError {
            status_code: 401,
            message,
        }),
    )
        .into_response()
}

/// The API gateway's check of the subscription key.
fn subscription(ctx: &Ctx, product: Product, headers: &HeaderMap) -> Result<(), Refusal> {
    match header(headers, "ocp-apim-subscription-key") {
        None => Err(gateway_denial(
            "Access denied due to missing subscription key. Make sure to include subscription key when making \
             requests to an API.",
        )
        .into()),
        Some(key) if key == product.credentials(ctx).subscription_key => Ok(()),
        Some(_) => Err(gateway_denial(
            "Access denied due to invalid subscription key. Make sure to provide a valid key for an active \
             subscription.",
        )
        .into()),
    }
}

/// Checks the subscription key and the bearer token of an API call of `product`.
pub fn authorize(ctx: &Ctx, product: Product, headers: &HeaderMap) -> Result<(), Refusal> {
    subscription(ctx, product, headers)?;
    let token = header(headers, "authorization").and_then(|value| value.strip_prefix("Bearer "));
    match token {
        Some(token) if ctx.lock().token_valid(token.trim(), product.name(), ctx.clock.now()) => Ok(()),
        _ => Err(gateway_denial("Access denied due to invalid or expired access token.").into()),
    }
}

/// The `apiUser:apiKey` of a Basic authorization header.
fn basic(headers: &HeaderMap) -> Option<(String, String)> {
    let encoded = header(headers, "authorization")?.strip_prefix("Basic ")?;
    let decoded = base64::engine::general_purpose::STANDARD.decode(encoded.trim()).ok()?;
    let (user, key) = String::from_utf8(decoded)
        .ok()?
        .split_once(':')
        .map(|(u, k)| (u.to_string(), k.to_string()))?;
    Some((user, key))
}

fn issue(ctx: &Ctx, product: Product, headers: &HeaderMap, body: &Bytes) -> Response {
    if let Err(denial) = subscription(ctx, product, headers) {
        return *denial;
    }
    let credentials = product.credentials(ctx);
    if basic(headers) != Some((credentials.api_user.clone(), credentials.api_key.clone())) {
        return (StatusCode::UNAUTHORIZED, Json(TokenError { error: "login_failed" })).into_response();
    }
    // "Inputting a Body in an API that is not supported e.g. /Token API" is a documented 400.
    if !body.iter().all(u8::is_ascii_whitespace) {
        return super::error(
            StatusCode::BAD_REQUEST,
            "BAD_REQUEST",
            "The token operation takes no body.",
        );
    }
    let ttl = ctx.settings.momo.token_ttl;
    let access_token = mint::access_token();
    let now = ctx.clock.now();
    ctx.lock()
        .issue_token(access_token.clone(), product.name(), now, now + ttl);
    Json(AccessToken {
        access_token,
        token_type: "access_token",
        expires_in: ttl.as_secs(),
    })
    .into_response()
}

async fn token(ctx: Ctx, product: Product, conn: Connection, headers: HeaderMap, body: Bytes) -> Response {
    let guard = match Guard::enter(&ctx, "momo.token", &headers, conn, Protocol::Momo).await {
        Ok(guard) => guard,
        Err(refusal) => return refusal,
    };
    if let Some(refusal) = guard.refusal() {
        return refusal;
    }
    let answer = issue(&ctx, product, &headers, &body);
    guard.leave(answer).await
}

/// `POST /collection/token/`.
pub async fn collection_token(
    State(ctx): State<Ctx>,
    ConnectInfo(conn): ConnectInfo<Connection>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    token(ctx, Product::Collection, conn, headers, body).await
}

/// `POST /disbursement/token/`.
pub async fn disbursement_token(
    State(ctx): State<Ctx>,
    ConnectInfo(conn): ConnectInfo<Connection>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    token(ctx, Product::Disbursement, conn, headers, body).await
}
