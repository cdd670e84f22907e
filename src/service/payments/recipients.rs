//! The recipient check: whether a number holds an active account with its operator, and whose,
//! asked before money is sent there. Asked on its own (`account_holder`), or by a transfer that
//! asks to be checked first: an inactive account refuses the transfer before anything is
//! recorded, reserved or sent. An operator whose protocol cannot tell (`Unknown`) lets it go:
//! the transfer is then checked by the operator when it pays.

use super::{PaymentError, PaymentRequest, Payments};
use crate::domain::{Msisdn, OperatorCode, Tenant};
use crate::operator::AccountHolder;

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
        self.operators
            .connector(operator, tenant.environment)
            .account_holder(operator, phone)
            .await
            .map_err(|e| PaymentError::RecipientUnchecked(e.to_string()))
    }

    /// Refuses a transfer to a number without an active account.
    pub(super) async fn check_recipient(&self, tenant: &Tenant, request: &PaymentRequest) -> Result<(), PaymentError> {
        match self.account_holder(tenant, request.operator, &request.phone).await? {
            AccountHolder::Inactive => Err(PaymentError::RecipientInactive(request.phone.clone())),
            AccountHolder::Active { .. } | AccountHolder::Unknown => Ok(()),
        }
    }
}
