//! The recipient check: whether a number holds an active account with its operator, and whose,
//! asked before money is sent there. Asked on its own (`account_holder`), or by a transfer that
//! asks to be checked first: an inactive account refuses the transfer before anything is
//! recorded, reserved or sent. An operator whose protocol cannot tell (`Unknown`) lets it go:
//! the transfer is then checked by the operator when it pays.

use super::{PaymentError, PaymentRequest, Payments};
use crate::domain::{Msisdn, OperatorCode, Tenant};
use crate::operator::{AccountHolder, OperatorError};

impl Payments {
    /// What `operator` says of `phone` for `tenant`'s environment. Refused as a payment would
    /// be when no connector serves the operator there.
    pub async fn account_holder(
        &self,
        tenant: &Tenant,
        operator: OperatorCode,
        phone: &Msisdn,
    ) -> Result<AccountHolder, PaymentError> {
        if !self.operators.is_routed(operator, tenant.environment) {
            return Err(PaymentError::Unrouted(operator, tenant.environment));
        }
        // A lookup moves no money: on a route with a fallback, the next connector answers when
        // one could not be asked (its breaker open, its connection refused).
        let mut unchecked = None;
        for connector in self.operators.chain(operator, tenant.environment) {
            match connector.operator.account_holder(operator, phone).await {
                Ok(holder) => return Ok(holder),
                Err(e @ OperatorError::Transient(_)) => unchecked = Some(e),
                Err(e) => return Err(PaymentError::RecipientUnchecked(e.to_string())),
            }
        }
        let why = unchecked.map_or_else(|| "no connector".to_owned(), |e| e.to_string());
        Err(PaymentError::RecipientUnchecked(why))
    }

    /// Refuses a transfer to a number without an active account.
    pub(super) async fn check_recipient(&self, tenant: &Tenant, request: &PaymentRequest) -> Result<(), PaymentError> {
        match self.account_holder(tenant, request.operator, &request.phone).await? {
            AccountHolder::Inactive => Err(PaymentError::RecipientInactive(request.phone.clone())),
            AccountHolder::Active { .. } | AccountHolder::Unknown => Ok(()),
        }
    }
}
