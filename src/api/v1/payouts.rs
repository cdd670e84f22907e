//! v1 payout batches: `POST /v1/payout-batches`, `GET /v1/payout-batches`,
//! `GET /v1/payout-batches/{id}`. Each item is a v1 transfer's body (`POST
//! /v1/transfer/mobile-money`); a batch's transfers are listed by `GET
//! /v1/transactions?payoutBatchId=`.

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use super::payments::TransferV1;
use super::transactions::TransactionOut;
use super::{envelope, Error};
use crate::api::auth::Authenticated;
use crate::api::extract::{JsonBody, PathId, QueryParams};
use crate::api::pagination::{with_next_cursor, PageParams};
use crate::api::payouts::{batch_error, batch_id, outcome_name, BatchFields};
use crate::domain::page::split_page;
use crate::domain::{Cursor, PayoutBatch, Tally, Timestamp};
use crate::service::payouts::ItemOutcome;
use crate::service::Payouts;

/// The body of a v1 batch.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateBatchV1 {
    pub items: Option<Vec<Box<RawValue>>>,
    pub label: Option<String>,
    pub all_or_nothing: Option<bool>,
}

/// A count and its amount.
#[derive(Debug, Serialize)]
pub struct TallyV1 {
    pub count: u64,
    pub amount: String,
}

impl From<Tally> for TallyV1 {
    fn from(t: Tally) -> Self {
        TallyV1 {
            count: t.count,
            amount: t.amount.to_string(),
        }
    }
}

/// A batch as v1 shows it.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BatchV1<'a> {
    pub id: &'a str,
    pub status: &'static str,
    pub label: Option<&'a str>,
    pub all_or_nothing: bool,
    pub submitted: u64,
    pub refused: u64,
    pub duplicates: u64,
    pub accepted: TallyV1,
    pub successful: TallyV1,
    pub failed: TallyV1,
    pub pending: TallyV1,
    pub created_at: String,
    pub completed_at: Option<String>,
}

impl<'a> From<&'a PayoutBatch> for BatchV1<'a> {
    fn from(b: &'a PayoutBatch) -> Self {
        BatchV1 {
            id: b.id.as_str(),
            status: b.status().as_str(),
            label: b.label.as_deref(),
            all_or_nothing: b.all_or_nothing,
            submitted: b.submitted,
            refused: b.refused,
            duplicates: b.duplicates,
            accepted: b.accepted.into(),
            successful: b.successful.into(),
            failed: b.failed.into(),
            pending: Tally {
                count: b.pending,
                amount: b.pending_amount(),
            }
            .into(),
            created_at: b.created_at.iso8601_millis(),
            completed_at: b.completed_at.map(Timestamp::iso8601_millis),
        }
    }
}

/// One item's outcome as v1 shows it.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ItemV1<'a> {
    pub index: usize,
    pub outcome: &'static str,
    /// The item's transaction: its own (accepted) or the earlier one (duplicate).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transaction: Option<TransactionOut<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<&'a str>,
}

fn items(outcomes: &[ItemOutcome]) -> Vec<ItemV1<'_>> {
    outcomes
        .iter()
        .enumerate()
        .map(|(index, o)| ItemV1 {
            index,
            outcome: outcome_name(o),
            transaction: o.transaction().map(TransactionOut::from),
            code: match o {
                ItemOutcome::Refused(r) => Some(r.code.as_str()),
                ItemOutcome::Accepted(_) | ItemOutcome::Duplicate(_) => None,
            },
            reason: match o {
                ItemOutcome::Refused(r) => Some(r.reason.as_str()),
                ItemOutcome::Accepted(_) | ItemOutcome::Duplicate(_) => None,
            },
        })
        .collect()
}

/// A recorded batch and its items' outcomes.
#[derive(Debug, Serialize)]
struct CreatedV1<'a> {
    batch: BatchV1<'a>,
    items: Vec<ItemV1<'a>>,
}

/// The items' outcomes of a batch refused whole.
#[derive(Debug, Serialize)]
struct RefusedV1<'a> {
    items: Vec<ItemV1<'a>>,
}

pub async fn create(
    State(payouts): State<Payouts>,
    Authenticated(caller): Authenticated,
    JsonBody(body): JsonBody<CreateBatchV1>,
) -> Result<Response, Error> {
    let fields = BatchFields {
        items: (body.items.as_deref(), "items"),
        label: body.label,
        all_or_nothing: body.all_or_nothing,
    };
    let aliases = &payouts.payments().config().operator_aliases;
    let request = fields.parse(aliases, TransferV1::parse)?;
    match payouts.create_batch(&caller.tenant, request, Timestamp::now()).await {
        Ok(created) => Ok(envelope::success(
            StatusCode::ACCEPTED,
            CreatedV1 {
                batch: BatchV1::from(&created.batch),
                items: items(&created.items),
            },
        )),
        Err(e) => Err(Error(match batch_error(e) {
            (error, Some(outcomes)) => error.with_data(&RefusedV1 {
                items: items(&outcomes),
            }),
            (error, None) => error,
        })),
    }
}

pub async fn fetch(
    State(payouts): State<Payouts>,
    Authenticated(caller): Authenticated,
    PathId(id): PathId,
) -> Result<Response, Error> {
    let batch = payouts
        .batch(&caller.tenant, &batch_id(&id)?)
        .await?
        .ok_or(crate::service::ServiceError::NotFound("payout batch"))?;
    Ok(envelope::success(StatusCode::OK, BatchV1::from(&batch)))
}

pub async fn list(
    State(payouts): State<Payouts>,
    Authenticated(caller): Authenticated,
    QueryParams(params): QueryParams<PageParams>,
) -> Result<Response, Error> {
    let page = params.page_request()?;
    let found = payouts.batches(&caller.tenant, &page).await?;
    let (found, next) = split_page(found, &page, |b| Cursor {
        created_at: b.created_at,
        id: b.id.to_string(),
    });
    let body: Vec<BatchV1> = found.iter().map(BatchV1::from).collect();
    Ok(with_next_cursor(envelope::success(StatusCode::OK, body), next))
}
