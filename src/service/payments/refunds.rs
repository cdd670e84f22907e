//! Refunds: money of a `SUCCESSFUL` collection given back to its payer, through the operator
//! that took it. A refund is a payment of its own kind created through the same path as a
//! transfer (its total reserved, the operator asked, the outcome settled with its entry and
//! event); what it gives back is held on its collection in the database, in the transaction
//! that records it (`store::sql::refund_steps`), so refunds that run at once never give back
//! more than the collection took.

use super::{Party, PaymentError, PaymentRequest, Payments, Refunded};
use crate::domain::{Amount, Kind, RefundLink, RefundReason, Status, Tenant, Timestamp, TransactionId};
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

impl Payments {
    /// Refunds part or all of `caller`'s collection: the refund as created (`PENDING`, or
    /// final when the operator answered at once). The collection's fee is not given back.
    /// The caller's credential is checked with the refund's insert, as for any payment.
    pub async fn refund_as(
        &self,
        caller: &Principal,
        request: RefundRequest,
        now: Timestamp,
    ) -> Result<TransactionRecord, PaymentError> {
        let payment = self.refund_payment(&caller.tenant, request).await?;
        self.create_payment_as(caller, payment, now).await
    }

    /// Refunds part or all of `tenant`'s collection on the word of an in-process caller with
    /// no credential to check (the command line, run by the operator's staff): the same
    /// checks and the same creation as [`refund_as`](Self::refund_as).
    pub async fn refund(
        &self,
        tenant: &Tenant,
        request: RefundRequest,
        now: Timestamp,
    ) -> Result<TransactionRecord, PaymentError> {
        let payment = self.refund_payment(tenant, request).await?;
        self.create_payment(tenant, payment, now).await
    }

    /// The payment a refund is, once its collection is found refundable for what it asks.
    async fn refund_payment(&self, tenant: &Tenant, request: RefundRequest) -> Result<PaymentRequest, PaymentError> {
        let collection = self
            .store
            .transaction(tenant, &request.collection)
            .await?
            .ok_or(ServiceError::NotFound("collection"))?;
        let c = &collection.transaction;
        if c.kind != Kind::Collection {
            return Err(PaymentError::NotRefundable(format!(
                "{} is a {}: only a collection can be refunded",
                c.transaction_id,
                c.kind.as_str()
            )));
        }
        if c.status != Status::Successful {
            return Err(PaymentError::NotRefundable(format!(
                "{} is {}: only a SUCCESSFUL collection can be refunded",
                c.transaction_id,
                c.status.as_str()
            )));
        }
        // Read before the refund is recorded: a clear answer for the usual case. Under a race
        // the database decides (the refund's conditional hold on its collection).
        let remaining = c.amounts.amount - c.refunded;
        let amount = match request.amount {
            Some(amount) if amount.francs() <= remaining => amount,
            Some(amount) => {
                return Err(PaymentError::NotRefundable(format!(
                    "{} francs asked, {remaining} remain to refund of {}",
                    amount.francs(),
                    c.transaction_id
                )))
            }
            None if remaining <= 0 => {
                return Err(PaymentError::NotRefundable(format!(
                    "{} is refunded in full already",
                    c.transaction_id
                )))
            }
            None => Amount::from_francs(remaining).map_err(|e| {
                PaymentError::NotRefundable(format!(
                    "{remaining} francs remain to refund of {}: {e}",
                    c.transaction_id
                ))
            })?,
        };
        if amount.francs() != c.amounts.amount
            && !self
                .operators
                .connector(c.operator, tenant.environment)
                .refunds_in_part()
        {
            return Err(PaymentError::NotRefundable(format!(
                "{}'s operator gives a payment back only in full: leave the amount out to refund all \
                 {} francs, or pay the payer with a transfer",
                c.operator, c.amounts.amount
            )));
        }
        let payer = &collection.customer;
        let payment = PaymentRequest {
            kind: Kind::Refund,
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
            otp_code: None,
            success_url: None,
            error_url: None,
            link: None,
            check_recipient: false,
            batch: None,
            refund_of: Some(Refunded {
                link: RefundLink {
                    collection: c.reference.clone(),
                    reason: request.reason,
                },
                key: c.id.clone(),
            }),
        };
        Ok(payment)
    }
}
