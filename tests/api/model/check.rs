//! The comparison after every step: the gateway holds exactly the model's payments, each in the
//! model's state, every balance is the model's, and money is conserved in both.
//!
//! The service shows only `available` and `reserved`; the other two ledger accounts (money on
//! the operators' side, fee revenue) are read from the ledger's postings, so a wrong fee or a
//! settlement that moves the wrong account is seen even when both balances look right.

use std::collections::BTreeMap;

use momo_gateway::domain::{
    FailureCode, Kind, OperatorCode, PageRequest, Status, Timestamp, Transaction, TransactionFilter,
};
use sqlx::postgres::PgPoolOptions;
use sqlx::sqlite::SqlitePoolOptions;
use sqlx::{PgPool, Row, SqlitePool};

use super::run::World;
use super::state::{Accounts, Payment};
use momo_test_support::Backend;

/// What is compared of one payment.
#[derive(Debug, PartialEq, Eq)]
struct View<'a> {
    transaction_id: &'a str,
    kind: Kind,
    operator: OperatorCode,
    phone_ending: &'a str,
    /// amount, fees, amount received, amount total
    amounts: (i64, i64, i64, i64),
    created_at: Timestamp,
    status: Status,
    failure: Option<FailureCode>,
    updated_at: Option<Timestamp>,
    payer_page: bool,
}

fn model_view(p: &Payment) -> View<'_> {
    View {
        transaction_id: &p.transaction_id,
        kind: p.kind,
        operator: p.operator,
        phone_ending: p.script.digits(),
        amounts: (p.amount, p.fees, p.receive(), p.total()),
        created_at: p.created_at,
        status: p.status,
        failure: p.failure,
        updated_at: p.updated_at,
        payer_page: p.has_payer_page,
    }
}

fn gateway_view(t: &Transaction) -> View<'_> {
    View {
        transaction_id: &t.transaction_id,
        kind: t.kind(),
        operator: t.operator,
        phone_ending: t.phone.last_two_digits(),
        amounts: (
            t.amounts.amount.get(),
            t.amounts.fees.get(),
            t.amounts.amount_receive.get(),
            t.amounts.amount_total.get(),
        ),
        created_at: t.created_at,
        status: t.status,
        failure: t.failure_code,
        updated_at: t.updated_at,
        payer_page: t.purpose.checkout_token().is_some(),
    }
}

/// The gateway's transaction is the model's payment.
pub fn same_payment(p: &Payment, t: &Transaction) -> Result<(), String> {
    let (expected, actual) = (model_view(p), gateway_view(t));
    if expected == actual {
        Ok(())
    } else {
        Err(format!(
            "payment {} (script {:?}) differs\n  gateway: {actual:?}\n  model:   {expected:?}",
            p.transaction_id, p.script
        ))
    }
}

fn money(what: &str, tenant: usize, gateway: (i64, i64), model: (i64, i64)) -> Result<(), String> {
    if gateway == model {
        Ok(())
    } else {
        Err(format!(
            "tenant {tenant}: the gateway's {what} are {gateway:?}, the model's {model:?}"
        ))
    }
}

impl World {
    pub(super) async fn check(&self) -> Result<(), String> {
        self.model.check_invariants()?;
        for (t, tenant) in self.tenants.iter().enumerate() {
            let page = PageRequest {
                limit: 1000,
                after: None,
            };
            let stored = self
                .gateway
                .payments
                .transactions(tenant, &TransactionFilter::default(), &page)
                .await
                .map_err(|e| format!("list: {e}"))?;
            let mut stored: BTreeMap<&str, &Transaction> = stored
                .iter()
                .map(|r| (r.transaction.transaction_id.as_str(), &r.transaction))
                .collect();
            for p in self.model.payments.iter().filter(|p| p.tenant == t) {
                let Some(found) = stored.remove(p.transaction_id.as_str()) else {
                    return Err(format!("tenant {t}: payment {} is missing", p.transaction_id));
                };
                same_payment(p, found)?;
            }
            if let Some(extra) = stored.keys().next() {
                return Err(format!(
                    "tenant {t}: the gateway has a payment the model has not: {extra}"
                ));
            }
            let a = self.model.tenants[t];
            let balance = self
                .gateway
                .balances
                .balance(tenant)
                .await
                .map_err(|e| format!("balance: {e}"))?;
            money(
                "available and reserved",
                t,
                (balance.available.get(), balance.reserved.get()),
                (a.available, a.reserved),
            )?;
            let posted = self.ledger.accounts(tenant).await?;
            money(
                "postings to available and reserved",
                t,
                (posted.available, posted.reserved),
                (a.available, a.reserved),
            )?;
            money(
                "postings to operator clearing and fee revenue",
                t,
                (posted.operator_clearing, posted.fee_revenue),
                (a.operator_clearing, a.fee_revenue),
            )?;
        }
        let ledger = self
            .gateway
            .payments
            .check_ledger()
            .await
            .map_err(|e| format!("ledger check: {e}"))?;
        let found = (
            ledger.postings_sum,
            ledger.inconsistent_balances,
            ledger.final_without_one_event,
        );
        if found != (0, 0, 0) {
            return Err(format!(
                "ledger check (postings sum, inconsistent balances, final without one event) is {found:?}"
            ));
        }
        Ok(())
    }
}

/// Reads the ledger's postings by account, beside the gateway.
pub(super) enum LedgerReader {
    Sqlite(SqlitePool),
    Postgres(PgPool),
}

const ACCOUNT_SUMS: &str = "SELECT account, CAST(SUM(amount) AS BIGINT) AS total FROM ledger_postings \
     WHERE merchant_id = $1 AND environment = $2 GROUP BY account";

impl LedgerReader {
    pub(super) async fn connect(backend: Backend, url: &str) -> Result<LedgerReader, String> {
        let failed = |e: sqlx::Error| format!("ledger reader: {e}");
        Ok(match backend {
            Backend::Sqlite => LedgerReader::Sqlite(
                SqlitePoolOptions::new()
                    .max_connections(1)
                    .connect(url)
                    .await
                    .map_err(failed)?,
            ),
            Backend::Postgres => LedgerReader::Postgres(
                PgPoolOptions::new()
                    .max_connections(1)
                    .connect(url)
                    .await
                    .map_err(failed)?,
            ),
        })
    }

    async fn accounts(&self, tenant: &momo_gateway::domain::Tenant) -> Result<Accounts, String> {
        let (merchant, environment) = (tenant.merchant_id.as_str(), tenant.environment.as_str());
        let failed = |e: sqlx::Error| format!("ledger postings: {e}");
        let rows: Vec<(String, i64)> = match self {
            LedgerReader::Sqlite(pool) => sqlx::query(ACCOUNT_SUMS)
                .bind(merchant)
                .bind(environment)
                .fetch_all(pool)
                .await
                .map_err(failed)?
                .iter()
                .map(|r| (r.get("account"), r.get("total")))
                .collect(),
            LedgerReader::Postgres(pool) => sqlx::query(ACCOUNT_SUMS)
                .bind(merchant)
                .bind(environment)
                .fetch_all(pool)
                .await
                .map_err(failed)?
                .iter()
                .map(|r| (r.get("account"), r.get("total")))
                .collect(),
        };
        let mut a = Accounts::default();
        for (account, total) in rows {
            match account.as_str() {
                "available" => a.available = total,
                "reserved" => a.reserved = total,
                "operator_clearing" => a.operator_clearing = total,
                "fee_revenue" => a.fee_revenue = total,
                other => return Err(format!("a posting to an unknown account {other:?}")),
            }
        }
        Ok(a)
    }

    pub(super) async fn close(&self) {
        match self {
            LedgerReader::Sqlite(pool) => pool.close().await,
            LedgerReader::Postgres(pool) => pool.close().await,
        }
    }
}
