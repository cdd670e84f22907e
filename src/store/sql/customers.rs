//! The customer statements that both the merchant side (`insert_customer`) and payments (the
//! payer upsert of `insert_pending`) run, and a customer's row for them.

use std::sync::LazyLock;

use super::row_values::ColumnType::{self, Int, Text};
use super::row_values::{column_names, Columns, RowValues};
use crate::domain::Customer;

/// A customer's columns as an SQL list, for the SELECTs and `RETURNING`s that read one back
/// (`rows::customer`): the names of `CUSTOMER_ROW`.
pub(in crate::store) static CUSTOMER_COLUMNS: LazyLock<String> = LazyLock::new(|| column_names(&CUSTOMER_ROW));

/// A customer made by a merchant that also claims its phone's payer key, when no record holds
/// it yet: the row of a `payer_row`, then `CLAIM_PHONE`.
pub(in crate::store) const CLAIM_PHONE: &str = "ON CONFLICT (merchant_id, environment, payer_phone) DO NOTHING";

/// The end of a creation's payer upsert, after the rows of its `payer_row`s: the latest name
/// and email win; an address line is kept when the payment gives none. A payer known only by
/// their number (first name the number, no last name: a payment link's payer, who gives no
/// name) leaves the stored name as it is, so an anonymous payment never erases what the
/// merchant recorded.
pub(in crate::store) static PAYER_ON_CONFLICT: LazyLock<String> = LazyLock::new(|| {
    const ANONYMOUS: &str = "excluded.first_name = excluded.phone AND excluded.last_name = ''";
    format!(
        "ON CONFLICT (merchant_id, environment, payer_phone) DO UPDATE SET \
        first_name = CASE WHEN {ANONYMOUS} THEN customers.first_name ELSE excluded.first_name END, \
        last_name = CASE WHEN {ANONYMOUS} THEN customers.last_name ELSE excluded.last_name END, \
        email = COALESCE(excluded.email, customers.email), \
        city = COALESCE(excluded.city, customers.city), \
        street_address = COALESCE(excluded.street_address, customers.street_address) \
        RETURNING {}",
        *CUSTOMER_COLUMNS
    )
});

/// The columns of a `customer_row`.
pub(super) const CUSTOMER_ROW_COLUMNS: &Columns = &CUSTOMER_ROW;

const CUSTOMER_ROW: [(&str, ColumnType); 11] = [
    ("id", Text),
    ("merchant_id", Text),
    ("environment", Text),
    ("first_name", Text),
    ("last_name", Text),
    ("email", Text),
    ("phone", Text),
    ("country_code", Text),
    ("city", Text),
    ("street_address", Text),
    ("created_at", Int),
];

/// A customer's row of `CUSTOMER_ROW_COLUMNS`.
pub(super) fn customer_row(values: &mut RowValues, c: &Customer) {
    values
        .text(c.id.as_str())
        .text(c.tenant.merchant_id.as_str())
        .text(c.tenant.environment.as_str())
        .text(c.first_name.as_str())
        .text(c.last_name.as_str())
        .text(c.email.as_deref())
        .text(c.phone.as_str())
        .text(c.address.country_code.as_str())
        .text(c.address.city.as_deref())
        .text(c.address.street_address.as_deref())
        .int(c.created_at.millis());
}

/// The columns of a `payer_row`: a customer's, then `payer_phone`.
pub(super) const PAYER_COLUMNS: &Columns = &{
    let mut columns = [("payer_phone", Text); CUSTOMER_ROW.len() + 1];
    let mut i = 0;
    while i < CUSTOMER_ROW.len() {
        columns[i] = CUSTOMER_ROW[i];
        i += 1;
    }
    columns
};

/// A payer's row of `PAYER_COLUMNS`: a `customer_row`, then its phone again as `payer_phone`.
pub(super) fn payer_row(values: &mut RowValues, c: &Customer) {
    customer_row(values, c);
    values.text(c.phone.as_str());
}
