//! The `WebhookStore` methods for every [`Backend`]: the same SQL on both databases except the
//! claim, which each backend supplies as `Backend::CLAIM_DUE_EVENTS` (`FOR UPDATE SKIP LOCKED`
//! on PostgreSQL; SQLite's single writer already serializes claims).

use super::{Args, Get};
use super::{Backend, RowsAffected, SqlDb};
use crate::domain::{FailedEvents, PageRequest, Tenant, Timestamp};
use crate::store::names;
use crate::store::{
    rows, Attempt, DueEvent, EventFilter, EventSummary, Finished, LeasedEvent, StoreError, WebhookStore,
};

/// The columns of an event summary, as `rows::event_summary` reads them.
const EVENT_SELECT: &str = "SELECT e.id, e.merchant_id, e.environment, e.to_status, e.state, e.attempts, \
    e.next_attempt_at, e.last_error, e.created_at, e.delivered_at, e.payload, t.ref, t.transaction_id \
    FROM outbox_events e JOIN transactions t ON t.id = e.transaction_id";

/// `$1`, `$2`: the tenant, or empty strings for every tenant. The lists show the events of
/// transactions: a payout batch's completion rides on its last item's row in the outbox
/// (`kinds::transfer`) but is no event of that transaction, so it is left out.
const TENANT_CONDITION: &str =
    "($1 = '' OR e.merchant_id = $1) AND ($2 = '' OR e.environment = $2) AND e.to_status <> 'BATCH_COMPLETED'";

fn tenant_binds(tenant: Option<&Tenant>) -> (String, &'static str) {
    match tenant {
        Some(t) => (t.merchant_id.to_string(), t.environment.as_str()),
        None => (String::new(), ""),
    }
}

#[async_trait::async_trait]
impl<S: Backend<Db = DB>, DB: SqlDb> WebhookStore for S {
    async fn claim_due_events(
        &self,
        now: Timestamp,
        lease_until: Timestamp,
        limit: u32,
    ) -> Result<Vec<DueEvent>, StoreError> {
        let token = uuid::Uuid::new_v4().to_string();
        let claimed = sqlx::query(S::CLAIM_DUE_EVENTS)
            .arg(lease_until.millis())
            .arg(&token)
            .arg(now.millis())
            .arg(limit as i64)
            .fetch_all(DB::pool(self.writer()))
            .await?;
        if claimed.is_empty() {
            return Ok(Vec::new());
        }
        // The order the claim chose them in (`RETURNING` keeps none).
        let mut keys = Vec::with_capacity(claimed.len());
        for row in &claimed {
            keys.push((row.col::<i64>("next_attempt_at")?, row.col::<String>("id")?));
        }
        let mut order: Vec<usize> = (0..claimed.len()).collect();
        order.sort_by(|&a, &b| keys[a].cmp(&keys[b]));
        let events = order
            .into_iter()
            .map(|i| rows::claimed_event(&claimed[i], lease_until))
            .collect::<Result<Vec<_>, _>>()?;
        address(self.writer(), events).await
    }

    fn hand_settled_events_to(
        &self,
        queue: tokio::sync::mpsc::Sender<LeasedEvent>,
        lease: std::time::Duration,
    ) -> bool {
        self.batcher().handoff().attach(queue, lease)
    }

    async fn address_events(&self, events: Vec<LeasedEvent>) -> Result<Vec<DueEvent>, StoreError> {
        // New events: no attempt yet. Read on a reader: the writer has committed them.
        address(self.reader(), events.into_iter().map(|e| (e, 0)).collect()).await
    }

    async fn finish_attempts(&self, batch: &[Finished], now: Timestamp) -> Result<Vec<bool>, StoreError> {
        let mut tx = self.writer().begin().await?;
        let recorded = super::attempts::record(&mut tx, batch, now).await?;
        tx.commit().await?;
        Ok(recorded)
    }

    async fn insert_test_delivery(&self, tenant: &Tenant, a: &Attempt) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO webhook_test_deliveries (id, merchant_id, environment, at, url, status_code, latency_ms, \
             error, response) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
        )
        .arg(crate::domain::ids::new_record_id().to_string())
        .arg(tenant.merchant_id.as_str())
        .arg(tenant.environment.as_str())
        .arg(a.at.millis())
        .arg(a.url.as_str())
        .arg(a.status_code.map(i64::from))
        .arg(i64::try_from(a.latency_ms).unwrap_or(i64::MAX))
        .arg(a.error.as_deref())
        .arg(a.response.as_deref())
        .execute(DB::pool(self.writer()))
        .await?;
        Ok(())
    }

    async fn events(
        &self,
        tenant: Option<&Tenant>,
        filter: &EventFilter,
        page: &PageRequest,
    ) -> Result<Vec<EventSummary>, StoreError> {
        let (merchant, environment) = tenant_binds(tenant);
        let mut sql = format!(
            "{} WHERE {} AND ($3 = '' OR t.transaction_id = $3 OR t.ref = $3) AND ($4 = '' OR e.state = $4)",
            EVENT_SELECT, TENANT_CONDITION
        );
        if page.after.is_some() {
            sql.push_str(" AND (e.created_at, e.id) < ($5, $6)");
        }
        sql.push_str(&format!(" ORDER BY e.created_at DESC, e.id DESC LIMIT {}", page.limit));
        let mut query = sqlx::query(&sql)
            .arg(merchant)
            .arg(environment)
            .arg(filter.transaction_id.clone().unwrap_or_default())
            .arg(filter.state.map(names::event_state).unwrap_or(""));
        if let Some(after) = &page.after {
            query = query.arg(after.created_at.millis()).arg(after.id.clone());
        }
        let rows = query.fetch_all(DB::pool(self.reader())).await?;
        rows.iter().map(rows::event_summary).collect()
    }

    async fn event(
        &self,
        tenant: Option<&Tenant>,
        id: &str,
    ) -> Result<Option<(EventSummary, Vec<Attempt>)>, StoreError> {
        let (merchant, environment) = tenant_binds(tenant);
        let sql = format!("{} WHERE {} AND e.id = $3", EVENT_SELECT, TENANT_CONDITION);
        let Some(row) = sqlx::query(&sql)
            .arg(merchant)
            .arg(environment)
            .arg(id)
            .fetch_optional(DB::pool(self.reader()))
            .await?
        else {
            return Ok(None);
        };
        let summary = rows::event_summary(&row)?;
        let attempts = sqlx::query(
            "SELECT attempt, at, url, status_code, latency_ms, error, response FROM webhook_attempts \
             WHERE event_id = $1 ORDER BY at, attempt",
        )
        .arg(id)
        .fetch_all(DB::pool(self.reader()))
        .await?;
        let attempts = attempts.iter().map(rows::attempt).collect::<Result<Vec<_>, _>>()?;
        Ok(Some((summary, attempts)))
    }

    async fn redeliver(&self, tenant: Option<&Tenant>, id: &str, now: Timestamp) -> Result<(), StoreError> {
        let (merchant, environment) = tenant_binds(tenant);
        sqlx::query(
            "UPDATE outbox_events SET state = 'pending', attempts = 0, next_attempt_at = $3, \
             lease_until = NULL, lease_token = NULL, last_error = NULL \
             WHERE id = $4 AND ($1 = '' OR merchant_id = $1) AND ($2 = '' OR environment = $2)",
        )
        .arg(merchant)
        .arg(environment)
        .arg(now.millis())
        .arg(id)
        .execute(DB::pool(self.writer()))
        .await?
        .found()
    }

    async fn redeliver_failed(&self, events: &FailedEvents<'_>, now: Timestamp) -> Result<u64, StoreError> {
        let (merchant, environment) = tenant_binds(events.tenant);
        let changed = sqlx::query(
            "UPDATE outbox_events SET state = 'pending', attempts = 0, next_attempt_at = $3, \
             lease_until = NULL, lease_token = NULL, last_error = NULL \
             WHERE state = 'failed' AND created_at >= $4 AND created_at < $5 \
             AND ($1 = '' OR merchant_id = $1) AND ($2 = '' OR environment = $2)",
        )
        .arg(merchant)
        .arg(environment)
        .arg(now.millis())
        .arg(events.created.start.millis())
        .arg(events.created.end.millis())
        .execute(DB::pool(self.writer()))
        .await?;
        Ok(changed.rows_affected())
    }
}

/// The events with where each goes: one statement for their tenants (usually one). An event
/// whose tenant has no row is left out, and stays leased until its lease ends.
async fn address<DB: SqlDb>(
    pool: &sqlx::Pool<DB>,
    events: Vec<(LeasedEvent, u32)>,
) -> Result<Vec<DueEvent>, StoreError> {
    if events.is_empty() {
        return Ok(Vec::new());
    }
    let mut tenants: Vec<&Tenant> = Vec::new();
    for (event, _) in &events {
        if !tenants.contains(&&event.tenant) {
            tenants.push(&event.tenant);
        }
    }
    let sql = format!(
        "WITH v(merchant_id, environment) AS (VALUES {}) \
         SELECT m.merchant_id, m.environment, m.webhook_url, m.webhook_secret, m.previous_webhook_secret, \
         m.previous_webhook_secret_until, m.webhook_disabled_at \
         FROM merchant_environments m JOIN v ON m.merchant_id = v.merchant_id AND m.environment = v.environment",
        super::placeholders::<DB>(tenants.len(), 2)
    );
    let mut query = sqlx::query(&sql);
    for tenant in &tenants {
        query = query.arg(tenant.merchant_id.as_str()).arg(tenant.environment.as_str());
    }
    let endpoints = query.fetch_all(DB::pool(pool)).await?;
    let mut due = Vec::with_capacity(events.len());
    for (event, attempts) in events {
        let endpoint = endpoints.iter().find(|m| {
            m.col::<String>("merchant_id").ok().as_deref() == Some(event.tenant.merchant_id.as_str())
                && m.col::<String>("environment").ok().as_deref() == Some(event.tenant.environment.as_str())
        });
        if let Some(endpoint) = endpoint {
            due.push(rows::due_event(event, attempts, endpoint)?);
        }
    }
    Ok(due)
}
