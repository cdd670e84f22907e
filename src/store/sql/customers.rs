//! The customer statements that both the merchant side (`insert_customer`) and payments (the
//! payer upsert of `insert_pending`) run, and the binding of a customer's columns.

use sqlx::query::Query;
use sqlx::{Database, Encode, Type};

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

/// The payer upserts of creations: `PAYER_INSERT`, `payer_values(n)`, then `PAYER_ON_CONFLICT`.
pub(in crate::store) const PAYER_INSERT: &str = "INSERT INTO customers (id, merchant_id, environment, \
    first_name, last_name, email, phone, country_code, city, street_address, created_at, payer_phone) VALUES";

/// The latest name and email win; an address line is kept when the payment gives none.
pub(in crate::store) const PAYER_ON_CONFLICT: &str =
    "ON CONFLICT (merchant_id, environment, payer_phone) DO UPDATE SET \
    first_name = excluded.first_name, last_name = excluded.last_name, \
    email = COALESCE(excluded.email, customers.email), \
    city = COALESCE(excluded.city, customers.city), \
    street_address = COALESCE(excluded.street_address, customers.street_address) \
    RETURNING id, merchant_id, environment, first_name, last_name, email, phone, country_code, city, street_address, \
    created_at";

/// The `VALUES` of `rows` payers bound with `bind_payer`: twelve columns a row.
pub(in crate::store) fn payer_values<DB: Database>(rows: usize) -> String {
    super::placeholders::<DB>(rows, 12)
}

/// Binds a payer for `payer_values`: the eleven columns of a customer, then its phone again as
/// `payer_phone`.
pub(in crate::store) fn bind_payer<'q, DB>(
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
    bind_customer(query, c).bind(c.phone.as_str())
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
