//! v1 transactions: the v1 shape (also the webhook body), `GET /v1/transactions` (and
//! `/v1/get-all-transactions`) with filters and paging, and `GET /v1/balance`.

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use serde::{Deserialize, Serialize};

use super::customers::CustomerOut;
use super::wire::{KindV1, StatusV1};
use super::{envelope, Error};
use crate::api::auth::Authenticated;
use crate::api::error::ApiError;
use crate::api::extract::QueryParams;
use crate::api::pagination::{with_next_cursor, PageParams};
use crate::domain::page::split_page;
use crate::domain::transaction::{REFERENCE_ALPHABET, REFERENCE_LEN};
use crate::domain::{BatchId, Kind, LinkId, Msisdn, OperatorAliases, OperatorCode, Status, Timestamp};
use crate::domain::{Reference, TextId, TransactionFilter, TransactionRecord};
use crate::service::{Balances, Payments};

/// A transaction as v1 shows it.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TransactionOut<'a> {
    #[serde(rename = "ref")]
    pub reference: &'a str,
    pub transaction_id: &'a str,
    pub currency: &'static str,
    pub amount: String,
    pub fees: String,
    pub amount_receive: String,
    pub amount_total: String,
    pub phone: &'a str,
    pub status: StatusV1,
    pub type_transaction: KindV1,
    pub operator: &'a str,
    pub created_at: String,
    pub customer: CustomerOut<'a>,
    /// A refund's collection, by its `ref`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refund_of: Option<&'a str>,
    /// The payment link a collection was paid through; left out for every other payment, so
    /// that they keep the live service's exact shape.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub link_payment_id: Option<&'a str>,
    /// The payout batch a transfer was asked for in.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub payout_batch_id: Option<&'a str>,
    /// A refund's reason, when one was given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<&'a str>,
    /// A collection's refunds that are not `FAILED`, summed; left out until one is made, so
    /// that a collection never refunded keeps the live service's exact shape.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub amount_refunded: Option<String>,
    /// Only in the answer to a BETA collection's creation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub beta_launch_url: Option<String>,
    /// The same URL, beside it, when the collection named its operator by an alias
    /// (`WAVE_CI`): the name the live SDK's README sends the payer to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wave_launch_url: Option<String>,
}

impl<'a> From<&'a TransactionRecord> for TransactionOut<'a> {
    fn from(r: &'a TransactionRecord) -> Self {
        let t = &r.transaction;
        TransactionOut {
            reference: &t.reference,
            transaction_id: &t.transaction_id,
            currency: "XOF",
            amount: t.amounts.amount.to_string(),
            fees: t.amounts.fees.to_string(),
            amount_receive: t.amounts.amount_receive.to_string(),
            amount_total: t.amounts.amount_total.to_string(),
            phone: t.phone.as_str(),
            status: t.status.into(),
            type_transaction: t.kind().into(),
            operator: t.operator_code(OperatorCode::v1_code),
            created_at: t.created_at.iso8601_millis(),
            customer: CustomerOut::from(&r.customer),
            refund_of: t.purpose.refund_of().map(|r| r.collection.as_str()),
            link_payment_id: t.purpose.link().map(|l| l.as_str()),
            payout_batch_id: t.purpose.batch().map(|b| b.as_str()),
            reason: t.purpose.refund_reason(),
            amount_refunded: t.purpose.refunded_if_any().map(|refunded| refunded.to_string()),
            beta_launch_url: None,
            wave_launch_url: None,
        }
    }
}

/// Query parameters of the transaction lists.
#[derive(Debug, Default, Deserialize)]
pub struct ListParams {
    #[serde(flatten)]
    pub page: PageParams,
    pub status: Option<String>,
    #[serde(rename = "type")]
    pub kind: Option<String>,
    pub operator: Option<String>,
    pub phone: Option<String>,
    pub from: Option<String>,
    pub to: Option<String>,
    /// Only the refunds of the collection with this `ref`.
    #[serde(rename = "refundOf")]
    pub refund_of: Option<String>,
    /// Only the payments made through the payment link with this id.
    #[serde(rename = "linkPaymentId")]
    pub link_payment_id: Option<String>,
    /// Only the transfers of the payout batch with this id.
    #[serde(rename = "payoutBatchId")]
    pub payout_batch_id: Option<String>,
}

impl ListParams {
    /// The filter; `operator` may be a reference code or one of `aliases` (the operator it names).
    pub(crate) fn filter(&self, aliases: &OperatorAliases) -> Result<TransactionFilter, ApiError> {
        let bad = |why: String| ApiError::bad_request(why);
        let nonempty = |v: &Option<String>| v.clone().filter(|s| !s.is_empty());
        let time = |raw: Option<String>, name: &str| {
            raw.map(|r| {
                Timestamp::parse_iso8601(&r).ok_or_else(|| {
                    bad(format!(
                        "{name} must be an ISO 8601 time like 2026-11-20T10:15:30.123Z, got {r:?}"
                    ))
                })
            })
            .transpose()
        };
        Ok(TransactionFilter {
            status: nonempty(&self.status)
                .map(|s| {
                    Status::parse(&s)
                        .ok_or_else(|| bad(format!("status must be PENDING, SUCCESSFUL or FAILED, got {s:?}")))
                })
                .transpose()?,
            kind: nonempty(&self.kind)
                .map(|k| {
                    Kind::parse(&k).ok_or_else(|| bad(format!("type must be collecte, transfer or refund, got {k:?}")))
                })
                .transpose()?,
            operator: nonempty(&self.operator)
                .map(|o| {
                    aliases
                        .resolve(&o)
                        .map(|named| named.operator)
                        .map_err(|e| bad(format!("operator: {e}")))
                })
                .transpose()?,
            phone: nonempty(&self.phone)
                .map(|p| Msisdn::parse(&p).map_err(|e| bad(format!("phone {e}"))))
                .transpose()?,
            from: time(nonempty(&self.from), "from")?,
            to: time(nonempty(&self.to), "to")?,
            refund_of: nonempty(&self.refund_of)
                .map(|r| {
                    let is_reference = r.len() == REFERENCE_LEN && r.bytes().all(|b| REFERENCE_ALPHABET.contains(&b));
                    is_reference.then(|| Reference::from_text(r.clone())).ok_or_else(|| {
                        bad(format!(
                            "refundOf must be a collection's ref (10 characters A-Z, 0-9), got {r:?}"
                        ))
                    })
                })
                .transpose()?,
            link: id_param(
                nonempty(&self.link_payment_id),
                LinkId::parse,
                "linkPaymentId",
                "a payment link's id (lnk_ and 22 letters or digits)",
            )?,
            batch: id_param(
                nonempty(&self.payout_batch_id),
                BatchId::parse,
                "payoutBatchId",
                "a payout batch's id (pbt_ and 22 letters or digits)",
            )?,
        })
    }
}

/// A filter naming a resource the gateway made by its id; the error quotes at most 40
/// characters of what was sent, which is longer than any such id.
fn id_param<T>(
    raw: Option<String>,
    parse: impl Fn(&str) -> Option<T>,
    name: &str,
    shape: &str,
) -> Result<Option<T>, ApiError> {
    raw.map(|r| {
        parse(&r).ok_or_else(|| {
            let shown: String = r.chars().take(40).collect();
            ApiError::bad_request(format!("{name} must be {shape}, got {shown:?}"))
        })
    })
    .transpose()
}

pub async fn list(
    State(payments): State<Payments>,
    Authenticated(caller): Authenticated,
    QueryParams(params): QueryParams<ListParams>,
) -> Result<Response, Error> {
    let page = params.page.page_request()?;
    let filter = params.filter(&payments.config().operator_aliases)?;
    let records = payments.transactions(&caller.tenant, &filter, &page).await?;
    let (records, next) = split_page(records, &page);
    let body: Vec<TransactionOut> = records.iter().map(TransactionOut::from).collect();
    Ok(with_next_cursor(envelope::success(StatusCode::OK, body), next))
}

#[derive(Serialize)]
struct BalanceOut {
    currency: &'static str,
    amount: String,
    available: String,
    reserved: String,
}

pub async fn balance(
    State(balances): State<Balances>,
    Authenticated(caller): Authenticated,
) -> Result<Response, Error> {
    let b = balances.balance(&caller.tenant).await?;
    let body = BalanceOut {
        currency: "XOF",
        amount: b.available.to_string(),
        available: b.available.to_string(),
        reserved: b.reserved.to_string(),
    };
    Ok(envelope::success(StatusCode::OK, body))
}
