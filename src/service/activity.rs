//! What the merchant dashboard shows beyond the API's lists: the overview's figures, a
//! transaction's timeline and webhook attempts, and the webhooks page (its endpoint, recent
//! attempts, a test delivery).

use crate::domain::Francs;
use std::collections::BTreeMap;

use super::{Dashboard, ServiceError};
use crate::domain::{
    Activity, Attempt, Balance, EventFilter, EventSummary, Kind, OperatorCode, PageRequest, RecentAttempt, Status,
    Tenant, Timestamp, TransactionFilter, TransactionRecord, TransactionRef, Transition, WebhookEndpoint,
};
use crate::webhook::client::WebhookClient;
use crate::webhook::signing;

const DAY_MS: i64 = 86_400_000;

/// Days the overview's chart covers, today included.
pub const CHART_DAYS: usize = 7;

/// Successful transactions counted and summed: the money that moved.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Volume {
    pub count: u64,
    pub amount: Francs,
}

/// One operator's final transactions over the chart's days.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OperatorSuccess {
    pub operator: OperatorCode,
    pub successful: u64,
    /// Successful and failed: pending ones have no outcome yet.
    pub finished: u64,
}

/// The overview page's figures. Days are UTC days.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Overview {
    pub balance: Balance,
    pub today: Volume,
    pub last_7_days: Volume,
    /// Oldest day first; the last is today.
    pub days: [Volume; CHART_DAYS],
    pub operators: Vec<OperatorSuccess>,
}

/// A transaction with everything its page shows.
#[derive(Debug, Clone)]
pub struct Timeline {
    pub record: TransactionRecord,
    pub transitions: Vec<Transition>,
    /// Its webhook events (one per final state) with their attempts, oldest first.
    pub events: Vec<(EventSummary, Vec<Attempt>)>,
    /// A collection's refunds, newest first (the [`REFUNDS_SHOWN`] latest); none for another kind.
    pub refunds: Vec<TransactionRecord>,
    /// A refund's collection; `None` for another kind.
    pub collection: Option<TransactionRecord>,
}

/// How many of a collection's refunds its page lists.
pub const REFUNDS_SHOWN: u32 = 50;

/// The figures of `activity`, read from the first of `CHART_DAYS` days.
fn overview_of(balance: Balance, activity: &[Activity]) -> Overview {
    let mut days = [Volume::default(); CHART_DAYS];
    let mut per_operator: BTreeMap<&'static str, OperatorSuccess> = BTreeMap::new();
    for a in activity {
        let day = usize::try_from(a.day).ok().and_then(|d| days.get_mut(d));
        if let (Some(day), Status::Successful) = (day, a.status) {
            day.count += a.count;
            day.amount += a.amount;
        }
        let entry = per_operator.entry(a.operator.name()).or_insert(OperatorSuccess {
            operator: a.operator,
            successful: 0,
            finished: 0,
        });
        match a.status {
            Status::Successful => {
                entry.successful += a.count;
                entry.finished += a.count;
            }
            Status::Failed => entry.finished += a.count,
            Status::Pending => {}
        }
    }
    let last_7_days = days.iter().fold(Volume::default(), |sum, d| Volume {
        count: sum.count + d.count,
        amount: sum.amount + d.amount,
    });
    Overview {
        balance,
        today: days[CHART_DAYS - 1],
        last_7_days,
        days,
        operators: per_operator.into_values().collect(),
    }
}

impl Dashboard {
    /// The overview at `now`: balance, today's and the last seven UTC days' volume, and each
    /// operator's success rate over those days.
    pub async fn overview(&self, tenant: &Tenant, now: Timestamp) -> Result<Overview, ServiceError> {
        let today = now.millis() - now.millis().rem_euclid(DAY_MS);
        let since = Timestamp(today - (CHART_DAYS as i64 - 1) * DAY_MS);
        let balance = self.payments.balance(tenant).await?;
        let activity = self.activity.activity(tenant, since).await?;
        Ok(overview_of(balance, &activity))
    }

    /// A transaction (by the merchant's id or the reference) with its transitions and webhook
    /// events; `NotFound` for another tenant's.
    pub async fn timeline(&self, tenant: &Tenant, id: &TransactionRef) -> Result<Timeline, ServiceError> {
        let record = self
            .payments
            .transaction(tenant, id)
            .await?
            .ok_or(ServiceError::NotFound("transaction"))?;
        let transitions = self.activity.transitions(&record.transaction.id).await?;
        let filter = EventFilter {
            transaction_id: Some(record.transaction.transaction_id.to_string()),
            state: None,
        };
        let page = PageRequest { limit: 10, after: None };
        let mut events = Vec::new();
        let found = self.events.events(Some(tenant), &filter, &page).await?;
        // The filter also matches a reference equal to this id: keep this transaction's only.
        let own = found
            .into_iter()
            .rev()
            .filter(|e| record.transaction.reference == e.transaction_ref);
        for summary in own {
            let attempts = match self.events.event(Some(tenant), &summary.id).await? {
                Some((_, attempts)) => attempts,
                None => Vec::new(),
            };
            events.push((summary, attempts));
        }
        let (refunds, collection) = self.refunds_around(tenant, &record).await?;
        Ok(Timeline {
            record,
            transitions,
            events,
            refunds,
            collection,
        })
    }

    /// A collection's latest refunds, or a refund's collection.
    async fn refunds_around(
        &self,
        tenant: &Tenant,
        record: &TransactionRecord,
    ) -> Result<(Vec<TransactionRecord>, Option<TransactionRecord>), ServiceError> {
        let t = &record.transaction;
        Ok(match (t.kind(), t.purpose.refund_of()) {
            (_, Some(link)) => {
                let of = TransactionRef::from(link.collection.as_str());
                (Vec::new(), self.payments.transaction(tenant, &of).await?)
            }
            (Kind::Collection, None) => {
                let filter = TransactionFilter {
                    refund_of: Some(t.reference.clone()),
                    ..TransactionFilter::default()
                };
                let page = PageRequest {
                    limit: REFUNDS_SHOWN,
                    after: None,
                };
                (self.payments.transactions(tenant, &filter, &page).await?, None)
            }
            // Other kinds have no refunds and refund nothing.
            (_, None) => (Vec::new(), None),
        })
    }

    /// Sends a transaction's webhook events again (the existing redelivery); how many.
    /// `NotFound("webhook event")` while it has none (still pending).
    pub async fn resend_webhooks(
        &self,
        tenant: &Tenant,
        id: &TransactionRef,
        now: Timestamp,
    ) -> Result<usize, ServiceError> {
        let timeline = self.timeline(tenant, id).await?;
        if timeline.events.is_empty() {
            return Err(ServiceError::NotFound("webhook event"));
        }
        for (event, _) in &timeline.events {
            self.webhooks.redeliver_event(Some(tenant), &event.id, now).await?;
        }
        Ok(timeline.events.len())
    }

    /// The tenant's webhook URL and whether it is disabled.
    pub async fn webhook_endpoint(&self, tenant: &Tenant, now: Timestamp) -> Result<WebhookEndpoint, ServiceError> {
        self.activity
            .webhook_endpoint(tenant, now)
            .await?
            .map(|(endpoint, _)| endpoint)
            .ok_or(ServiceError::NotFound("merchant"))
    }

    /// The tenant's latest webhook attempts, test deliveries included.
    pub async fn recent_webhook_attempts(
        &self,
        tenant: &Tenant,
        limit: u32,
    ) -> Result<Vec<RecentAttempt>, ServiceError> {
        Ok(self.activity.recent_attempts(tenant, limit).await?)
    }

    /// "Send a test event": a `test` body signed like any delivery (with every secret that
    /// signs now), POSTed to the tenant's URL at once through the webhook client (its timeout
    /// and private-address guard), and logged with the attempts. One attempt, no retry.
    pub async fn send_test_webhook(&self, tenant: &Tenant, now: Timestamp) -> Result<Attempt, ServiceError> {
        let (endpoint, secrets) = self
            .activity
            .webhook_endpoint(tenant, now)
            .await?
            .ok_or(ServiceError::NotFound("merchant"))?;
        let url = endpoint
            .url
            .ok_or_else(|| ServiceError::Invalid("no webhook URL is set".to_owned()))?;
        let id = format!("msg_test_{}", uuid::Uuid::new_v4().simple());
        let body = serde_json::json!({
            "type": "test",
            "environment": tenant.environment.as_str(),
            "createdAt": now.iso8601_millis(),
            "message": "a test event sent from the dashboard",
        })
        .to_string();
        let secrets: Vec<&str> = secrets.iter().map(String::as_str).collect();
        let timestamp = now.unix_seconds();
        let signature = signing::sign_all(&secrets, &id, timestamp, body.as_bytes())
            .map_err(|e| ServiceError::Internal(e.to_string()))?;
        let settings = &self.config.webhook;
        let client = WebhookClient::new(settings.timeout, settings.allow_private)
            .map_err(|e| ServiceError::Internal(format!("cannot build the webhook client: {e}")))?;
        let delivery = client.send(&url, &id, timestamp, &signature, &body).await;
        let attempt = Attempt {
            attempt: 1,
            at: now,
            url,
            status_code: delivery.status_code,
            latency_ms: delivery.latency_ms,
            error: delivery.error,
            response: delivery.response,
        };
        self.events.insert_test_delivery(tenant, &attempt).await?;
        Ok(attempt)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_overview_sums_successful_days_and_counts_only_finished_transactions_in_success_rates() {
        let row = |day, operator, status, count, amount| Activity {
            day,
            operator,
            status,
            count,
            amount,
        };
        let activity = [
            row(0, OperatorCode::Alpha, Status::Successful, 2, Francs(300)),
            row(6, OperatorCode::Alpha, Status::Failed, 1, Francs(100)),
            row(6, OperatorCode::Alpha, Status::Pending, 4, Francs(400)),
            row(6, OperatorCode::Beta, Status::Successful, 1, Francs(50)),
        ];
        let o = overview_of(
            Balance {
                available: Francs::ZERO,
                reserved: Francs::ZERO,
            },
            &activity,
        );
        assert_eq!(
            o.today,
            Volume {
                count: 1,
                amount: Francs(50)
            },
            "successful ones only"
        );
        assert_eq!(
            o.last_7_days,
            Volume {
                count: 3,
                amount: Francs(350)
            }
        );
        assert_eq!(
            o.days[0],
            Volume {
                count: 2,
                amount: Francs(300)
            }
        );
        let alpha = o.operators.iter().find(|s| s.operator == OperatorCode::Alpha).unwrap();
        assert_eq!((alpha.successful, alpha.finished), (2, 3));
    }
}
