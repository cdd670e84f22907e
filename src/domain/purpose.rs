//! What a stored payment is for: a collection, a transfer or a refund, each with what only it
//! carries, and its kind with what follows from it (its names, whether it pays out). A transaction's kind is derived from its purpose, so a transfer with a payment link
//! or a collection with a refunded collection cannot be written down.

use super::link::LinkId;
use super::money::Francs;
use super::payout_batch::BatchId;
use super::refund::RefundLink;

/// The direction of a transaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// Money from a payer's number to the merchant.
    Collection,
    /// Money from the merchant to a recipient's number.
    Transfer,
    /// Money of a successful collection given back to its payer, through the operator that
    /// took it: paid out of the merchant's balance like a transfer.
    Refund,
}

impl Kind {
    pub const ALL: [Kind; 3] = [Kind::Collection, Kind::Transfer, Kind::Refund];

    /// Its place in [`Kind::ALL`]: the order reports and tables list kinds in.
    pub fn index(self) -> usize {
        self as usize
    }

    /// Its name in v1, webhooks, settings and exports (`collecte`, `transfer`, `refund`).
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Collection => "collecte",
            Kind::Transfer => "transfer",
            Kind::Refund => "refund",
        }
    }

    pub fn parse(raw: &str) -> Option<Kind> {
        match raw {
            "collecte" => Some(Kind::Collection),
            "transfer" | "transfert" => Some(Kind::Transfer),
            "refund" => Some(Kind::Refund),
            _ => None,
        }
    }

    /// What the statement and the simulator call it in English prose.
    pub fn noun(self) -> &'static str {
        match self {
            Kind::Collection => "collection",
            Kind::Transfer => "transfer",
            Kind::Refund => "refund",
        }
    }

    /// Whether the money leaves the merchant's balance (a transfer, a refund): its total is
    /// reserved at creation, paid out on success, released on failure.
    pub fn pays_out(self) -> bool {
        match self {
            Kind::Collection => false,
            Kind::Transfer | Kind::Refund => true,
        }
    }
}

/// A stored payment's purpose.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Purpose {
    Collection(Collection),
    Transfer(Transfer),
    /// Money of a successful collection given back: which, and why.
    Refund(RefundLink),
}

/// Where a hosted payment page sends the payer after paying, or after a failed attempt (a
/// BETA collection's, as the merchant gave them).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReturnUrls {
    pub success: Option<String>,
    pub error: Option<String>,
}

/// What only a collection carries.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Collection {
    pub return_urls: ReturnUrls,
    /// The unguessable key of the payer's approve/decline page, for the Sandbox BETA
    /// collections that have one.
    pub checkout_token: Option<String>,
    /// The operator's own page where the payer approves (a Wave checkout's launch URL).
    pub launch_url: Option<String>,
    /// The payment link it was paid through.
    pub link: Option<LinkId>,
    /// Its refunds that are not `FAILED`, summed: what of its amount is given back or being
    /// given back.
    pub refunded: Francs,
}

/// What only a transfer carries.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Transfer {
    /// The payout batch it was asked for in: recorded and queued, sent at its operator's pace.
    pub batch: Option<BatchId>,
}

impl Purpose {
    pub fn kind(&self) -> Kind {
        match self {
            Purpose::Collection(_) => Kind::Collection,
            Purpose::Transfer(_) => Kind::Transfer,
            Purpose::Refund(_) => Kind::Refund,
        }
    }

    pub fn collection(&self) -> Option<&Collection> {
        match self {
            Purpose::Collection(collection) => Some(collection),
            Purpose::Transfer(_) | Purpose::Refund(_) => None,
        }
    }

    /// The payment link a collection was paid through.
    pub fn link(&self) -> Option<&LinkId> {
        self.collection().and_then(|c| c.link.as_ref())
    }

    /// The payout batch a transfer was asked for in.
    pub fn batch(&self) -> Option<&BatchId> {
        match self {
            Purpose::Transfer(transfer) => transfer.batch.as_ref(),
            Purpose::Collection(_) | Purpose::Refund(_) => None,
        }
    }

    /// The collection a refund gives back.
    pub fn refund_of(&self) -> Option<&RefundLink> {
        match self {
            Purpose::Refund(link) => Some(link),
            Purpose::Collection(_) | Purpose::Transfer(_) => None,
        }
    }

    /// Where a collection's hosted page sends the payer after paying (`Some`) or failing.
    pub fn return_url(&self, succeeded: bool) -> Option<&str> {
        let urls = &self.collection()?.return_urls;
        if succeeded {
            urls.success.as_deref()
        } else {
            urls.error.as_deref()
        }
    }

    /// A collection's page at its operator where the payer approves.
    pub fn launch_url(&self) -> Option<&str> {
        self.collection()?.launch_url.as_deref()
    }

    /// The key of a Sandbox BETA collection's payer page.
    pub fn checkout_token(&self) -> Option<&str> {
        self.collection()?.checkout_token.as_deref()
    }

    /// A refund's reason, as the merchant gave it.
    pub fn refund_reason(&self) -> Option<&str> {
        self.refund_of()?.reason.as_ref().map(|r| r.as_str())
    }

    /// What of a collection is refunded or being refunded, when anything is: the wire shows
    /// `amountRefunded` only then, so a collection never refunded keeps the live service's shape.
    pub fn refunded_if_any(&self) -> Option<Francs> {
        Some(self.refunded()).filter(|refunded| refunded.is_positive())
    }

    /// What of a collection is refunded or being refunded; zero for every other kind.
    pub fn refunded(&self) -> Francs {
        self.collection().map_or(Francs::ZERO, |c| c.refunded)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::Reference;

    #[test]
    fn the_kind_follows_the_purpose_and_each_kind_answers_only_its_own() {
        let link = Some(LinkId::new());
        let collection = Purpose::Collection(Collection {
            link: link.clone(),
            refunded: Francs(300),
            ..Collection::default()
        });
        let transfer = Purpose::Transfer(Transfer {
            batch: Some(BatchId::new()),
        });
        let refund = Purpose::Refund(RefundLink {
            collection: Reference::from("ABCDEFGHIJ"),
            reason: None,
        });
        assert_eq!(
            [collection.kind(), transfer.kind(), refund.kind()],
            [Kind::Collection, Kind::Transfer, Kind::Refund]
        );
        assert_eq!(collection.link(), link.as_ref());
        assert_eq!(collection.refunded(), Francs(300));
        assert!(collection.batch().is_none() && collection.refund_of().is_none());
        assert!(transfer.batch().is_some() && transfer.link().is_none());
        assert_eq!(transfer.refunded(), Francs::ZERO);
        assert!(refund.refund_of().is_some() && refund.collection().is_none());
    }
}
