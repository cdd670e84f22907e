//! v1's names for the domain's enums, as they appear on the wire.

use serde::Serialize;

use crate::domain::{Kind, Status};

/// A transaction's status, as v1 spells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum StatusV1 {
    Pending,
    Successful,
    Failed,
}

impl From<Status> for StatusV1 {
    fn from(status: Status) -> Self {
        match status {
            Status::Pending => StatusV1::Pending,
            Status::Successful => StatusV1::Successful,
            Status::Failed => StatusV1::Failed,
        }
    }
}

/// A transaction's direction, as v1 spells it (`typeTransaction`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum KindV1 {
    #[serde(rename = "collecte")]
    Collection,
    #[serde(rename = "transfer")]
    Transfer,
    #[serde(rename = "refund")]
    Refund,
}

impl From<Kind> for KindV1 {
    fn from(kind: Kind) -> Self {
        match kind {
            Kind::Collection => KindV1::Collection,
            Kind::Transfer => KindV1::Transfer,
            Kind::Refund => KindV1::Refund,
        }
    }
}
