//! A new transaction's row as a creation inserts it: its columns and their values, in one
//! order, for `insert_set`'s multi-row INSERT.

use super::row_values::{ColumnType, Columns, RowValues};
use crate::domain::{BatchId, LinkId, Timestamp, Transaction};
use crate::store::names;

/// The columns a creation writes, in `transaction_row` order.
pub(super) const INSERTED_COLUMNS: &Columns = {
    use ColumnType::{Int, Text};
    &[
        ("id", Text),
        ("ref", Text),
        ("merchant_id", Text),
        ("environment", Text),
        ("transaction_id", Text),
        ("kind", Text),
        ("operator", Text),
        ("phone", Text),
        ("phone_as_sent", Text),
        ("amount", Int),
        ("fees", Int),
        ("amount_receive", Int),
        ("amount_total", Int),
        ("status", Text),
        ("customer_id", Text),
        ("name", Text),
        ("email", Text),
        ("success_url", Text),
        ("error_url", Text),
        ("created_at", Int),
        ("checkout_token", Text),
        ("next_check_at", Int),
        ("operator_alias", Text),
        ("refund_of", Text),
        ("refund_reason", Text),
        ("link_id", Text),
        ("batch_id", Text),
        ("queued_at", Int),
    ]
};

/// A new transaction's row of `INSERTED_COLUMNS`.
pub(super) fn transaction_row(values: &mut RowValues, t: &Transaction, customer_id: &str, first_check: Timestamp) {
    values
        .text(t.id.as_str())
        .text(t.reference.as_str())
        .text(t.tenant.merchant_id.as_str())
        .text(t.tenant.environment.as_str())
        .text(t.transaction_id.as_str())
        .text(names::kind(t.kind()))
        .text(t.operator.name())
        .text(t.phone.as_str())
        .text(t.phone_as_sent.as_str())
        .int(t.amounts.amount.get())
        .int(t.amounts.fees.get())
        .int(t.amounts.amount_receive.get())
        .int(t.amounts.amount_total.get())
        .text(names::status(t.status))
        .text(customer_id)
        .text(t.name.as_str())
        .text(t.email.as_deref())
        .text(t.purpose.return_url(true))
        .text(t.purpose.return_url(false))
        .int(t.created_at.millis())
        .text(t.purpose.checkout_token())
        .int(first_check.millis())
        .text(t.operator_alias.as_deref())
        .text(t.purpose.refund_of().map(|r| r.collection.as_str()))
        .text(t.purpose.refund_reason())
        .text(t.purpose.link().map(LinkId::as_str))
        .text(t.purpose.batch().map(BatchId::as_str))
        // A batch's transfer waits for the payout sender (`payouts`); any other is sent at once.
        .int(t.purpose.batch().map(|_| t.created_at.millis()));
}
