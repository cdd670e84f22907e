//! Payment links: a page a merchant shares (in a chat, printed as a QR code) where a payer pays
//! one of the merchant's collections without any code of the merchant's. A link fixes the
//! amount or bounds it, names the operators it accepts, and may be paid once, a limited number
//! of times, or until it expires or is deactivated.

use super::money::Francs;
use super::page::{Cursor, Paged};
use rand::Rng;

use super::amount::{Amount, MAX_AMOUNT, MIN_AMOUNT};
use super::environment::Tenant;
use super::operator::OperatorCode;
use super::text::{checked_text, TextProblem};
use super::time::Timestamp;

/// What every link id starts with.
pub const LINK_ID_PREFIX: &str = "lnk_";
/// Random characters after the prefix: 22 of 62 (about 131 bits), so an id cannot be guessed.
const LINK_ID_RANDOM: usize = 22;
const ALPHABET: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
/// The longest description a link keeps.
pub const MAX_DESCRIPTION_CHARS: usize = 255;

/// A link's id: its public URL's last segment, and how the merchant names it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct LinkId(String);

impl LinkId {
    pub fn new() -> LinkId {
        let mut rng = rand::thread_rng();
        let random: String = (0..LINK_ID_RANDOM)
            .map(|_| ALPHABET[rng.gen_range(0..ALPHABET.len())] as char)
            .collect();
        LinkId(format!("{LINK_ID_PREFIX}{random}"))
    }

    /// An id as a link's URL or the API names it; `None` for anything that cannot be one (so
    /// a 10,000-character path is answered without a lookup).
    pub fn parse(raw: &str) -> Option<LinkId> {
        let random = raw.strip_prefix(LINK_ID_PREFIX)?;
        (random.len() == LINK_ID_RANDOM && random.bytes().all(|b| b.is_ascii_alphanumeric()))
            .then(|| LinkId(raw.to_owned()))
    }

    /// An id read back from storage, where only a made one was written.
    pub fn from_stored(text: String) -> LinkId {
        LinkId(text)
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl Default for LinkId {
    fn default() -> LinkId {
        LinkId::new()
    }
}

impl std::fmt::Display for LinkId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// What a payer pays through a link.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkAmount {
    Fixed(i64),
    /// The payer types an amount within these bounds, both included.
    Open {
        min: i64,
        max: i64,
    },
}

impl LinkAmount {
    /// A fixed amount, or bounds (each defaulting to the smallest or largest payment).
    pub fn new(fixed: Option<Amount>, min: Option<Amount>, max: Option<Amount>) -> Result<LinkAmount, LinkProblem> {
        match (fixed, min, max) {
            (Some(amount), None, None) => Ok(LinkAmount::Fixed(amount.francs())),
            (Some(_), _, _) => Err(LinkProblem::AmountAndBounds),
            (None, min, max) => {
                let (min, max) = (
                    min.map_or(MIN_AMOUNT, Amount::francs),
                    max.map_or(MAX_AMOUNT, Amount::francs),
                );
                if min > max {
                    return Err(LinkProblem::BoundsReversed);
                }
                Ok(LinkAmount::Open { min, max })
            }
        }
    }

    pub fn accepts(self, francs: i64) -> bool {
        match self {
            LinkAmount::Fixed(amount) => francs == amount,
            LinkAmount::Open { min, max } => (min..=max).contains(&francs),
        }
    }
}

/// Why a link cannot be made as asked.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LinkProblem {
    #[error("give either a fixed amount or bounds (minimum and maximum), not both")]
    AmountAndBounds,
    #[error("the minimum amount is above the maximum")]
    BoundsReversed,
    #[error("the description {0}")]
    Description(TextProblem),
    #[error("the number of payments must be at least 1")]
    NoPayments,
    #[error("the expiry is in the past")]
    Expired,
}

/// Why a link takes no payment now.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum LinkClosed {
    #[error("this payment link was deactivated")]
    Deactivated,
    #[error("this payment link has expired")]
    Expired,
    #[error("this payment link has been paid")]
    Exhausted,
    /// Every place is held, some by a payment still pending: a place comes free if that
    /// payment fails or expires (`MOMO_LINK_PAYMENT_TTL_S`).
    #[error(
        "this payment link is being paid by someone else; it takes payments again if that payment is not approved"
    )]
    Busy,
}

/// What a merchant asks of a link, as it keeps it: what the payer pays and for what, how long
/// and how often it may be paid, with which operators, and where the payer goes after.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkTerms {
    pub amount: LinkAmount,
    pub description: String,
    /// How many payments it takes in all: `Some(1)` for a link paid once; `None`, no limit.
    pub max_payments: Option<i64>,
    pub expires_at: Option<Timestamp>,
    /// The operators a payer may pay with, in the merchant's order: on a made link at least
    /// one, each once.
    pub operators: Vec<OperatorCode>,
    pub success_url: Option<String>,
    pub error_url: Option<String>,
}

/// A merchant's payment link.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PaymentLink {
    pub id: LinkId,
    pub tenant: Tenant,
    pub terms: LinkTerms,
    pub deactivated_at: Option<Timestamp>,
    pub created_at: Timestamp,
    /// Its payments that are not `FAILED` (pending or successful): what its limit counts.
    pub held: u64,
    /// Its `SUCCESSFUL` payments, and what they collected.
    pub paid: u64,
    pub collected: Francs,
}

impl Paged for PaymentLink {
    fn cursor(&self) -> Cursor {
        Cursor::at(self.created_at, &self.id)
    }
}

impl PaymentLink {
    /// Checks what a merchant asked for and makes the link, with nothing paid yet: every
    /// operator when it named none, each operator once when it named one twice.
    pub fn new(tenant: Tenant, asked: LinkTerms, now: Timestamp) -> Result<PaymentLink, LinkProblem> {
        let description = checked_text(&asked.description, MAX_DESCRIPTION_CHARS).map_err(LinkProblem::Description)?;
        if asked.max_payments.is_some_and(|n| n < 1) {
            return Err(LinkProblem::NoPayments);
        }
        if asked.expires_at.is_some_and(|at| at <= now) {
            return Err(LinkProblem::Expired);
        }
        let operators = if asked.operators.is_empty() {
            OperatorCode::ALL.to_vec()
        } else {
            let mut unique = Vec::with_capacity(asked.operators.len());
            for op in asked.operators {
                if !unique.contains(&op) {
                    unique.push(op);
                }
            }
            unique
        };
        Ok(PaymentLink {
            id: LinkId::new(),
            tenant,
            terms: LinkTerms {
                description,
                operators,
                ..asked
            },
            deactivated_at: None,
            created_at: now,
            held: 0,
            paid: 0,
            collected: Francs::ZERO,
        })
    }

    /// Its payments still pending.
    pub fn pending(&self) -> u64 {
        self.held.saturating_sub(self.paid)
    }

    /// Whether it takes a new payment at `now`, as last read. The database decides again when
    /// a payment is recorded (`store::sql::kinds::collection`).
    pub fn open_at(&self, now: Timestamp) -> Result<(), LinkClosed> {
        if self.deactivated_at.is_some() {
            return Err(LinkClosed::Deactivated);
        }
        if self.terms.expires_at.is_some_and(|at| at <= now) {
            return Err(LinkClosed::Expired);
        }
        if self
            .terms
            .max_payments
            .is_some_and(|max| self.paid >= max.unsigned_abs())
        {
            return Err(LinkClosed::Exhausted);
        }
        if self
            .terms
            .max_payments
            .is_some_and(|max| self.held >= max.unsigned_abs())
        {
            return Err(LinkClosed::Busy);
        }
        Ok(())
    }

    /// Whether it is active: not deactivated, not expired, not paid in full.
    pub fn active_at(&self, now: Timestamp) -> bool {
        self.open_at(now).is_ok()
    }

    pub fn accepts_operator(&self, operator: OperatorCode) -> bool {
        self.terms.operators.contains(&operator)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tenant() -> Tenant {
        Tenant::sandbox("m")
    }

    fn francs(n: i64) -> Amount {
        Amount::from_francs(n).unwrap()
    }

    #[test]
    fn ids_are_made_unguessable_and_parsed_strictly() {
        let id = LinkId::new();
        assert_eq!(id.as_str().len(), LINK_ID_PREFIX.len() + LINK_ID_RANDOM);
        assert_eq!(LinkId::parse(id.as_str()), Some(id.clone()));
        assert_ne!(LinkId::new(), id);
        for bad in [
            "",
            "lnk_",
            "lnk_short",
            &"x".repeat(10_000),
            "cos_0123456789012345678901",
            "lnk_01234567890123456789-1",
        ] {
            assert_eq!(LinkId::parse(bad), None, "{bad:.40}");
        }
    }

    #[test]
    fn an_amount_is_fixed_or_bounded_never_both() {
        assert_eq!(
            LinkAmount::new(Some(francs(5000)), None, None),
            Ok(LinkAmount::Fixed(5000))
        );
        assert_eq!(
            LinkAmount::new(None, Some(francs(1000)), None),
            Ok(LinkAmount::Open {
                min: 1000,
                max: MAX_AMOUNT
            })
        );
        assert_eq!(
            LinkAmount::new(Some(francs(5000)), Some(francs(1000)), None),
            Err(LinkProblem::AmountAndBounds)
        );
        assert_eq!(
            LinkAmount::new(None, Some(francs(2000)), Some(francs(1000))),
            Err(LinkProblem::BoundsReversed)
        );
        assert!(LinkAmount::Open { min: 1000, max: 2000 }.accepts(2000));
        assert!(!LinkAmount::Open { min: 1000, max: 2000 }.accepts(2001));
        assert!(!LinkAmount::Fixed(5000).accepts(4999));
    }

    #[test]
    fn a_link_closes_when_deactivated_expired_paid_or_held() {
        let now = Timestamp(1_000_000);
        let make = |max, expires| {
            let asked = LinkTerms {
                amount: LinkAmount::Fixed(5000),
                description: "Robe wax".into(),
                max_payments: max,
                expires_at: expires,
                operators: vec![OperatorCode::Alpha, OperatorCode::Alpha],
                success_url: None,
                error_url: None,
            };
            PaymentLink::new(tenant(), asked, now)
        };
        let mut link = make(Some(1), Some(Timestamp(2_000_000))).unwrap();
        assert_eq!(link.terms.operators, vec![OperatorCode::Alpha], "named once");
        assert_eq!(link.open_at(now), Ok(()));
        assert_eq!(link.open_at(Timestamp(2_000_000)), Err(LinkClosed::Expired));
        link.held = 1;
        assert_eq!(
            link.open_at(now),
            Err(LinkClosed::Busy),
            "held by a payment still pending"
        );
        link.paid = 1;
        assert_eq!(link.open_at(now), Err(LinkClosed::Exhausted), "paid");
        (link.held, link.paid) = (0, 0);
        link.deactivated_at = Some(now);
        assert_eq!(link.open_at(now), Err(LinkClosed::Deactivated));
        assert_eq!(make(Some(0), None), Err(LinkProblem::NoPayments));
        assert_eq!(make(None, Some(now)), Err(LinkProblem::Expired));
    }
}
