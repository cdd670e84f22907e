//! What both generations share of payout batches: the body's items read one by one (each an
//! ordinary transfer in the dialect's own shape, refused alone when it is not one), the
//! request checked, and the answers' parts that are the same in both.

use serde::de::DeserializeOwned;
use serde_json::value::RawValue;

use super::error::{ApiError, ErrorKind};
use super::extract::parse_json;
use crate::domain::payout_batch::MAX_BATCH_ITEMS;
use crate::domain::{BatchId, OperatorAliases};
use crate::service::payouts::{BatchError, BatchRequest, ItemOutcome, Refusal, RefusalCode};
use crate::service::{PaymentRequest, ServiceError};

/// A batch's body as a dialect names its fields.
pub struct BatchFields<'a> {
    pub items: (Option<&'a [Box<RawValue>]>, &'static str),
    pub label: Option<String>,
    pub all_or_nothing: Option<bool>,
}

impl BatchFields<'_> {
    /// The batch asked for: 400 for a body that is no batch (no items, too many, an item that is
    /// no JSON object); each object that is no transfer is refused alone, with the reason its own
    /// request would get.
    pub fn parse<T: DeserializeOwned>(
        &self,
        aliases: &OperatorAliases,
        transfer: impl Fn(&T, &OperatorAliases) -> Result<PaymentRequest, ApiError>,
    ) -> Result<BatchRequest, ApiError> {
        let (items, name) = self.items;
        let items = items.ok_or_else(|| ApiError::bad_request(format!("{name} is required: a list of transfers")))?;
        if items.is_empty() || items.len() > MAX_BATCH_ITEMS {
            return Err(ApiError::bad_request(format!(
                "{name} must hold from 1 to {MAX_BATCH_ITEMS} transfers; it holds {}",
                items.len()
            )));
        }
        if let Some(i) = items.iter().position(|raw| !raw.get().trim_start().starts_with('{')) {
            return Err(ApiError::bad_request(format!(
                "{name}[{i}] must be a JSON object: a transfer's body"
            )));
        }
        let items = items
            .iter()
            .enumerate()
            .map(|(i, raw)| {
                parse_json::<T>(raw.get().as_bytes())
                    .and_then(|body| transfer(&body, aliases))
                    .map_err(|e| Refusal::new(RefusalCode::Invalid, format!("{name}[{i}]: {}", item_reason(&e.reason))))
            })
            .collect();
        Ok(BatchRequest {
            label: self.label.clone(),
            all_or_nothing: self.all_or_nothing.unwrap_or(false),
            items,
        })
    }
}

/// An item's reason without the words that speak of a whole request's body.
fn item_reason(reason: &str) -> String {
    reason
        .replace("invalid request body at ", "")
        .replace("invalid request body: ", "")
        .replace("request body is not valid JSON: ", "")
}

/// A batch's id from its path: an id that cannot be one is a batch that does not exist.
pub fn batch_id(raw: &str) -> Result<BatchId, ServiceError> {
    BatchId::parse(raw).ok_or(ServiceError::NotFound("payout batch"))
}

/// An item's outcome as both dialects name it.
pub fn outcome_name(outcome: &ItemOutcome) -> &'static str {
    match outcome {
        ItemOutcome::Accepted(_) => "accepted",
        ItemOutcome::Duplicate(_) => "duplicate",
        ItemOutcome::Refused(_) => "refused",
    }
}

/// The error of a batch refused whole, with its items' outcomes for the dialect to attach; or
/// the service's.
pub fn batch_error(e: BatchError) -> (ApiError, Option<Vec<ItemOutcome>>) {
    let reason = e.to_string();
    match e {
        BatchError::Refused { items, .. } => (ApiError::new(ErrorKind::BatchRefused, reason), Some(items)),
        BatchError::OverLimit(_) => (ApiError::new(ErrorKind::TooManyRequests, reason), None),
        BatchError::Service(e) => (e.into(), None),
    }
}
