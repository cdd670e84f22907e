//! A payment as a use case is asked for it: who, how much, through which operator, and what it
//! is for ([`Requested`]), each kind with what only it needs.

use crate::domain::purpose::{Collection, Transfer};
use crate::domain::{
    Address, Amount, BatchId, Kind, LinkId, Msisdn, OperatorCode, Purpose, RefundLink, ReturnUrls, TransactionId,
    TransactionKey,
};

/// The person paying or being paid, as the request names them.
#[derive(Debug, Clone)]
pub struct Party {
    pub first_name: String,
    pub last_name: String,
    pub email: Option<String>,
    /// The customer record's number (v1 `customer.phone`; v2 the payment's number).
    pub phone: Msisdn,
    pub address: Address,
}

/// A validated request for a collection, a transfer or a refund.
#[derive(Debug, Clone)]
pub struct PaymentRequest {
    pub transaction_id: TransactionId,
    pub operator: OperatorCode,
    /// The deployment's alias the merchant named the operator by, given back as sent.
    pub operator_alias: Option<String>,
    /// The number debited (collection) or credited (transfer, refund).
    pub phone: Msisdn,
    pub phone_as_sent: String,
    pub amount: Amount,
    pub party: Party,
    pub purpose: Requested,
}

impl PaymentRequest {
    pub fn kind(&self) -> Kind {
        self.purpose.kind()
    }
}

/// What a requested payment is for.
#[derive(Debug, Clone)]
pub enum Requested {
    Collection {
        /// ALPHA's one-time code, typed by the payer: sent to the operator, never stored.
        otp_code: Option<String>,
        return_urls: ReturnUrls,
        /// The payment link it is paid through (`service::links`).
        link: Option<LinkId>,
    },
    Transfer {
        recipient_check: RecipientCheck,
        /// The payout batch it is asked for in (`service::payouts`): recorded and queued, sent
        /// later at its operator's pace.
        batch: Option<BatchId>,
    },
    /// The collection it gives back (`refunds.rs`).
    Refund(Refunded),
}

/// Whether a transfer first asks its operator if the number holds an active account
/// (`recipients.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecipientCheck {
    Skip,
    First,
}

impl RecipientCheck {
    /// A merchant's `checkRecipient` (`check_recipient`): first when asked.
    pub fn when(asked: bool) -> RecipientCheck {
        if asked {
            RecipientCheck::First
        } else {
            RecipientCheck::Skip
        }
    }
}

/// The collection a refund gives back and why, and the collection's key at the operator,
/// which the refund names there (MoMo's `referenceIdToRefund`).
#[derive(Debug, Clone)]
pub struct Refunded {
    pub link: RefundLink,
    pub key: TransactionKey,
    /// The connector that carried the collection, recorded with it (`None`: its route's
    /// first): the refund goes back through it and no other.
    pub connector: Option<String>,
}

impl Requested {
    /// A plain collection: no code, no return URLs, no link.
    pub fn collection() -> Requested {
        Requested::Collection {
            otp_code: None,
            return_urls: ReturnUrls::default(),
            link: None,
        }
    }

    /// A plain transfer: no recipient check, no batch.
    pub fn transfer() -> Requested {
        Requested::Transfer {
            recipient_check: RecipientCheck::Skip,
            batch: None,
        }
    }

    pub fn kind(&self) -> Kind {
        match self {
            Requested::Collection { .. } => Kind::Collection,
            Requested::Transfer { .. } => Kind::Transfer,
            Requested::Refund(_) => Kind::Refund,
        }
    }

    pub fn otp_code(&self) -> Option<&str> {
        match self {
            Requested::Collection { otp_code, .. } => otp_code.as_deref(),
            Requested::Transfer { .. } | Requested::Refund(_) => None,
        }
    }

    pub fn refund_of(&self) -> Option<&Refunded> {
        match self {
            Requested::Refund(refunded) => Some(refunded),
            Requested::Collection { .. } | Requested::Transfer { .. } => None,
        }
    }

    pub fn batch(&self) -> Option<&BatchId> {
        match self {
            Requested::Transfer { batch, .. } => batch.as_ref(),
            Requested::Collection { .. } | Requested::Refund(_) => None,
        }
    }

    pub fn link(&self) -> Option<&LinkId> {
        match self {
            Requested::Collection { link, .. } => link.as_ref(),
            Requested::Transfer { .. } | Requested::Refund(_) => None,
        }
    }

    /// Whether a transfer asks its operator about its recipient first.
    pub fn checks_recipient(&self) -> bool {
        matches!(
            self,
            Requested::Transfer {
                recipient_check: RecipientCheck::First,
                ..
            }
        )
    }

    /// What is stored of it; a collection's payer page key, when it has one, made by the use case.
    pub fn stored(&self, checkout_token: Option<String>) -> Purpose {
        match self {
            Requested::Collection { return_urls, link, .. } => Purpose::Collection(Collection {
                return_urls: return_urls.clone(),
                checkout_token,
                launch_url: None,
                link: link.clone(),
                refunded: crate::domain::Francs::ZERO,
            }),
            Requested::Transfer { batch, .. } => Purpose::Transfer(Transfer { batch: batch.clone() }),
            Requested::Refund(refunded) => Purpose::Refund(refunded.link.clone()),
        }
    }
}
