//! A new transaction's row as a creation inserts it: its columns and their values, in one
//! order, for the creations' multi-row INSERT (`writer::create`). The columns every
//! transaction has are here; those only one kind of payment fills are its own (`kinds`).

use std::sync::LazyLock;

use super::kinds;
use super::row_values::{ColumnType, Columns, RowValues};
use crate::domain::{Timestamp, Transaction};
use crate::store::names;

/// The columns a creation writes, in `transaction_row` order.
pub(super) static INSERTED_COLUMNS: LazyLock<Vec<(&'static str, ColumnType)>> =
    LazyLock::new(|| kinds::inserted_columns(COMMON_COLUMNS));

/// The columns every transaction has, as its creation writes them.
const COMMON_COLUMNS: &Columns = {
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
        ("created_at", Int),
        ("next_check_at", Int),
        ("operator_alias", Text),
        ("connector", Text),
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
        .text(kinds::stored_name(t.kind()))
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
        .int(t.created_at.millis())
        .int(first_check.millis())
        .text(t.operator_alias.as_deref())
        .text(t.carrier.connector.as_deref());
    kinds::insert_row(values, t);
}
