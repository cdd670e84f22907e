//! Refunds: money of a `SUCCESSFUL` collection given back to its payer, through the operator
//! that took it. A refund is a payment of its own kind created through the same path as a
//! transfer (its total reserved, the operator asked, the outcome settled with its entry and
//! event); what it gives back is held on its collection in the database, in the transaction
//! that records it (`store::sql::kinds::refund`), so refunds that run at once never give back
//! more than the collection took.

use super::Requested;
use super::{Party, PaymentError, PaymentRequest, Payments, Refunded};
use crate::domain::{
    Amount, Environment, Kind, OperatorCode, RefundLink, RefundReason, Status, Tenant, Timestamp, TransactionId,
};
use crate::domain::{TransactionRecord, TransactionRef};
use crate::service::{Principal, ServiceError};

/// A merchant's refund of one of its collections.
#[derive(Debug, Clone)]
pub struct RefundRequest {
    /// The refund's own transaction id (unique per merchant and environment, as any).
    pub transaction_id: TransactionId,
    /// The collection, by the merchant's transaction id or the service reference.
    pub collection: TransactionRef,
    /// What to give back; all that remains of the collection when `None`.
    pub amount: Option<Amount>,
    /// Why, kept with the refund and shown wherever it is.
    pub reason: Option<RefundReason>,
}

/// Why a refund was not made, or was made and failed at once: what of a payment's creation can
/// befall a refund, and nothing else (it is paid through no link, and checks no recipient).
#[derive(Debug, thiserror::Error)]
pub enum RefundError {
    /// The refund's own transaction id is used: here is that transaction.
    #[error("transaction id already used")]
    Duplicate(Box<TransactionRecord>),
    /// The collection is no `SUCCESSFUL` collection, less of it remains than asked, or its
    /// operator refunds only in full. Nothing was written; the text says which.
    #[error("{0}")]
    NotRefundable(String),
    /// The collection's operator is not routed here any more. Nothing was written.
    #[error("{}", crate::operator::unrouted::reason(*.0, *.1))]
    Unrouted(OperatorCode, Environment),
    /// The collection's operator is disabled here for refunds. Nothing was written.
    #[error("{0} does not accept this kind of payment here")]
    OperatorDisabled(OperatorCode),
    /// The available balance does not cover the refund. Nothing was written.
    #[error("insufficient available balance")]
    InsufficientFunds,
    /// The operator refused at once: the refund is `FAILED`, its reservation released.
    #[error("the operator refused the payment")]
    Refused(Box<TransactionRecord>),
    /// The operator could not be reached: the refund is `FAILED` and nothing was sent.
    #[error("the operator is unavailable")]
    OperatorUnavailable(Box<TransactionRecord>),
    #[error(transparent)]
    Service(#[from] ServiceError),
}

service_errors_from_store!(RefundError);

/// A refund's creation goes the way of every payment's: its errors are the ones above. A link
/// or a recipient check, which a refund never has, failing it is a fault of ours.
impl From<PaymentError> for RefundError {
    fn from(e: PaymentError) -> Self {
        match e {
            PaymentError::Duplicate(existing) => RefundError::Duplicate(existing),
            PaymentError::NotRefundable(why) => RefundError::NotRefundable(why),
            PaymentError::Unrouted(operator, environment) => RefundError::Unrouted(operator, environment),
            PaymentError::OperatorDisabled(operator) => RefundError::OperatorDisabled(operator),
            PaymentError::InsufficientFunds => RefundError::InsufficientFunds,
            PaymentError::Refused(failed) => RefundError::Refused(failed),
            PaymentError::OperatorUnavailable(failed) => RefundError::OperatorUnavailable(failed),
            PaymentError::Service(e) => RefundError::Service(e),
            e @ (PaymentError::LinkClosed(_)
            | PaymentError::RecipientInactive(_)
            | PaymentError::RecipientUnchecked(_)) => {
                RefundError::Service(ServiceError::Internal(format!("a refund failed as no refund can: {e}")))
            }
        }
    }
}

/// The API reports a refund's refusal as any payment's (`api::payment_failure`).
impl From<RefundError> for PaymentError {
    fn from(e: RefundError) -> Self {
        match e {
            RefundError::Duplicate(existing) => PaymentError::Duplicate(existing),
            RefundError::NotRefundable(why) => PaymentError::NotRefundable(why),
            RefundError::Unrouted(operator, environment) => PaymentError::Unrouted(operator, environment),
            RefundError::OperatorDisabled(operator) => PaymentError::OperatorDisabled(operator),
            RefundError::InsufficientFunds => PaymentError::InsufficientFunds,
            RefundError::Refused(failed) => PaymentError::Refused(failed),
            RefundError::OperatorUnavailable(failed) => PaymentError::OperatorUnavailable(failed),
            RefundError::Service(e) => PaymentError::Service(e),
        }
    }
}

impl Payments {
    /// Refunds part or all of `caller`'s collection: the refund as created (`PENDING`, or
    /// final when the operator answered at once). The collection's fee is not given back.
    /// The caller's credential is checked with the refund's insert, as for any payment.
    pub async fn refund_as(
        &self,
        caller: &Principal,
        request: RefundRequest,
        now: Timestamp,
    ) -> Result<TransactionRecord, RefundError> {
        let payment = self.refund_payment(&caller.tenant, request).await?;
        Ok(self.create_payment_as(caller, payment, now).await?)
    }

    /// Refunds part or all of `tenant`'s collection on the word of an in-process caller with
    /// no credential to check (the command line, run by the operator's staff): the same
    /// checks and the same creation as [`refund_as`](Self::refund_as).
    pub async fn refund(
        &self,
        tenant: &Tenant,
        request: RefundRequest,
        now: Timestamp,
    ) -> Result<TransactionRecord, RefundError> {
        let payment = self.refund_payment(tenant, request).await?;
        Ok(self.create_payment(tenant, payment, now).await?)
    }

    /// The payment a refund is, once its collection is found refundable for what it asks.
    async fn refund_payment(&self, tenant: &Tenant, request: RefundRequest) -> Result<PaymentRequest, RefundError> {
        let collection = self
            .store
            .transaction(tenant, &request.collection)
            .await?
            .ok_or(ServiceError::NotFound("collection"))?;
        let c = &collection.transaction;
        if c.kind() != Kind::Collection {
            return Err(RefundError::NotRefundable(format!(
                "{} is a {}: only a collection can be refunded",
                c.transaction_id,
                c.kind().as_str()
            )));
        }
        if c.status != Status::Successful {
            return Err(RefundError::NotRefundable(format!(
                "{} is {}: only a SUCCESSFUL collection can be refunded",
                c.transaction_id,
                c.status.as_str()
            )));
        }
        // Read before the refund is recorded: a clear answer for the usual case. Under a race
        // the database decides (the refund's conditional hold on its collection).
        let remaining = (c.amounts.amount - c.purpose.refunded()).get();
        let amount = match request.amount {
            Some(amount) if amount.francs() <= remaining => amount,
            Some(amount) => {
                return Err(RefundError::NotRefundable(format!(
                    "{} francs asked, {remaining} remain to refund of {}",
                    amount.francs(),
                    c.transaction_id
                )))
            }
            None if remaining <= 0 => {
                return Err(RefundError::NotRefundable(format!(
                    "{} is refunded in full already",
                    c.transaction_id
                )))
            }
            None => Amount::from_francs(remaining).map_err(|e| {
                RefundError::NotRefundable(format!(
                    "{remaining} francs remain to refund of {}: {e}",
                    c.transaction_id
                ))
            })?,
        };
        let carrier = self.operators.carrier(c);
        if !carrier.refunds() {
            return Err(RefundError::NotRefundable(format!(
                "the connector that took {} from the payer gives no payment back: pay the payer with a transfer",
                c.transaction_id
            )));
        }
        if amount.francs() != c.amounts.amount.get() && !carrier.refunds_in_part() {
            return Err(RefundError::NotRefundable(format!(
                "{}'s operator gives a payment back only in full: leave the amount out to refund all \
                 {} francs, or pay the payer with a transfer",
                c.operator, c.amounts.amount
            )));
        }
        let payer = &collection.customer;
        let payment = PaymentRequest {
            transaction_id: request.transaction_id,
            operator: c.operator,
            operator_alias: c.operator_alias.clone(),
            phone: c.phone.clone(),
            phone_as_sent: c.phone_as_sent.clone(),
            amount,
            party: Party {
                first_name: payer.first_name.clone(),
                last_name: payer.last_name.clone(),
                email: payer.email.clone(),
                phone: payer.phone.clone(),
                address: payer.address.clone(),
            },
            purpose: Requested::Refund(Refunded {
                link: RefundLink {
                    collection: c.reference.clone(),
                    reason: request.reason,
                },
                key: c.id.clone(),
                connector: c.carrier.connector.clone(),
            }),
        };
        Ok(payment)
    }
}
