//! v1's names for the domain's enums, as they appear on the wire.

use serde::{Serialize, Serializer};

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

/// A transaction's direction, as v1 spells it (`typeTransaction`): the kind's own name
/// (`Kind::as_str`: `collecte`, `transfer`, `refund`), so a new kind needs no line here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KindV1(Kind);

impl From<Kind> for KindV1 {
    fn from(kind: Kind) -> Self {
        KindV1(kind)
    }
}

impl Serialize for KindV1 {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.0.as_str())
    }
}
