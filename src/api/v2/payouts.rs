//! v2 payout batches: `POST /v2/payout-batches`, `GET /v2/payout-batches`,
//! `GET /v2/payout-batches/{id}`: v1's, in snake_case. Each item is a v2 transfer's body (`POST
//! /v2/transfer/mobile-money`).

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use super::payments::TransferV2;
use super::transactions::TransactionV2;
use super::{envelope, Error};
use crate::api::auth::Authenticated;
use crate::api::extract::{JsonBody, PathId, QueryParams};
use crate::api::pagination::{with_next_cursor, PageParams};
use crate::api::payouts::{batch_error, batch_id, outcome_name, BatchFields};
use crate::domain::page::split_page;
use crate::domain::{Cursor, PayoutBatch, Tally, Timestamp};
use crate::service::payouts::ItemOutcome;
use crate::service::Payouts;

/// The body of a v2 batch.
#[derive(Debug, Deserialize)]
pub struct CreateBatchV2 {
    pub items: Option<Vec<Box<RawValue>>>,
    pub label: Option<String>,
    pub all_or_nothing: Option<bool>,
}

/// A count and its amount.
#[derive(Debug, Serialize)]
pub struct TallyV2 {
    pub count: u64,
    pub amount: String,
}

impl From<Tally> for TallyV2 {
    fn from(t: Tally) -> Self {
        TallyV2 {
            count: t.count,
            amount: t.amount.to_string(),
        }
    }
}

/// A batch as v2 shows it.
#[derive(Debug, Serialize)]
pub struct BatchV2<'a> {
    pub id: &'a str,
    pub status: &'static str,
    pub label: Option<&'a str>,
    pub all_or_nothing: bool,
    pub submitted: u64,
    pub refused: u64,
    pub duplicates: u64,
    pub accepted: TallyV2,
    pub successful: TallyV2,
    pub failed: TallyV2,
    pub pending: TallyV2,
    pub created_at: String,
    pub completed_at: Option<String>,
}

impl<'a> From<&'a PayoutBatch> for BatchV2<'a> {
    fn from(b: &'a PayoutBatch) -> Self {
        BatchV2 {
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

/// One item's outcome as v2 shows it.
#[derive(Debug, Serialize)]
pub struct ItemV2<'a> {
    pub index: usize,
    pub outcome: &'static str,
    /// The item's transaction: its own (accepted) or the earlier one (duplicate).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transaction: Option<TransactionV2<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<&'a str>,
}

fn items(outcomes: &[ItemOutcome]) -> Vec<ItemV2<'_>> {
    outcomes
        .iter()
        .enumerate()
        .map(|(index, o)| ItemV2 {
            index,
            outcome: outcome_name(o),
            transaction: o.transaction().map(TransactionV2::from),
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
struct CreatedV2<'a> {
    batch: BatchV2<'a>,
    items: Vec<ItemV2<'a>>,
}

/// The items' outcomes of a batch refused whole.
#[derive(Debug, Serialize)]
struct RefusedV2<'a> {
    items: Vec<ItemV2<'a>>,
}

pub async fn create(
    State(payouts): State<Payouts>,
    Authenticated(caller): Authenticated,
    JsonBody(body): JsonBody<CreateBatchV2>,
) -> Result<Response, Error> {
    let fields = BatchFields {
        items: (body.items.as_deref(), "items"),
        label: body.label,
        all_or_nothing: body.all_or_nothing,
    };
    let aliases = &payouts.payments().config().operator_aliases;
    let request = fields.parse(aliases, TransferV2::parse)?;
    match payouts.create_batch(&caller.tenant, request, Timestamp::now()).await {
        Ok(created) => Ok(envelope::success(
            StatusCode::ACCEPTED,
            "PAYOUT_BATCH_ACCEPTED",
            CreatedV2 {
                batch: BatchV2::from(&created.batch),
                items: items(&created.items),
            },
        )),
        Err(e) => Err(Error(match batch_error(e) {
            (error, Some(outcomes)) => error.with_data(&RefusedV2 {
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
    Ok(envelope::success(
        StatusCode::OK,
        "PAYOUT_BATCH_FOUND",
        BatchV2::from(&batch),
    ))
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
    let body: Vec<BatchV2> = found.iter().map(BatchV2::from).collect();
    Ok(with_next_cursor(
        envelope::success(StatusCode::OK, "PAYOUT_BATCHES_FOUND", body),
        next,
    ))
}
