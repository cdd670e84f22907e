//! The recipient check asked on its own (`GET /v1/account-holders/{operator}/{phone}`): the
//! sensitive call it is. A holder's name is personal data, and a check any merchant may ask of
//! any number without limit is a name directory, so each one is:
//! - allowed per merchant environment (on in Sandbox, off in Production until switched on by
//!   `momo-gateway merchant recipient-check` or the dashboard);
//! - counted against a daily quota per merchant environment (`MOMO_RECIPIENT_CHECKS_PER_DAY`),
//!   by the database, whichever process asks;
//! - recorded (who, when, the number's keyed hash, what was found) for the merchant to list;
//! - answered with the holder's name masked, or, when the merchant names the holder, with
//!   whether that name matches, and no name at all.
//!
//! The check a transfer asks for itself (`checkRecipient`) tells only active or not, and
//! stays with the payment (`Payments::check_recipient`).

use std::sync::Arc;

use hmac::{Hmac, Mac};
use sha2::Sha256;

use super::payments::{PaymentError, Payments};
use super::{OrNotFound, ServiceError};
use crate::domain::recipient::{mask_name, names_match};
use crate::domain::{
    Environment, LookupOutcome, Msisdn, OperatorCode, PageRequest, RecipientLookup, Tenant, Timestamp,
};
use crate::operator::AccountHolder;
use crate::store::RecipientStore;

const DAY_MS: i64 = 86_400_000;

/// The recipient check's use cases.
#[derive(Clone)]
pub struct Recipients(Arc<Parts>);

struct Parts {
    store: Arc<dyn RecipientStore>,
    payments: Payments,
    /// The key of the numbers' hashes in the lookups' record.
    key: Vec<u8>,
}

/// What a check found, as the merchant may see it.
#[derive(Debug)]
pub struct Checked {
    pub operator: OperatorCode,
    pub phone: Msisdn,
    pub outcome: LookupOutcome,
    /// The holder's name, masked (`mask_name`); `None` when the merchant named the holder to
    /// confirm, or the operator gave none.
    pub masked_name: Option<String>,
    /// Whether the name the merchant gave is the holder's; `None` when none was given, or the
    /// operator gave no name to compare with.
    pub name_matched: Option<bool>,
}

/// Why a check was not made or gave no answer.
#[derive(Debug, thiserror::Error)]
pub enum LookupError {
    #[error("the recipient check is off for this merchant's {0}: an administrator switches it on with `momo-gateway merchant recipient-check --on`, or the merchant on the dashboard's API keys page")]
    NotAllowed(Environment),
    #[error("the daily quota of {quota} recipient checks is used up; it starts again at 00:00 UTC")]
    QuotaUsed { quota: u32, retry_after_s: u64 },
    /// The operator could not be asked (or no connector serves it): recorded as unavailable.
    #[error(transparent)]
    Payment(#[from] PaymentError),
    #[error(transparent)]
    Service(#[from] ServiceError),
}

service_errors_from_store!(LookupError);

impl Recipients {
    pub(super) fn new(store: Arc<dyn RecipientStore>, payments: Payments, key: Vec<u8>) -> Recipients {
        Recipients(Arc::new(Parts { store, payments, key }))
    }

    /// The same use cases, asking operators through `payments`.
    pub(super) fn with_payments(&self, payments: Payments) -> Recipients {
        Recipients(Arc::new(Parts {
            store: self.0.store.clone(),
            payments,
            key: self.0.key.clone(),
        }))
    }

    pub fn config(&self) -> &crate::config::Config {
        self.0.payments.config()
    }

    /// Whether `tenant` may ask the check: as set, else on in Sandbox and off in Production.
    pub async fn allowed(&self, tenant: &Tenant) -> Result<bool, ServiceError> {
        let set = self
            .0
            .store
            .recipient_check_allowed(tenant)
            .await
            .or_not_found("merchant environment")?;
        Ok(set.unwrap_or(tenant.environment == Environment::Sandbox))
    }

    /// Switches the check on or off for `tenant`.
    pub async fn set_allowed(&self, tenant: &Tenant, allowed: bool) -> Result<(), ServiceError> {
        self.0
            .store
            .set_recipient_check_allowed(tenant, allowed)
            .await
            .or_not_found("merchant environment")
    }

    /// Asks `operator` about `phone` for `tenant`, if it may, within its quota, and records
    /// the lookup. `confirm` is a name the merchant expects the holder to bear.
    pub async fn check(
        &self,
        tenant: &Tenant,
        operator: OperatorCode,
        phone: Msisdn,
        confirm: Option<&str>,
        now: Timestamp,
    ) -> Result<Checked, LookupError> {
        if !self.allowed(tenant).await? {
            return Err(LookupError::NotAllowed(tenant.environment));
        }
        let quota = self.0.payments.config().payouts.recipient_checks_per_day;
        let day = now.millis().div_euclid(DAY_MS);
        if !self.0.store.take_recipient_check(tenant, day, i64::from(quota)).await? {
            let retry_after_s = ((day + 1) * DAY_MS - now.millis()).max(1000) as u64 / 1000;
            return Err(LookupError::QuotaUsed { quota, retry_after_s });
        }
        let holder = self.0.payments.account_holder(tenant, operator, &phone).await;
        let (outcome, name) = match &holder {
            Ok(AccountHolder::Active { name }) => (LookupOutcome::Active, name.clone()),
            Ok(AccountHolder::Inactive) => (LookupOutcome::Inactive, None),
            Ok(AccountHolder::Unknown) => (LookupOutcome::Unknown, None),
            Err(_) => (LookupOutcome::Unavailable, None),
        };
        let name_matched = confirm.and_then(|given| name.as_deref().map(|held| names_match(given, held)));
        let lookup = RecipientLookup {
            id: format!("rcl_{}", super::credentials::random_token::<16>()),
            tenant: tenant.clone(),
            operator,
            phone_hash: self.phone_hash(&phone),
            outcome,
            name_matched,
            asked_at: now,
        };
        self.0.store.record_lookup(&lookup).await?;
        holder?;
        Ok(Checked {
            operator,
            phone,
            outcome,
            masked_name: name.filter(|_| confirm.is_none()).map(|n| mask_name(&n)),
            name_matched,
        })
    }

    /// The tenant's lookups, newest first.
    pub async fn lookups(&self, tenant: &Tenant, page: &PageRequest) -> Result<Vec<RecipientLookup>, ServiceError> {
        Ok(self.0.store.lookups(tenant, page).await?)
    }

    /// The keyed hash under which `phone` is recorded (hex).
    pub fn phone_hash(&self, phone: &Msisdn) -> String {
        let mut mac = Hmac::<Sha256>::new_from_slice(&self.0.key).expect("HMAC takes keys of any length");
        mac.update(phone.as_str().as_bytes());
        hex::encode(mac.finalize().into_bytes())
    }
}
