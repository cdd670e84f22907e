//! What the gateway reads back about transactions: a transaction with its customer, and the
//! filters of transaction lists.

use super::customer::Customer;
use super::ids::Reference;
use super::link::LinkId;
use super::msisdn::Msisdn;
use super::operator::OperatorCode;
use super::page::{Cursor, Paged};
use super::payout_batch::BatchId;
use super::purpose::Kind;
use super::time::Timestamp;
use super::transaction::{Status, Transaction};

/// A transaction together with its customer record, as every answer shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TransactionRecord {
    pub transaction: Transaction,
    pub customer: Customer,
}

impl Paged for TransactionRecord {
    fn cursor(&self) -> Cursor {
        Cursor::at(self.transaction.created_at, &self.transaction.id)
    }
}

/// Filters of transaction lists. Every field narrows the list.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TransactionFilter {
    pub status: Option<Status>,
    pub kind: Option<Kind>,
    pub operator: Option<OperatorCode>,
    pub phone: Option<Msisdn>,
    /// Created at or after.
    pub from: Option<Timestamp>,
    /// Created before.
    pub to: Option<Timestamp>,
    /// Only the refunds of the collection with this reference.
    pub refund_of: Option<Reference>,
    /// Only the payments made through this payment link.
    pub link: Option<LinkId>,
    /// Only the transfers of this payout batch.
    pub batch: Option<BatchId>,
}
