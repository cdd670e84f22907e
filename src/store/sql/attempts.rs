//! Recording the webhook attempts of a dispatcher's batch, set-based: one `UPDATE … FROM
//! (rows) RETURNING` moves every event whose lease the dispatcher still holds, and one
//! multi-row `INSERT` keeps their attempts, instead of two statements per event. The same SQL
//! runs on SQLite (3.35 and later) and PostgreSQL.

use std::collections::HashMap;

use sqlx::Transaction;

use super::row_values::ColumnType::{Int, Text};
use super::row_values::{Columns, RowValues};
use super::SqlDb;
use super::{Args, Get};
use crate::domain::{EventState, Timestamp};
use crate::store::{names, EventUpdate, Finished, StoreError};

/// Events per statement: 7 binds each for the update, 9 for the insert, well under both
/// databases' bind limits.
const CHUNK: usize = 256;

/// An attempt's outcome, joined to its event by `id` and lease `token`.
const RECORDED_COLUMNS: &Columns = &[
    ("id", Text),
    ("token", Text),
    ("state", Text),
    ("tried", Int),
    ("next_attempt_at", Int),
    ("last_error", Text),
    ("delivered_at", Int),
];

const ATTEMPT_COLUMNS: &Columns = &[
    ("id", Text),
    ("event_id", Text),
    ("attempt", Int),
    ("at", Int),
    ("url", Text),
    ("status_code", Int),
    ("latency_ms", Int),
    ("error", Text),
    ("response", Text),
];

/// Records each finished attempt whose lease is still held; `true` for those recorded.
pub(super) async fn record<DB: SqlDb>(
    tx: &mut Transaction<'_, DB>,
    batch: &[Finished],
    now: Timestamp,
) -> Result<Vec<bool>, StoreError> {
    let mut recorded = vec![false; batch.len()];
    for round in rounds_of_distinct_events(batch) {
        record_round(tx, batch, &round, now, &mut recorded).await?;
    }
    let recorded_of = |i: usize| recorded[i];
    let tried: Vec<_> = batch
        .iter()
        .enumerate()
        .filter(|&(i, _)| recorded_of(i))
        .filter_map(|(_, f)| f.attempt.as_ref().map(|a| (f, a)))
        .collect();
    insert_attempts(tx, &tried).await?;
    // Rare (a 410): one statement each, in tenant order, so two dispatchers lock these rows
    // in one order.
    let mut gone: Vec<_> = batch
        .iter()
        .enumerate()
        .filter(|&(i, _)| recorded_of(i))
        .map(|(_, f)| f)
        .filter(|f| matches!(f.update, EventUpdate::FailedAndDisableEndpoint { .. }))
        .map(|f| (f.event.tenant.merchant_id.as_str(), f.event.tenant.environment.as_str()))
        .collect();
    gone.sort_unstable();
    gone.dedup();
    for (merchant, environment) in gone {
        sqlx::query(
            "UPDATE merchant_environments SET webhook_disabled_at = $1 WHERE merchant_id = $2 AND environment = $3",
        )
        .arg(now.millis())
        .arg(merchant)
        .arg(environment)
        .execute(DB::on(&mut **tx))
        .await?;
    }
    Ok(recorded)
}

/// The batch's positions in rounds where no event comes twice: an event finished twice in one
/// batch (a handed event that a claim also took once its lease ran out) is answered by its own
/// token in each round, never by the other's.
fn rounds_of_distinct_events(batch: &[Finished]) -> Vec<Vec<usize>> {
    let mut rounds: Vec<Vec<usize>> = Vec::new();
    let mut seen: HashMap<&str, usize> = HashMap::with_capacity(batch.len());
    for (i, f) in batch.iter().enumerate() {
        let round = seen.entry(f.event.id.as_str()).and_modify(|r| *r += 1).or_insert(0);
        if rounds.len() <= *round {
            rounds.push(Vec::new());
        }
        rounds[*round].push(i);
    }
    rounds
}

/// Moves the events of one round (`positions` in `batch`) whose lease is still held, and marks
/// them in `recorded`.
async fn record_round<DB: SqlDb>(
    tx: &mut Transaction<'_, DB>,
    batch: &[Finished],
    positions: &[usize],
    now: Timestamp,
    recorded: &mut [bool],
) -> Result<(), StoreError> {
    for chunk in positions.chunks(CHUNK) {
        let mut values = RowValues::joined(RECORDED_COLUMNS, chunk.len());
        for Finished { event, attempt, update } in chunk.iter().map(|&i| &batch[i]) {
            let (state, next_attempt_at, error, delivered_at) = match update {
                EventUpdate::Delivered => (EventState::Delivered, now.millis(), None, Some(now.millis())),
                EventUpdate::RetryAt { next_attempt_at, error } => (
                    EventState::Pending,
                    next_attempt_at.millis(),
                    Some(error.as_str()),
                    None,
                ),
                EventUpdate::Failed { error } | EventUpdate::FailedAndDisableEndpoint { error } => {
                    (EventState::Failed, now.millis(), Some(error.as_str()), None)
                }
            };
            values
                .text(event.id.as_str())
                .text(event.lease_token.as_str())
                .text(names::event_state(state))
                .int(if attempt.is_some() { 1 } else { 0 })
                .int(next_attempt_at)
                .text(error)
                .int(delivered_at);
        }
        let sql = format!(
            "{} \
             UPDATE outbox_events SET state = v.state, attempts = attempts + v.tried, \
             next_attempt_at = v.next_attempt_at, last_error = v.last_error, delivered_at = v.delivered_at, \
             lease_until = NULL, lease_token = NULL \
             FROM v WHERE outbox_events.id = v.id AND outbox_events.lease_token = v.token \
             RETURNING outbox_events.id",
            values.as_v::<DB>()
        );
        // A lost lease: another dispatcher owns the event now, and nothing of it is recorded.
        for row in values.bind(sqlx::query(&sql))?.fetch_all(DB::on(&mut **tx)).await? {
            let id: String = row.col("id")?;
            if let Some(&i) = chunk.iter().find(|&&i| batch[i].event.id == id) {
                recorded[i] = true;
            }
        }
    }
    Ok(())
}

/// The attempt rows of the recorded events that were tried.
async fn insert_attempts<DB: SqlDb>(
    tx: &mut Transaction<'_, DB>,
    tried: &[(&Finished, &crate::domain::Attempt)],
) -> Result<(), StoreError> {
    for chunk in tried.chunks(CHUNK) {
        let mut values = RowValues::new(ATTEMPT_COLUMNS, chunk.len());
        for (finished, a) in chunk {
            values
                .string(crate::domain::ids::new_record_id().to_string())
                .text(finished.event.id.as_str())
                .int(a.attempt as i64)
                .int(a.at.millis())
                .text(a.url.as_str())
                .int(a.status_code.map(|c| c as i64))
                .int(i64::try_from(a.latency_ms).unwrap_or(i64::MAX))
                .text(a.error.as_deref())
                .text(a.response.as_deref());
        }
        let sql = values.insert_into::<DB>("webhook_attempts", "");
        values.bind(sqlx::query(&sql))?.execute(DB::on(&mut **tx)).await?;
    }
    Ok(())
}
