//! The customer statements that both the merchant side (`insert_customer`) and payments (the
//! payer upsert of `insert_pending`) run, and the binding of a customer's columns.

use sqlx::query::Query;
use sqlx::{Database, Encode, Type};

use super::row_values::{ColumnType, RowValues};
use super::Column;
use crate::domain::Customer;

pub(in crate::store) const CUSTOMER_COLUMNS: &str =
    "id, merchant_id, environment, first_name, last_name, email, phone, country_code, city, street_address, created_at";

pub(in crate::store) const INSERT_CUSTOMER: &str =
    "INSERT INTO customers (id, merchant_id, environment, first_name, last_name, email, \
    phone, country_code, city, street_address, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)";

pub(in crate::store) const INSERT_CUSTOMER_CLAIMING_PHONE: &str =
    "INSERT INTO customers (id, merchant_id, environment, \
    first_name, last_name, email, phone, country_code, city, street_address, created_at, payer_phone) \
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $7) \
    ON CONFLICT (merchant_id, environment, payer_phone) DO NOTHING";

/// The payer upserts of creations: `PAYER_INSERT`, the rows of `payer_row`s
/// (`RowValues::source`), then `PAYER_ON_CONFLICT`.
pub(in crate::store) const PAYER_INSERT: &str = "INSERT INTO customers (id, merchant_id, environment, \
    first_name, last_name, email, phone, country_code, city, street_address, created_at, payer_phone)";

/// The latest name and email win; an address line is kept when the payment gives none.
pub(in crate::store) const PAYER_ON_CONFLICT: &str =
    "ON CONFLICT (merchant_id, environment, payer_phone) DO UPDATE SET \
    first_name = excluded.first_name, last_name = excluded.last_name, \
    email = COALESCE(excluded.email, customers.email), \
    city = COALESCE(excluded.city, customers.city), \
    street_address = COALESCE(excluded.street_address, customers.street_address) \
    RETURNING id, merchant_id, environment, first_name, last_name, email, phone, country_code, city, street_address, \
    created_at";

/// The columns of a `payer_row`.
pub(super) const PAYER_TYPES: [ColumnType; 12] = {
    use ColumnType::{Int, Text};
    [Text, Text, Text, Text, Text, Text, Text, Text, Text, Text, Int, Text]
};

/// A payer's row for `PAYER_INSERT`: the eleven columns of a customer, in `bind_customer`'s
/// order, then its phone again as `payer_phone`.
pub(super) fn payer_row(values: &mut RowValues, c: &Customer) {
    values
        .text(c.id.as_str())
        .text(c.tenant.merchant_id.0.as_str())
        .text(c.tenant.environment.as_str())
        .text(c.first_name.as_str())
        .text(c.last_name.as_str())
        .text(c.email.as_deref())
        .text(c.phone.as_str())
        .text(c.address.country_code.as_str())
        .text(c.address.city.as_deref())
        .text(c.address.street_address.as_deref())
        .int(c.created_at.millis())
        .text(c.phone.as_str());
}

/// Binds the eleven columns of a customer, in `INSERT_CUSTOMER` order.
pub(in crate::store) fn bind_customer<'q, DB>(
    query: Query<'q, DB, DB::Arguments<'q>>,
    c: &'q Customer,
) -> Query<'q, DB, DB::Arguments<'q>>
where
    DB: Database,
    for<'a> &'a str: Encode<'a, DB> + Type<DB>,
    for<'a> Option<&'a str>: Encode<'a, DB> + Type<DB>,
    String: Column<DB>,
    i64: Column<DB>,
{
    query
        .bind(&c.id)
        .bind(&c.tenant.merchant_id.0)
        .bind(c.tenant.environment.as_str())
        .bind(&c.first_name)
        .bind(&c.last_name)
        .bind(c.email.as_deref())
        .bind(c.phone.as_str())
        .bind(&c.address.country_code)
        .bind(c.address.city.as_deref())
        .bind(c.address.street_address.as_deref())
        .bind(c.created_at.millis())
}
