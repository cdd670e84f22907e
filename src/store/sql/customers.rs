//! The customer statements that both the merchant side (`insert_customer`) and payments (the
//! payer upsert of `insert_pending`, [`upsert_payers`]) run, and the binding of a customer's
//! columns.

use std::collections::HashMap;

use sqlx::query::Query;
use sqlx::{ColumnIndex, Database, Encode, Executor, Row, Transaction, Type};

use super::set_steps::CHUNK;
use super::{placeholders, Column, SqlDb};
use crate::domain::Customer;
use crate::store::{rows, StoreError};

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
const PAYER_INSERT: &str = "INSERT INTO customers (id, merchant_id, environment, \
    first_name, last_name, email, phone, country_code, city, street_address, created_at, payer_phone) VALUES";

/// The latest name and email win; an address line is kept when the payment gives none. A payer
/// who comes back unchanged, the usual case, is not written again (no page dirtied on SQLite, no
/// dead row version on PostgreSQL), and so not returned: [`upsert_payers`] reads it instead. On
/// PostgreSQL the conflicting row is locked all the same.
const PAYER_ON_CONFLICT: &str = "ON CONFLICT (merchant_id, environment, payer_phone) DO UPDATE SET \
    first_name = excluded.first_name, last_name = excluded.last_name, \
    email = COALESCE(excluded.email, customers.email), \
    city = COALESCE(excluded.city, customers.city), \
    street_address = COALESCE(excluded.street_address, customers.street_address) \
    WHERE customers.first_name <> excluded.first_name OR customers.last_name <> excluded.last_name \
    OR (excluded.email IS NOT NULL AND customers.email IS DISTINCT FROM excluded.email) \
    OR (excluded.city IS NOT NULL AND customers.city IS DISTINCT FROM excluded.city) \
    OR (excluded.street_address IS NOT NULL AND customers.street_address IS DISTINCT FROM excluded.street_address) \
    RETURNING id, merchant_id, environment, first_name, last_name, email, phone, country_code, city, street_address, \
    created_at";

/// Keeps a payer's row as stored, by its key.
fn keep<R>(stored: &mut HashMap<PayerKey, Customer>, row: &R) -> Result<(), StoreError>
where
    R: Row,
    &'static str: ColumnIndex<R>,
    for<'r> String: sqlx::Decode<'r, R::Database> + Type<R::Database>,
    for<'r> i64: sqlx::Decode<'r, R::Database> + Type<R::Database>,
{
    let customer = rows::customer(row)?;
    let key = (
        customer.tenant.merchant_id.0.clone(),
        customer.tenant.environment.as_str().to_owned(),
        row.try_get::<String, _>("phone")?,
    );
    stored.insert(key, customer);
    Ok(())
}

/// A payer's key: (merchant, environment, phone).
type PayerKey = (String, String, String);

fn payer_key(c: &Customer) -> PayerKey {
    (
        c.tenant.merchant_id.0.clone(),
        c.tenant.environment.as_str().to_owned(),
        c.phone.as_str().to_owned(),
    )
}

/// Upserts `payers` (no phone twice within a tenant) as a payment records its payer, and gives
/// each one as stored, in order: one multi-row upsert per chunk, then one read of those that came
/// back unchanged (not written, so not returned).
pub(in crate::store) async fn upsert_payers<DB>(
    tx: &mut Transaction<'_, DB>,
    payers: &[&Customer],
) -> Result<Vec<Customer>, StoreError>
where
    DB: SqlDb,
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    for<'q> &'q str: Encode<'q, DB> + Type<DB>,
    for<'q> Option<&'q str>: Encode<'q, DB> + Type<DB>,
    String: Column<DB>,
    i64: Column<DB>,
    Option<i64>: Column<DB>,
    &'static str: ColumnIndex<DB::Row>,
{
    let mut stored: HashMap<PayerKey, Customer> = HashMap::with_capacity(payers.len());
    for chunk in payers.chunks(CHUNK) {
        let sql = format!("{PAYER_INSERT} {} {PAYER_ON_CONFLICT}", payer_values::<DB>(chunk.len()));
        let mut query = sqlx::query(&sql);
        for c in chunk {
            query = bind_payer(query, c);
        }
        for row in query.fetch_all(&mut **tx).await? {
            keep(&mut stored, &row)?;
        }
    }
    let unchanged: Vec<&Customer> = payers
        .iter()
        .copied()
        .filter(|c| !stored.contains_key(&payer_key(c)))
        .collect();
    for chunk in unchanged.chunks(CHUNK) {
        let sql = format!(
            "WITH v(merchant_id, environment, payer_phone) AS (VALUES {}) \
             SELECT c.id, c.merchant_id, c.environment, c.first_name, c.last_name, c.email, c.phone, \
             c.country_code, c.city, c.street_address, c.created_at FROM customers c JOIN v \
             ON c.merchant_id = v.merchant_id AND c.environment = v.environment AND c.payer_phone = v.payer_phone",
            placeholders::<DB>(chunk.len(), 3)
        );
        let mut query = sqlx::query(&sql);
        for c in chunk {
            query = query
                .bind(c.tenant.merchant_id.0.as_str())
                .bind(c.tenant.environment.as_str())
                .bind(c.phone.as_str());
        }
        for row in query.fetch_all(&mut **tx).await? {
            keep(&mut stored, &row)?;
        }
    }
    payers
        .iter()
        .map(|c| {
            stored
                .get(&payer_key(c))
                .cloned()
                .ok_or_else(|| StoreError::Corrupt("a payer's upsert left no row".into()))
        })
        .collect()
}

/// The `VALUES` of `rows` payers bound with `bind_payer`: twelve columns a row.
fn payer_values<DB: Database>(rows: usize) -> String {
    super::placeholders::<DB>(rows, 12)
}

/// Binds a payer for `payer_values`: the eleven columns of a customer, then its phone again as
/// `payer_phone`.
fn bind_payer<'q, DB>(query: Query<'q, DB, DB::Arguments<'q>>, c: &'q Customer) -> Query<'q, DB, DB::Arguments<'q>>
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
