//! MoMo's account-holder lookups: `GET /{collection|disbursement}/v1_0/accountholder/msisdn/{msisdn}/active`
//! (`{"result": true|false}`) and `GET /collection/v1_0/accountholder/msisdn/{msisdn}/basicuserinfo`
//! (the holder's names; 404 when there is no account). A number ending `09` holds no account;
//! every other holds one, named from its last digit, so a number always has the same holder.

use axum::extract::{ConnectInfo, Path, State};
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::json;

use super::auth::{authorize, Product};
use super::handlers::target_environment;
use super::not_found;
use crate::fields::is_msisdn;
use crate::guard::{Guard, Protocol, Refusal};
use crate::listener::Connection;
use crate::Ctx;

/// The ending of a number that holds no account.
const NO_ACCOUNT: &str = "09";

const HOLDERS: [(&str, &str); 10] = [
    ("Awa", "Koné"),
    ("Koffi", "Yao"),
    ("Aya", "Traoré"),
    ("Moussa", "Diarra"),
    ("Adjoua", "Kouassi"),
    ("Ibrahim", "Ouattara"),
    ("Fatou", "Bamba"),
    ("Serge", "N'Guessan"),
    ("Mariam", "Coulibaly"),
    ("Jean-Marc", "Kouadio"),
];

fn holds_account(msisdn: &str) -> bool {
    !msisdn.ends_with(NO_ACCOUNT)
}

async fn guarded(
    ctx: Ctx,
    point: &str,
    product: Product,
    conn: Connection,
    headers: HeaderMap,
    act: impl FnOnce(&Guard) -> Result<Response, Refusal>,
) -> Response {
    let guard = match Guard::enter(&ctx, point, &headers, conn, Protocol::Momo).await {
        Ok(guard) => guard,
        Err(refusal) => return refusal,
    };
    if let Some(refusal) = guard.refusal() {
        return refusal;
    }
    let answer = authorize(&ctx, product, &headers)
        .and_then(|()| target_environment(&ctx, &headers))
        .and_then(|()| act(&guard))
        .unwrap_or_else(|refusal| *refusal);
    guard.leave(answer).await
}

async fn active(ctx: Ctx, product: Product, conn: Connection, headers: HeaderMap, msisdn: String) -> Response {
    guarded(ctx, "momo.accountholder.active", product, conn, headers, |guard| {
        if !is_msisdn(&msisdn) || guard.faults.not_found {
            return Err(not_found().into());
        }
        Ok(Json(json!({ "result": holds_account(&msisdn) })).into_response())
    })
    .await
}

/// `GET /collection/v1_0/accountholder/msisdn/{msisdn}/active`.
pub async fn collection_active(
    State(ctx): State<Ctx>,
    ConnectInfo(conn): ConnectInfo<Connection>,
    Path(msisdn): Path<String>,
    headers: HeaderMap,
) -> Response {
    active(ctx, Product::Collection, conn, headers, msisdn).await
}

/// `GET /disbursement/v1_0/accountholder/msisdn/{msisdn}/active`.
pub async fn disbursement_active(
    State(ctx): State<Ctx>,
    ConnectInfo(conn): ConnectInfo<Connection>,
    Path(msisdn): Path<String>,
    headers: HeaderMap,
) -> Response {
    active(ctx, Product::Disbursement, conn, headers, msisdn).await
}

/// `GET /collection/v1_0/accountholder/msisdn/{msisdn}/basicuserinfo`.
pub async fn basic_user_info(
    State(ctx): State<Ctx>,
    ConnectInfo(conn): ConnectInfo<Connection>,
    Path(msisdn): Path<String>,
    headers: HeaderMap,
) -> Response {
    guarded(
        ctx,
        "momo.accountholder.basicuserinfo",
        Product::Collection,
        conn,
        headers,
        |guard| {
            if !is_msisdn(&msisdn) || !holds_account(&msisdn) || guard.faults.not_found {
                return Err(not_found().into());
            }
            let digit = msisdn
                .bytes()
                .last()
                .map_or(0, |b| usize::from(b.saturating_sub(b'0')) % 10);
            let (given_name, family_name) = HOLDERS[digit];
            Ok(Json(json!({
                "given_name": given_name,
                "family_name": family_name,
                "locale": "fr_CI",
                "status": "ACTIVE",
            }))
            .into_response())
        },
    )
    .await
}
