//! A payout batch's body, as both generations read it (`cased!`): its items read one by one,
//! each an ordinary transfer in the generation's own shape, refused alone when it is not one.

use crate::api::dialect::TransferBody;
use serde::Deserialize;
use serde_json::value::RawValue;

use crate::api::cased::cased;
use crate::api::dialect::Generation;
use crate::api::error::ApiError;
use crate::api::extract::parse_json;
use crate::domain::payout_batch::MAX_BATCH_ITEMS;
use crate::domain::OperatorAliases;
use crate::service::payouts::{BatchRequest, Refusal, RefusalCode};

cased! {
    /// The body of `POST .../payout-batches`. Items stay raw JSON until each is read as a
    /// transfer, so one that is no transfer refuses only itself.
    #[derive(Debug, Deserialize)]
    pub struct CreateBatch / CreateBatchCamel {
        pub items: Option<Vec<Box<RawValue>>>,
        pub label: Option<String>,
        pub all_or_nothing: Option<bool>,
    }
}

impl CreateBatch {
    /// The batch asked for: 400 for a body that is no batch (no items, too many, an item that is
    /// no JSON object); each object that is no transfer is refused alone, with the reason its own
    /// request would get.
    pub fn parse<D: Generation>(self, aliases: &OperatorAliases) -> Result<BatchRequest, ApiError> {
        let name = D::field("items");
        let items = self
            .items
            .ok_or_else(|| ApiError::bad_request(format!("{name} is required: a list of transfers")))?;
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
                parse_json::<D::Transfer>(raw.get().as_bytes())
                    .and_then(|body| body.request(aliases))
                    .map_err(|e| Refusal::new(RefusalCode::Invalid, format!("{name}[{i}]: {}", item_reason(&e.reason))))
            })
            .collect();
        Ok(BatchRequest {
            label: self.label,
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
