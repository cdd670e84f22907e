//! `ReportStore` for every [`Backend`]: the statement's page of postings with its opening
//! balances, and the settlement report's groups, each in one statement.

use super::kinds;
use super::transactions::{tenant_statement, Bind};
use super::{Args, Get};
use super::{Backend, SqlDb};
use crate::domain::statement::PostingSource;
use crate::domain::Francs;
use crate::domain::{
    Balance, Day, LedgerPosting, OperatorCode, PageRequest, Position, PostingPage, ReportScope, SettlementRow,
    StatementFilter, Tenant, Timestamp,
};
use crate::store::{names, ReportStore, StoreError};

/// A posting's stage within its millisecond, as `LedgerPosting::stage` defines it: money into
/// `available` first, money out of `reserved` last.
macro_rules! stage_of {
    ($p:literal) => {
        concat!(
            "(CASE WHEN ",
            $p,
            ".account = 'available' AND ",
            $p,
            ".amount > 0 THEN 0 WHEN ",
            $p,
            ".account = 'reserved' AND ",
            $p,
            ".amount < 0 THEN 2 ELSE 1 END)"
        )
    };
}

/// The page's postings (`page`), the position of its first (`first`), and the sums of each
/// account over the tenant's postings before that position (`opening`): the page's opening
/// balances, computed in the same statement, so on the same snapshot, as the page itself.
/// `{conditions}` narrows `page`; `$1`, `$2` are the tenant. Order: time, stage, id.
const STATEMENT: &str = concat!(
    "WITH page AS (",
    "SELECT p.id, p.entry_id, p.created_at, p.account, p.amount, p.transaction_id, ",
    stage_of!("p"),
    " AS stage FROM ledger_postings p ",
    "WHERE p.merchant_id = $1 AND p.environment = $2 AND p.account IN ('available', 'reserved'){conditions} ",
    "ORDER BY p.created_at, stage, p.id LIMIT {limit}), ",
    "first AS (SELECT created_at, stage, id FROM page ORDER BY created_at, stage, id LIMIT 1), ",
    "opening AS (",
    "SELECT CAST(COALESCE(SUM(CASE WHEN q.account = 'available' THEN q.amount ELSE 0 END), 0) AS BIGINT) AS available, ",
    "CAST(COALESCE(SUM(CASE WHEN q.account = 'reserved' THEN q.amount ELSE 0 END), 0) AS BIGINT) AS reserved ",
    "FROM ledger_postings q JOIN first f ON q.created_at <= f.created_at AND (q.created_at, ",
    stage_of!("q"),
    ", q.id) < (f.created_at, f.stage, f.id) ",
    "WHERE q.merchant_id = $1 AND q.environment = $2 AND q.account IN ('available', 'reserved')) ",
    "SELECT page.id, page.entry_id, page.created_at, page.account, page.amount, ",
    "t.ref, t.transaction_id AS merchant_transaction_id, t.kind, t.operator, t.status, t.link_id, ",
    "opening.available AS opening_available, opening.reserved AS opening_reserved ",
    "FROM page CROSS JOIN opening LEFT JOIN transactions t ON t.id = page.transaction_id ",
    "ORDER BY page.created_at, page.stage, page.id"
);

/// The condition that a posting `p` comes after the position `($a, $b, $c)`, after the plain
/// `p.created_at >= $a` that lets the index on (tenant, time) start at the position: neither
/// database reads a range out of a row comparison holding an expression.
const AFTER: &str = concat!(" AND (p.created_at, ", stage_of!("p"), ", p.id) > (");

/// The groups of a day, of environment `$1` and merchant `$2` (any when empty): pending
/// transactions created in `[$3, $4)`, through the partial index of pending ones, and final
/// ones whose final transition falls in `[$3, $4)`, found from that day's transitions (index on
/// `at`), not by looking up the transitions of every transaction of the environment. A final
/// status is reached once (a settlement is a conditional update from `PENDING`), so the join
/// counts each transaction once.
const SETTLEMENT: &str = "SELECT operator, kind, status, COUNT(*) AS n, \
       CAST(SUM(amount) AS BIGINT) AS amount, CAST(SUM(fees) AS BIGINT) AS fees, \
       CAST(SUM(CASE WHEN kind = 'collecte' THEN amount_receive ELSE amount_total END) AS BIGINT) AS net \
     FROM (\
       SELECT t.operator, t.kind, t.status, t.amount, t.fees, t.amount_receive, t.amount_total \
       FROM transactions t \
       WHERE t.status = 'PENDING' AND t.created_at >= $3 AND t.created_at < $4 \
         AND t.environment = $1 AND ($2 = '' OR t.merchant_id = $2) \
       UNION ALL \
       SELECT t.operator, t.kind, t.status, t.amount, t.fees, t.amount_receive, t.amount_total \
       FROM transaction_transitions tr JOIN transactions t ON t.id = tr.transaction_id \
       WHERE tr.at >= $3 AND tr.at < $4 AND tr.to_status <> 'PENDING' AND tr.to_status = t.status \
         AND t.environment = $1 AND ($2 = '' OR t.merchant_id = $2)\
     ) settled \
     GROUP BY operator, kind, status";

/// The conditions of a statement page from `$3` on.
fn statement_conditions(filter: &StatementFilter, page: &PageRequest) -> (String, Vec<Bind>) {
    let mut sql = String::new();
    let mut binds = Vec::new();
    if let Some(from) = filter.from {
        binds.push(Bind::Int(from.millis()));
        sql.push_str(&format!(" AND p.created_at >= ${}", binds.len() + 2));
    }
    if let Some(to) = filter.to {
        binds.push(Bind::Int(to.millis()));
        sql.push_str(&format!(" AND p.created_at < ${}", binds.len() + 2));
    }
    if let Some(after) = &page.after {
        let position = Position::of(after);
        binds.push(Bind::Int(position.at.millis()));
        binds.push(Bind::Int(i64::from(position.stage)));
        binds.push(Bind::Text(position.id));
        sql.push_str(&format!(
            " AND p.created_at >= ${a}{AFTER}${a}, ${}, ${})",
            binds.len() + 1,
            binds.len() + 2,
            a = binds.len()
        ));
    }
    (sql, binds)
}

#[async_trait::async_trait]
impl<S: Backend<Db = DB>, DB: SqlDb> ReportStore for S {
    async fn ledger_postings(
        &self,
        tenant: &Tenant,
        filter: &StatementFilter,
        page: &PageRequest,
    ) -> Result<PostingPage, StoreError> {
        let (conditions, binds) = statement_conditions(filter, page);
        let sql = STATEMENT
            .replace("{conditions}", &conditions)
            .replace("{limit}", &page.limit.to_string());
        let rows = tenant_statement::<DB>(&sql, tenant, binds)
            .fetch_all(DB::pool(self.reader()))
            .await?;
        let opening = match rows.first() {
            Some(row) => Balance {
                available: row.col("opening_available")?,
                reserved: row.col("opening_reserved")?,
            },
            None => Balance {
                available: Francs::ZERO,
                reserved: Francs::ZERO,
            },
        };
        let postings = rows.iter().map(posting::<DB>).collect::<Result<_, _>>()?;
        Ok(PostingPage { opening, postings })
    }

    async fn settlement_rows(&self, scope: &ReportScope, day: Day) -> Result<Vec<SettlementRow>, StoreError> {
        let rows = sqlx::query(SETTLEMENT)
            .arg(scope.environment.as_str())
            .arg(scope.merchant.as_ref().map(|m| m.as_str()).unwrap_or(""))
            .arg(day.start().millis())
            .arg(day.end().millis())
            .fetch_all(DB::pool(self.reader()))
            .await?;
        rows.iter()
            .map(|row| {
                let operator: String = row.col("operator")?;
                Ok(SettlementRow {
                    operator: OperatorCode::from_name(&operator)
                        .ok_or_else(|| StoreError::Corrupt(format!("operator {operator:?}")))?,
                    kind: kinds::parse_stored(&row.col::<String>("kind")?)?,
                    status: names::parse_status(&row.col::<String>("status")?)?,
                    count: row.col("n")?,
                    amount: row.col("amount")?,
                    fees: row.col("fees")?,
                    net: row.col("net")?,
                })
            })
            .collect()
    }
}

/// A statement row: the posting and, unless it is a credit from outside, its transaction.
fn posting<DB: SqlDb>(row: &DB::Row) -> Result<LedgerPosting, StoreError> {
    let reference: Option<String> = row.col("ref")?;
    let source = match reference {
        None => None,
        Some(reference) => {
            let operator: String = row.col("operator")?;
            Some(PostingSource {
                reference,
                transaction_id: row.col("merchant_transaction_id")?,
                kind: kinds::parse_stored(&row.col::<String>("kind")?)?,
                operator: OperatorCode::from_name(&operator)
                    .ok_or_else(|| StoreError::Corrupt(format!("operator {operator:?}")))?,
                status: names::parse_status(&row.col::<String>("status")?)?,
                link_id: row.col("link_id")?,
            })
        }
    };
    Ok(LedgerPosting {
        id: row.col("id")?,
        entry_id: row.col("entry_id")?,
        at: Timestamp(row.col("created_at")?),
        account: names::parse_account(&row.col::<String>("account")?)?,
        amount: row.col("amount")?,
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::Cursor;

    #[test]
    fn statement_conditions_number_their_values_after_the_tenant() {
        let filter = StatementFilter {
            from: Some(Timestamp(1)),
            to: Some(Timestamp(2)),
        };
        let page = PageRequest {
            limit: 3,
            after: Some(Cursor {
                created_at: Timestamp(1),
                id: "x".into(),
            }),
        };
        let (sql, binds) = statement_conditions(&filter, &page);
        let after = " AND (p.created_at, (CASE WHEN p.account = 'available' AND p.amount > 0 THEN 0 \
                     WHEN p.account = 'reserved' AND p.amount < 0 THEN 2 ELSE 1 END), p.id) > ";
        assert_eq!(
            sql,
            format!(" AND p.created_at >= $3 AND p.created_at < $4 AND p.created_at >= $5{after}($5, $6, $7)")
        );
        assert_eq!(binds.len(), 5);
        let (sql, _) = statement_conditions(&StatementFilter::default(), &page);
        assert_eq!(sql, format!(" AND p.created_at >= $3{after}($3, $4, $5)"));
    }
}
