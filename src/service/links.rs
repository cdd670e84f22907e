//! Payment links: made, read, listed and deactivated by their merchant, and paid by payers on
//! their public page (`web::pay`). A payment through a link is an ordinary collection of the
//! link's merchant that carries the link's id. The link's rules are checked on the link as read
//! (open, the amount within its bounds, an operator it accepts); its limit, expiry and
//! deactivation once more by the database, in the transaction that records the payment
//! (`store::sql::kinds::collection`), so payers who pay at once never pay it more than it allows.

use std::sync::Arc;

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use hmac::{Hmac, Mac};
use rand::Rng;
use sha2::Sha256;

use super::payments::{Party, PaymentError, PaymentRequest, Payments};
use super::ServiceError;
use crate::domain::ReturnUrls;
use crate::domain::{
    Address, Amount, LinkAmount, LinkId, LinkTerms, Msisdn, OperatorCode, PageRequest, PaymentLink, Reference, Tenant,
    TextId, Timestamp, TransactionId, TransactionRecord,
};
use crate::service::payments::Requested;
use crate::store::{LinkStore, MerchantStore};

/// What a payer gives on a link's page.
#[derive(Debug, Clone)]
pub struct LinkPayment {
    pub operator: OperatorCode,
    pub phone: Msisdn,
    pub phone_as_sent: String,
    /// What the payer typed, for a link with bounds; a fixed link's amount otherwise.
    pub amount: Option<Amount>,
    /// ALPHA's one-time code.
    pub otp_code: Option<String>,
}

/// Why a payer's payment through a link was not made, or was made and failed at once.
#[derive(Debug, thiserror::Error)]
pub enum LinkPaymentError {
    /// The link takes no payment now. Nothing was written.
    #[error("{0}")]
    Closed(crate::domain::LinkClosed),
    /// The payer's operator is not served here (unrouted, or disabled for collections).
    #[error("{0}")]
    NotOffered(String),
    /// The payment was made and failed at once (the operator refused, or could not be
    /// reached): the payer's status page tells.
    #[error("the payment failed at once")]
    Failed(Box<TransactionRecord>),
    /// `Invalid` for an operator or an amount the link does not take; `NotFound`, `Unavailable`
    /// as any use case's.
    #[error(transparent)]
    Service(#[from] ServiceError),
}

service_errors_from_store!(LinkPaymentError);

/// A link payment's creation goes the way of every collection's. A payment id already used
/// (it is 16 random characters), a balance or a recipient, which a collection never has,
/// failing it is a fault of ours.
impl From<PaymentError> for LinkPaymentError {
    fn from(e: PaymentError) -> Self {
        match e {
            PaymentError::LinkClosed(closed) => LinkPaymentError::Closed(closed),
            e @ (PaymentError::Unrouted(..) | PaymentError::OperatorDisabled(_)) => {
                LinkPaymentError::NotOffered(e.to_string())
            }
            PaymentError::Refused(failed) | PaymentError::OperatorUnavailable(failed) => {
                LinkPaymentError::Failed(failed)
            }
            PaymentError::Service(e) => LinkPaymentError::Service(e),
            e @ (PaymentError::Duplicate(_)
            | PaymentError::NotRefundable(_)
            | PaymentError::RecipientInactive(_)
            | PaymentError::RecipientUnchecked(_)
            | PaymentError::InsufficientFunds) => LinkPaymentError::Service(ServiceError::Internal(format!(
                "a link payment failed as no collection can: {e}"
            ))),
        }
    }
}

/// Payment links: their store and the payments made through them.
#[derive(Clone)]
pub struct Links(Arc<LinksParts>);

/// A link as its payer's page shows it: the link and who it pays.
#[derive(Debug, Clone)]
pub struct PublicLink {
    pub link: PaymentLink,
    pub merchant_name: String,
}

struct LinksParts {
    store: Arc<dyn LinkStore>,
    merchants: Arc<dyn MerchantStore>,
    payments: Payments,
    /// The key of the payers' status pages' tokens.
    status_key: Vec<u8>,
    /// Where the gateway is reached from outside: a link's URL starts with it.
    public_url: String,
}

/// The characters of a link payment's transaction id after `lnk-`.
const PAYMENT_ID_RANDOM: usize = 16;
const ALPHABET: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

impl Links {
    pub(super) fn new(
        store: Arc<dyn LinkStore>,
        merchants: Arc<dyn MerchantStore>,
        payments: Payments,
        status_key: Vec<u8>,
        public_url: String,
    ) -> Links {
        Links(Arc::new(LinksParts {
            store,
            merchants,
            payments,
            status_key,
            public_url: public_url.trim_end_matches('/').to_owned(),
        }))
    }

    /// The same links, their payments made through `payments` (other operator connectors).
    pub(super) fn with_payments(&self, payments: Payments) -> Links {
        Links(Arc::new(LinksParts {
            store: self.0.store.clone(),
            merchants: self.0.merchants.clone(),
            payments,
            status_key: self.0.status_key.clone(),
            public_url: self.0.public_url.clone(),
        }))
    }

    /// The link's public page, where its payers pay.
    pub fn url(&self, id: &LinkId) -> String {
        format!("{}/pay/{id}", self.0.public_url)
    }

    pub async fn create(&self, tenant: &Tenant, asked: LinkTerms, now: Timestamp) -> Result<PaymentLink, ServiceError> {
        for url in [&asked.success_url, &asked.error_url].into_iter().flatten() {
            crate::net::return_url(url).map_err(|e| ServiceError::Invalid(format!("a return URL {e}")))?;
        }
        let link = PaymentLink::new(tenant.clone(), asked, now).map_err(|e| ServiceError::Invalid(e.to_string()))?;
        self.0.store.insert_link(&link).await?;
        Ok(link)
    }

    /// The tenant's link; another tenant's is not found, like a missing one.
    pub async fn link(&self, tenant: &Tenant, id: &LinkId) -> Result<PaymentLink, ServiceError> {
        self.0
            .store
            .link(tenant, id)
            .await?
            .ok_or(ServiceError::NotFound("payment link"))
    }

    pub async fn links(&self, tenant: &Tenant, page: &PageRequest) -> Result<Vec<PaymentLink>, ServiceError> {
        Ok(self.0.store.links(tenant, page).await?)
    }

    /// Stops the link taking payments, at once and in every process; its payments already
    /// started go on.
    pub async fn deactivate(&self, tenant: &Tenant, id: &LinkId, now: Timestamp) -> Result<PaymentLink, ServiceError> {
        self.0
            .store
            .deactivate_link(tenant, id, now)
            .await?
            .ok_or(ServiceError::NotFound("payment link"))
    }

    /// A link as its public page shows it, whoever asks.
    pub async fn public_link(&self, id: &LinkId) -> Result<Option<PublicLink>, ServiceError> {
        let Some(link) = self.0.store.link_by_id(id).await? else {
            return Ok(None);
        };
        let merchant_name = self
            .0
            .merchants
            .merchant_name(&link.tenant.merchant_id)
            .await?
            .ok_or_else(|| ServiceError::Internal(format!("link {id} of a missing merchant")))?;
        Ok(Some(PublicLink { link, merchant_name }))
    }

    /// The token of the page where a payer follows payment `reference` of link `id`: only the
    /// payer it was given to can open that page, so it never shows another payer's payment.
    pub fn status_token(&self, id: &LinkId, reference: &Reference) -> String {
        let mut mac = Hmac::<Sha256>::new_from_slice(&self.0.status_key).expect("HMAC takes keys of any length");
        mac.update(b"payment-link-status\0");
        mac.update(id.as_str().as_bytes());
        mac.update(b"\0");
        mac.update(reference.as_str().as_bytes());
        URL_SAFE_NO_PAD.encode(&mac.finalize().into_bytes()[..18])
    }

    /// Payment `reference` of link `id`, when `token` is its status page's.
    pub async fn payment(
        &self,
        id: &LinkId,
        reference: &Reference,
        token: &str,
    ) -> Result<Option<TransactionRecord>, ServiceError> {
        if !crate::operator::same_secret(&self.status_token(id, reference), token) {
            return Ok(None);
        }
        let record = match self.0.payments.transaction_by_ref(reference).await {
            Ok(record) => record,
            Err(ServiceError::NotFound(_)) => return Ok(None),
            Err(e) => return Err(e),
        };
        Ok(Some(record).filter(|r| r.transaction.purpose.link() == Some(id)))
    }

    /// Where the payer approves `record` on a page of ours (a Sandbox BETA collection served by
    /// the simulator), or on the operator's (a Wave checkout), if anywhere.
    pub fn payer_page(&self, record: &TransactionRecord) -> Option<String> {
        self.0.payments.launch_url(record)
    }

    /// Pays link `id`: the collection as created, carrying the link's id. Refused before
    /// anything is written when the link takes no payment now (`Closed`), or not this one
    /// (an amount out of its bounds, an operator it does not accept: `Invalid`).
    pub async fn pay(
        &self,
        id: &LinkId,
        payment: LinkPayment,
        now: Timestamp,
    ) -> Result<TransactionRecord, LinkPaymentError> {
        let link = self
            .0
            .store
            .link_by_id(id)
            .await?
            .ok_or(ServiceError::NotFound("payment link"))?;
        self.pay_link(&link, payment, now).await
    }

    /// [`pay`](Self::pay) with the link as the caller read it (the payer's page has it already):
    /// its limit, expiry and deactivation are decided again by the database as the payment is
    /// recorded, so a link read a moment ago is as good as one read now.
    pub async fn pay_link(
        &self,
        link: &PaymentLink,
        payment: LinkPayment,
        now: Timestamp,
    ) -> Result<TransactionRecord, LinkPaymentError> {
        let id = &link.id;
        link.open_at(now).map_err(LinkPaymentError::Closed)?;
        if !link.accepts_operator(payment.operator) {
            return Err(
                ServiceError::Invalid(format!("operator: this link does not take {}", payment.operator)).into(),
            );
        }
        let amount = match (link.terms.amount, payment.amount) {
            (LinkAmount::Fixed(francs), _) => Amount::from_francs(francs)
                .map_err(|e| ServiceError::Internal(format!("link {id} stores amount {francs}: {e}")))?,
            (LinkAmount::Open { .. }, Some(amount)) if link.terms.amount.accepts(amount.francs()) => amount,
            (LinkAmount::Open { min, max }, _) => {
                return Err(ServiceError::Invalid(format!("amount: between {min} and {max} francs")).into())
            }
        };
        let request = PaymentRequest {
            transaction_id: payment_id(),
            operator: payment.operator,
            operator_alias: None,
            phone: payment.phone.clone(),
            phone_as_sent: payment.phone_as_sent,
            amount,
            party: Party {
                // A payer on a link's page gives a number, not a name: the customer is known by it.
                first_name: payment.phone.as_str().to_owned(),
                last_name: String::new(),
                email: None,
                phone: payment.phone,
                address: Address::parse("CI", None, None).map_err(|e| ServiceError::Internal(e.to_string()))?,
            },
            purpose: Requested::Collection {
                otp_code: payment.otp_code,
                return_urls: ReturnUrls {
                    success: link.terms.success_url.clone(),
                    error: link.terms.error_url.clone(),
                },
                link: Some(link.id.clone()),
            },
        };
        match self.0.payments.create_payment(&link.tenant, request, now).await {
            // The database found every place taken: say whether paid or held by a payment
            // still pending, as the link stands now.
            Err(PaymentError::LinkClosed(_)) => {
                let now_read = self.0.store.link_by_id(id).await?;
                let why = now_read
                    .and_then(|l| l.open_at(now).err())
                    .unwrap_or(crate::domain::LinkClosed::Busy);
                Err(LinkPaymentError::Closed(why))
            }
            made => Ok(made?),
        }
    }
}

/// A link payment's transaction id: `lnk-` and 16 random characters (20 in all, the longest
/// id v2 takes), so it never meets one of the merchant's own.
fn payment_id() -> TransactionId {
    let mut rng = rand::thread_rng();
    let random: String = (0..PAYMENT_ID_RANDOM)
        .map(|_| ALPHABET[rng.gen_range(0..ALPHABET.len())] as char)
        .collect();
    TransactionId::from_text(format!("lnk-{random}"))
}
