//! How transactions are read: the columns of a transaction with its customer, and the
//! conditions of a filtered, paged transaction list.

use std::sync::LazyLock;

use super::driver::{Arg, Statement};
use super::{kinds, Args, SqlDb};
use crate::domain::{PageRequest, Tenant, TransactionRecord};
use crate::store::{names, rows, StoreError, TransactionFilter};
use sqlx::Pool;

/// The columns every transaction has (`t.`), before its kind's own (`kinds::SELECTED`).
const COMMON_COLUMNS: &str = "t.id, t.ref, t.merchant_id, t.environment, t.transaction_id, \
    t.kind, t.operator, t.operator_alias, t.phone, t.phone_as_sent, t.amount, t.fees, t.amount_receive, t.amount_total, \
    t.status, t.customer_id, t.name, t.email, t.failure_code, t.failure_reason, t.created_at, t.updated_at, t.connector, t.operator_token";

/// The columns of its customer (`c.`).
const CUSTOMER_COLUMNS: &str = "c.first_name AS c_first_name, c.last_name AS c_last_name, c.email AS c_email, \
    c.phone AS c_phone, c.country_code AS c_country_code, c.city AS c_city, \
    c.street_address AS c_street_address, c.created_at AS c_created_at";

/// The columns of a transaction and its customer, as `rows::transaction_record` reads them.
pub(in crate::store) static TRANSACTION_COLUMNS: LazyLock<String> =
    LazyLock::new(|| format!("{COMMON_COLUMNS}, {}, {CUSTOMER_COLUMNS}", *kinds::SELECTED));
/// A transaction joined to its customer.
pub(in crate::store) const TRANSACTION_FROM: &str = "transactions t JOIN customers c ON c.id = t.customer_id";
/// A transaction with its customer: add the conditions.
pub(in crate::store) static TRANSACTION_SELECT: LazyLock<String> =
    LazyLock::new(|| format!("SELECT {} FROM {TRANSACTION_FROM}", *TRANSACTION_COLUMNS));

/// The transactions a claim just marked with `token`, oldest first, read on the writer's `pool`,
/// where the claim committed.
pub(in crate::store) async fn claimed_by<DB: SqlDb>(
    pool: &Pool<DB>,
    token: &str,
) -> Result<Vec<TransactionRecord>, StoreError> {
    let sql = format!(
        "{} WHERE t.check_token = $1 ORDER BY t.created_at, t.id",
        *TRANSACTION_SELECT
    );
    let rows = sqlx::query(&sql).arg(token).fetch_all(DB::pool(pool)).await?;
    rows.iter().map(rows::transaction_record).collect()
}

/// A value bound to a dynamically built query.
pub(in crate::store) enum Bind {
    Text(String),
    Int(i64),
}

impl<'q> Arg<'q> for Bind {
    fn bind_to<DB: SqlDb>(self, query: Statement<'q, DB>) -> Statement<'q, DB> {
        match self {
            Bind::Text(text) => query.arg(text),
            Bind::Int(int) => query.arg(int),
        }
    }
}

/// A statement over a tenant's records whose conditions were built at run time: the tenant
/// binds `$1`, `$2`, and `binds` the values from `$3` on, as the conditions number them.
pub(in crate::store) fn tenant_statement<'q, DB: SqlDb>(
    sql: &'q str,
    tenant: &'q Tenant,
    binds: Vec<Bind>,
) -> Statement<'q, DB> {
    let query = sqlx::query(sql)
        .arg(tenant.merchant_id.as_str())
        .arg(tenant.environment.as_str());
    binds.into_iter().fold(query, Args::arg)
}

/// The WHERE clause of a transaction list, and its values from `$3` on (`$1`, `$2` are the tenant).
pub(in crate::store) fn list_conditions(filter: &TransactionFilter, page: &PageRequest) -> (String, Vec<Bind>) {
    let mut sql = String::from(" WHERE t.merchant_id = $1 AND t.environment = $2");
    let mut binds = Vec::new();
    let mut add = |condition: &str, values: Vec<Bind>, binds: &mut Vec<Bind>| {
        let mut text = condition.to_owned();
        for (i, value) in values.into_iter().enumerate() {
            text = text.replace(&format!("?{}", i + 1), &format!("${}", binds.len() + 3));
            binds.push(value);
        }
        sql.push_str(&text);
    };
    if let Some(status) = filter.status {
        add(
            " AND t.status = ?1",
            vec![Bind::Text(names::status(status).to_owned())],
            &mut binds,
        );
    }
    if let Some(kind) = filter.kind {
        add(
            " AND t.kind = ?1",
            vec![Bind::Text(kinds::stored_name(kind).to_owned())],
            &mut binds,
        );
    }
    if let Some(operator) = filter.operator {
        add(
            " AND t.operator = ?1",
            vec![Bind::Text(operator.name().to_owned())],
            &mut binds,
        );
    }
    if let Some(phone) = &filter.phone {
        add(
            " AND t.phone = ?1",
            vec![Bind::Text(phone.as_str().to_owned())],
            &mut binds,
        );
    }
    if let Some(collection) = &filter.refund_of {
        add(
            " AND t.refund_of = ?1",
            vec![Bind::Text(collection.as_str().to_owned())],
            &mut binds,
        );
    }
    if let Some(link) = &filter.link {
        // Served by `transactions_by_link (link_id, created_at) WHERE link_id IS NOT NULL`.
        add(
            " AND t.link_id = ?1",
            vec![Bind::Text(link.as_str().to_owned())],
            &mut binds,
        );
    }
    if let Some(batch) = &filter.batch {
        // Served by `transactions_by_batch (batch_id, created_at) WHERE batch_id IS NOT NULL`.
        add(
            " AND t.batch_id = ?1",
            vec![Bind::Text(batch.as_str().to_owned())],
            &mut binds,
        );
    }
    if let Some(from) = filter.from {
        add(" AND t.created_at >= ?1", vec![Bind::Int(from.millis())], &mut binds);
    }
    if let Some(to) = filter.to {
        add(" AND t.created_at < ?1", vec![Bind::Int(to.millis())], &mut binds);
    }
    if let Some(after) = &page.after {
        add(
            " AND (t.created_at, t.id) < (?1, ?2)",
            vec![Bind::Int(after.created_at.millis()), Bind::Text(after.id.clone())],
            &mut binds,
        );
    }
    (sql, binds)
}
