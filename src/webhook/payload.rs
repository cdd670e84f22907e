//! The webhook body: the v1 transaction shape with its customer, nothing else.

use crate::api::v1::transactions::TransactionOut;
use crate::store::TransactionRecord;

/// The JSON body delivered for a transaction, frozen when its event is written so every
/// attempt sends the same bytes.
pub fn body(record: &TransactionRecord) -> String {
    serde_json::to_string(&TransactionOut::from(record)).unwrap_or_else(|_| "{}".to_owned())
}
