//! Payout batches, in both generations: `POST .../payout-batches`, `GET .../payout-batches`,
//! `GET .../payout-batches/{id}`. One handler a route, generic over the generation. Each item
//! is a transfer's body in the generation's shape (`POST /v1/transfer/mobile-money`, `POST
//! /v2/transfers/mobile-money`); a batch's transfers are listed by `GET
//! /v1/transactions?payoutBatchId=`.

mod answer;
mod body;

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;

use self::answer::{items, Batch, Created, Refused};
use self::body::CreateBatch;
use super::auth::Authenticated;
use super::cased::Spelled;
use super::dialect::Generation;
use super::error::{ApiError, ErrorKind};
use super::extract::{JsonBody, PathId, QueryParams};
use super::pagination::{with_next_cursor, PageParams};
use crate::domain::page::split_page;
use crate::domain::{BatchId, Timestamp};
use crate::service::payouts::BatchError;
use crate::service::{Payouts, ServiceError};

pub async fn create<D: Generation>(
    State(payouts): State<Payouts>,
    Authenticated(caller): Authenticated,
    JsonBody(Spelled(request, _)): JsonBody<Spelled<D, CreateBatch>>,
) -> Result<Response, D::Error> {
    let request = request.parse::<D>(&payouts.payments().config().operator_aliases)?;
    match payouts.create_batch(&caller.tenant, request, Timestamp::now()).await {
        Ok(created) => {
            let body = Created {
                batch: D::cased(Batch::from(&created.batch)),
                items: items::<D>(&created.items),
            };
            Ok(D::success(StatusCode::ACCEPTED, "PAYOUT_BATCH_ACCEPTED", body))
        }
        Err(e) => Err(refused::<D>(e).into()),
    }
}

/// The error of a batch refused whole, with its items' outcomes; or the service's.
fn refused<D: Generation>(e: BatchError) -> ApiError {
    let reason = e.to_string();
    match e {
        BatchError::Refused { items: outcomes, .. } => {
            ApiError::new(ErrorKind::BatchRefused, reason).with_data(&Refused {
                items: items::<D>(&outcomes),
            })
        }
        BatchError::OverLimit(_) => ApiError::new(ErrorKind::TooManyRequests, reason),
        BatchError::Invalid(_) => ApiError::new(ErrorKind::BadRequest, reason),
        BatchError::Service(e) => e.into(),
    }
}

pub async fn fetch<D: Generation>(
    State(payouts): State<Payouts>,
    Authenticated(caller): Authenticated,
    PathId(id): PathId,
) -> Result<Response, D::Error> {
    let batch = payouts
        .batch(&caller.tenant, &batch_id(&id)?)
        .await?
        .ok_or(ServiceError::NotFound("payout batch"))?;
    let body = D::cased(Batch::from(&batch));
    Ok(D::success(StatusCode::OK, "PAYOUT_BATCH_FOUND", body))
}

pub async fn list<D: Generation>(
    State(payouts): State<Payouts>,
    Authenticated(caller): Authenticated,
    QueryParams(params): QueryParams<PageParams>,
) -> Result<Response, D::Error> {
    let page = params.page_request()?;
    let found = payouts.batches(&caller.tenant, &page).await?;
    let (found, next) = split_page(found, &page);
    let body: Vec<Batch> = found.iter().map(Batch::from).collect();
    let answer = D::success(StatusCode::OK, "PAYOUT_BATCHES_FOUND", D::cased(body));
    Ok(with_next_cursor(answer, next))
}

/// A batch's id from its path: an id that cannot be one is a batch that does not exist.
fn batch_id(raw: &str) -> Result<BatchId, ServiceError> {
    BatchId::parse(raw).ok_or(ServiceError::NotFound("payout batch"))
}
