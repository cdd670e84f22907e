//! v2's names for the domain's enums, as they appear on the wire.

use serde::Serialize;

use crate::domain::{Kind, Status};

/// A transaction's status, as v2 spells it. The live service answers an immediate collection
/// success `SUCCESSFULL`: that is a spelling of `Successful`, chosen by [`StatusV2::spelled`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum StatusV2 {
    #[serde(rename = "PENDING")]
    Pending,
    #[serde(rename = "SUCCESSFUL")]
    Successful,
    /// `Successful` in the live service's spelling of an immediate collection success.
    #[serde(rename = "SUCCESSFULL")]
    SuccessfulAsLive,
    #[serde(rename = "FAILED")]
    Failed,
}

/// How to spell a success.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Spelling {
    Standard,
    /// `SUCCESSFULL`, as the live service answers an immediate collection success.
    Live,
}

impl StatusV2 {
    pub fn spelled(status: Status, spelling: Spelling) -> StatusV2 {
        match (status, spelling) {
            (Status::Pending, _) => StatusV2::Pending,
            (Status::Successful, Spelling::Standard) => StatusV2::Successful,
            (Status::Successful, Spelling::Live) => StatusV2::SuccessfulAsLive,
            (Status::Failed, _) => StatusV2::Failed,
        }
    }
}

impl From<Status> for StatusV2 {
    fn from(status: Status) -> Self {
        StatusV2::spelled(status, Spelling::Standard)
    }
}

/// A transaction's direction, as v2 spells it (`type_transaction`): its kind's v1 name, but for
/// the reference's own spelling of a transfer (`transfert`); and `payment` for a collection paid
/// through a payment link. A new kind needs no line here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KindV2 {
    Kind(Kind),
    /// A collection paid through a payment link.
    LinkPayment,
}

impl From<Kind> for KindV2 {
    fn from(kind: Kind) -> Self {
        KindV2::Kind(kind)
    }
}

impl Serialize for KindV2 {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(match self {
            KindV2::Kind(Kind::Transfer) => "transfert",
            KindV2::Kind(kind) => kind.as_str(),
            KindV2::LinkPayment => "payment",
        })
    }
}
