//! What one payment of c costs: CPU-milliseconds of the gateway and of the database (from
//! `/proc`: the gateway's process, and on PostgreSQL every process named `postgres`, its
//! backends and its WAL writer among them), and on PostgreSQL the database's own work, read from
//! the write-ahead log the scenario wrote (`pg_walinspect`): heap rows inserted, updated (HOT or
//! not) and locked, index entries inserted, commits and bytes. The WAL is exact where
//! `pg_stat_*` counters are flushed late and say nothing of index entries; everything the
//! database did in the window counts, the workers' settlements and webhook deliveries too,
//! divided by the payments c created in it (warm-up included).

use std::collections::BTreeMap;

use sqlx::{Connection, Row};

/// Readings at the start of the window.
pub struct Probe {
    gateway_ticks: u64,
    database_ticks: u64,
    /// The WAL position, on PostgreSQL when `pg_walinspect` can be had.
    lsn: Option<String>,
}

/// Per payment, over the window.
#[derive(Debug, Clone, Default)]
pub struct Cost {
    pub payments: usize,
    pub gateway_cpu_ms: f64,
    /// `None` on SQLite, which runs inside the gateway.
    pub database_cpu_ms: Option<f64>,
    pub wal: Option<Wal>,
}

/// The database's work per payment, by the WAL records it wrote.
#[derive(Debug, Clone, Default)]
pub struct Wal {
    pub rows_inserted: f64,
    pub rows_updated: f64,
    pub hot_updates: f64,
    pub rows_locked: f64,
    pub index_entries: f64,
    pub commits: f64,
    pub bytes: f64,
}

/// CPU time of `pid` in clock ticks (user and system), 0 when it is gone.
fn ticks(pid: u32) -> u64 {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return 0;
    };
    // The command name may hold spaces: fields are counted after its closing parenthesis.
    let Some((_, rest)) = stat.rsplit_once(')') else {
        return 0;
    };
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // utime and stime are fields 14 and 15 of the line, 12 and 13 after the name.
    let field = |i: usize| fields.get(i).and_then(|v| v.parse::<u64>().ok()).unwrap_or(0);
    field(11) + field(12)
}

/// CPU ticks of every process named `postgres` on this machine.
fn database_ticks() -> u64 {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return 0;
    };
    entries
        .filter_map(Result::ok)
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| std::fs::read_to_string(format!("/proc/{pid}/comm")).is_ok_and(|c| c.trim() == "postgres"))
        .map(ticks)
        .sum()
}

/// Clock ticks per second (`CLK_TCK`): 100 on Linux.
const TICKS_PER_S: f64 = 100.0;

/// Starts the window: `postgres` is the gateway's database URL on PostgreSQL.
pub async fn start(gateway_pid: u32, postgres: Option<&str>) -> Probe {
    let lsn = match postgres {
        Some(url) => wal_position(url).await,
        None => None,
    };
    Probe {
        gateway_ticks: ticks(gateway_pid),
        database_ticks: if postgres.is_some() { database_ticks() } else { 0 },
        lsn,
    }
}

/// Ends the window over `payments` payments.
pub async fn finish(probe: Probe, gateway_pid: u32, postgres: Option<&str>, payments: usize) -> Cost {
    let per = |total: f64| total / payments.max(1) as f64;
    let ms = |from: u64, to: u64| per(to.saturating_sub(from) as f64 * 1000.0 / TICKS_PER_S);
    let gateway_cpu_ms = ms(probe.gateway_ticks, ticks(gateway_pid));
    let database_cpu_ms = postgres.map(|_| ms(probe.database_ticks, database_ticks()));
    let wal = match (postgres, &probe.lsn) {
        (Some(url), Some(from)) => match records(url, from).await {
            Ok(kinds) => Some(wal_per_payment(&kinds, payments)),
            Err(e) => {
                eprintln!("  cannot read the WAL the scenario wrote: {e}");
                None
            }
        },
        _ => None,
    };
    Cost {
        payments,
        gateway_cpu_ms,
        database_cpu_ms,
        wal,
    }
}

/// The current WAL position, `pg_walinspect` made ready first.
async fn wal_position(url: &str) -> Option<String> {
    let attempt = async {
        let mut conn = sqlx::PgConnection::connect(url).await?;
        sqlx::query("CREATE EXTENSION IF NOT EXISTS pg_walinspect")
            .execute(&mut conn)
            .await?;
        let lsn: String = sqlx::query("SELECT pg_current_wal_flush_lsn()::text AS lsn")
            .fetch_one(&mut conn)
            .await?
            .try_get("lsn")?;
        let _ = conn.close().await;
        Ok::<_, sqlx::Error>(lsn)
    };
    match attempt.await {
        Ok(lsn) => Some(lsn),
        Err(e) => {
            eprintln!("  no WAL figures (pg_walinspect needs PostgreSQL 15 and a superuser): {e}");
            None
        }
    }
}

/// WAL records since `from`, counted and sized by kind (`Heap/INSERT`, `Btree/INSERT_LEAF`…).
async fn records(url: &str, from: &str) -> Result<BTreeMap<String, (f64, f64)>, sqlx::Error> {
    let mut conn = sqlx::PgConnection::connect(url).await?;
    let rows = sqlx::query(
        "SELECT \"resource_manager/record_type\" AS kind, count, combined_size \
         FROM pg_get_wal_stats($1::pg_lsn, pg_current_wal_flush_lsn(), true) WHERE count > 0",
    )
    .bind(from)
    .fetch_all(&mut conn)
    .await?;
    let _ = conn.close().await;
    let mut kinds = BTreeMap::new();
    for row in rows {
        let kind: String = row.try_get("kind")?;
        let count: i64 = row.try_get("count")?;
        let size: i64 = row.try_get("combined_size")?;
        // `Heap/INSERT+INIT` is an insert that starts a page: an insert all the same.
        let entry = kinds
            .entry(kind.trim_end_matches("+INIT").to_owned())
            .or_insert((0.0, 0.0));
        entry.0 += count as f64;
        entry.1 += size as f64;
    }
    Ok(kinds)
}

fn wal_per_payment(kinds: &BTreeMap<String, (f64, f64)>, payments: usize) -> Wal {
    let n = payments.max(1) as f64;
    let count = |names: &[&str]| names.iter().filter_map(|k| kinds.get(*k)).map(|c| c.0).sum::<f64>() / n;
    Wal {
        rows_inserted: count(&["Heap/INSERT"]),
        rows_updated: count(&["Heap/UPDATE", "Heap/HOT_UPDATE"]),
        hot_updates: count(&["Heap/HOT_UPDATE"]),
        rows_locked: count(&["Heap/LOCK"]),
        // A new entry on a leaf, or one folded into a deduplicated posting list.
        index_entries: count(&["Btree/INSERT_LEAF", "Btree/INSERT_POST"]),
        commits: count(&["Transaction/COMMIT"]),
        bytes: kinds.values().map(|c| c.1).sum::<f64>() / n,
    }
}

/// The cost line printed after the table.
pub fn describe(scenario: &str, cost: &Cost) -> String {
    let mut line = format!(
        "{scenario}, per payment ({} payments): gateway CPU {:.2} ms",
        cost.payments, cost.gateway_cpu_ms
    );
    if let Some(db) = cost.database_cpu_ms {
        line.push_str(&format!(", database CPU {db:.2} ms"));
    }
    if let Some(w) = &cost.wal {
        line.push_str(&format!(
            "; database writes: {:.1} rows inserted, {:.1} updated ({:.1} HOT), {:.1} locked, {:.1} index entries, {:.2} commits, {:.0} WAL bytes",
            w.rows_inserted, w.rows_updated, w.hot_updates, w.rows_locked, w.index_entries, w.commits, w.bytes
        ));
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wal_kinds_are_counted_per_payment() {
        let kinds: BTreeMap<String, (f64, f64)> = [
            ("Heap/INSERT", (40.0, 4000.0)),
            ("Heap/UPDATE", (10.0, 1000.0)),
            ("Heap/HOT_UPDATE", (10.0, 500.0)),
            ("Btree/INSERT_LEAF", (150.0, 7500.0)),
            ("Btree/INSERT_POST", (50.0, 2500.0)),
            ("Transaction/COMMIT", (5.0, 100.0)),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect();
        let w = wal_per_payment(&kinds, 10);
        assert_eq!(
            (
                w.rows_inserted,
                w.rows_updated,
                w.hot_updates,
                w.index_entries,
                w.commits,
                w.bytes
            ),
            (4.0, 2.0, 1.0, 20.0, 0.5, 1560.0)
        );
    }

    #[test]
    fn a_process_gone_costs_nothing() {
        assert_eq!(ticks(u32::MAX), 0);
    }
}
